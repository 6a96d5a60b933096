"""Running a piece of file work on another thread while the caller goes on.

A write waits on the disk several times (each durable file is fsynced, and a
large file is copied into the page cache); work that does not depend on the
next step can overlap it. :func:`in_background` starts ``work`` on a thread and
returns a function that waits for it: the result, or the exception ``work``
raised, re-raised in the caller. File system calls release the interpreter
lock, so the overlap is real on a machine with more than one core.

The caller must wait before it returns: :func:`pending` counts the work not
waited for yet, and :mod:`agent_doc._runtime.fast_exit` refuses to end the
process while it is not zero.
"""

from __future__ import annotations

import threading

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")

_pending = 0
_count_lock = threading.Lock()


def pending() -> int:
    """How many pieces of background work have not been waited for."""
    return _pending


def _count(delta: int) -> None:
    global _pending
    with _count_lock:
        _pending += delta


def in_background(work: Callable[[], T]) -> Callable[[], T]:
    """Start ``work`` on a thread; the returned function waits for it and gives
    its result or raises its exception (every call, the same outcome)."""
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(work())
        except BaseException as exc:  # handed to the waiting caller
            errors.append(exc)

    thread = threading.Thread(target=run, name="agent-doc-background", daemon=True)
    _count(+1)
    thread.start()
    waited = False

    def wait() -> T:
        nonlocal waited
        thread.join()
        if not waited:
            waited = True
            _count(-1)
        if errors:
            raise errors[0]
        return results[0]

    return wait


def wait_quietly(wait: Callable[[], object]) -> None:
    """Wait for background work while another error is on its way up: that
    error is the one to report, so this one is dropped."""
    try:
        wait()
    except BaseException:  # the caller re-raises its own error
        pass
