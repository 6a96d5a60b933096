"""Memory the server freed, handed back to the system.

CPython frees a large object with the C library's ``free``; glibc keeps the
freed pages of its heap for later allocations unless they sit at its top, so
after a long document's text is let go
(:func:`agent_doc.document.lineage.let_go`) the resident size would stay at
the open's peak: the ``didOpen`` message pygls read, its decode and the
version's text leave pages free but held. :func:`release_free_memory` asks
glibc for them (``malloc_trim``, about a millisecond at 19 MB); elsewhere
(another C library) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable


def release_free_memory() -> None:
    """Hand the free pages of the C heap back to the system, where the C
    library can."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (``None`` where the C library has none)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
    except OSError:
        return None
    trim: Callable[[int], int] | None = getattr(libc, "malloc_trim", None)
    return trim
