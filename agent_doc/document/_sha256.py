"""SHA-256 without loading OpenSSL: ``hashlib`` costs ~2.5 ms per process start.

``import hashlib`` loads ``_hashlib`` (OpenSSL's libcrypto) although the
per-turn commands only hash a path or a short text. CPython's own SHA-256
module (``_sha256``; ``_sha2`` from Python 3.12) loads in a fraction of that
and gives the same digests; ``hashlib`` is the fallback where it is missing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def _constructor() -> Callable[[bytes], Any]:
    for name in ("_sha256", "_sha2"):  # CPython's own module, by version
        try:
            found: Callable[[bytes], Any] = importlib.import_module(name).sha256
        except (ImportError, AttributeError):
            continue
        return found
    from hashlib import sha256  # pragma: no cover - a build without it

    return sha256  # pragma: no cover


_sha256 = _constructor()


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of ``data``."""
    digest: str = _sha256(data).hexdigest()
    return digest
