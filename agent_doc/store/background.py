"""Running a piece of file work on another thread while the caller goes on.

A write waits on the disk several times (each durable file is fsynced, and a
large file is copied into the page cache); work that does not depend on the
next step can overlap it. :func:`in_background` starts ``work`` on a thread and
returns a function that waits for it: the result, or the exception ``work``
raised, re-raised in the caller. File system calls release the interpreter
lock, so the overlap is real on a machine with more than one core.

A low-level thread (:mod:`_thread`) is used: importing :mod:`threading` costs
a per-turn command more than the overlap saves. The caller must wait before
it returns (a fast command ends with ``os._exit``, which does not wait).
"""

from __future__ import annotations

import _thread

from agent_doc.document._static import TYPE_CHECKING
from agent_doc.document._static import TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")


def in_background(work: Callable[[], T]) -> Callable[[], T]:
    """Start ``work`` on a thread; the returned function waits for it and gives
    its result or raises its exception (every call, the same outcome)."""
    done = _thread.allocate_lock()
    done.acquire()
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(work())
        except BaseException as exc:  # handed to the waiting caller
            errors.append(exc)
        finally:
            done.release()

    _thread.start_new_thread(run, ())

    def wait() -> T:
        with done:  # released when ``work`` has finished
            pass
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
