"""SHA-256 (and SHA-1) without loading OpenSSL: ``hashlib`` costs ~2.5 ms per start.

``import hashlib`` loads ``_hashlib`` (OpenSSL's libcrypto) although the
per-turn commands only hash a path, a short text or a few git objects.
CPython's own modules (``_sha256``, ``_sha2`` from Python 3.12; ``_sha1``) load
in a fraction of that and give the same digests; ``hashlib`` is the fallback
where they are missing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from agent_doc.document._static import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


def _constructor(algorithm: str, modules: tuple[str, ...]) -> Callable[[bytes], Any]:
    for name in modules:  # CPython's own module, by version
        try:
            found: Callable[[bytes], Any] = getattr(
                importlib.import_module(name), algorithm
            )
        except (ImportError, AttributeError):
            continue
        return found
    import hashlib  # pragma: no cover - a build without it

    fallback: Callable[[bytes], Any] = getattr(hashlib, algorithm)  # pragma: no cover
    return fallback  # pragma: no cover


_sha256 = _constructor("sha256", ("_sha256", "_sha2"))
_sha1: Callable[[bytes], Any] | None = None


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of ``data``."""
    digest: str = _sha256(data).hexdigest()
    return digest


def sha1_hex(data: bytes) -> str:
    """Lowercase hex SHA-1 of ``data`` (git object ids)."""
    global _sha1
    if _sha1 is None:
        _sha1 = _constructor("sha1", ("_sha1",))
    digest: str = _sha1(data).hexdigest()
    return digest
