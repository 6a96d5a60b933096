"""Digests without loading OpenSSL.

``import hashlib`` loads ``_hashlib`` and with it OpenSSL's libcrypto: 11.6 M
instructions, about 6 ms of CPU per process on the machine of
docs/benchmarks.md — more than the digests the per-turn commands take (a path,
a short text, a few git objects, one document). CPython ships its own
implementations of the same algorithms (``_sha2``, called ``_sha256`` before
Python 3.12; ``_sha1``; ``_blake2``), which load in a twentieth of that and
give the same digests. They are private modules, so they are used here only;
SHA-256 and SHA-1 fall back to :mod:`hashlib` where a build lacks them (a test
compares both paths on the same inputs). BLAKE2b has one implementation in
CPython, ``_blake2`` (``hashlib.blake2b`` is the same object).
"""

from __future__ import annotations

try:  # CPython 3.12+
    from _sha2 import sha256 as _sha256
except ImportError:  # pragma: no cover - by Python version
    try:  # CPython 3.10, 3.11
        from _sha256 import sha256 as _sha256
    except ImportError:
        from hashlib import sha256 as _sha256

try:
    from _sha1 import sha1 as _sha1
except ImportError:  # pragma: no cover - a build without it
    from hashlib import sha1 as _sha1

from _blake2 import blake2b as _blake2b  # what hashlib.blake2b is, without OpenSSL


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of ``data``."""
    digest: str = _sha256(data).hexdigest()
    return digest


def sha1_hex(data: bytes) -> str:
    """Lowercase hex SHA-1 of ``data`` (git object ids)."""
    digest: str = _sha1(data).hexdigest()
    return digest


def blake2b_256_hex(data: bytes | tuple[bytes | memoryview, ...]) -> str:
    """Lowercase hex BLAKE2b of ``data`` with a 32-byte digest (``data`` may
    be given as its pieces, hashed in order without joining them)."""
    if not isinstance(data, tuple):
        data = (data,)
    hasher = _blake2b(digest_size=32)
    for piece in data:
        hasher.update(piece)
    digest: str = hasher.hexdigest()
    return digest
