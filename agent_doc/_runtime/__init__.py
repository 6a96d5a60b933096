"""The one seam for start-up tricks: everything the per-turn commands do to
start and end fast, in the style of httpx's ``_compat.py``.

The rest of the package imports plain :mod:`threading` and :mod:`subprocess`
(one exception: the per-turn git commands of :mod:`agent_doc.cycle.gitproc`
start with ``os.posix_spawn``, 4 ms of imports less on every turn;
``tests/unit/test_layer_contracts.py`` allows no other), and :mod:`typing` for
the type checker only (``TYPE_CHECKING = False`` then ``if TYPE_CHECKING:``,
the spelling mypy and PEP 781 know); what a command must not pay on every
start lives here, each with the reason it earns its place:

- :mod:`.lazy` — patterns compiled and loggers resolved on first use (a module
  level ``re.compile`` or ``logging.getLogger`` costs every command that imports
  the module, whether it matches or logs anything);
- :mod:`.record` — value records as plain classes with ``__slots__`` instead of
  ``typing.NamedTuple`` (``import typing`` is 12 M instructions, about 7 ms of
  CPU here, and each named tuple class 0.24 ms to create against 0.02 ms);
- :mod:`.digest` — SHA-256, SHA-1 and BLAKE2b from CPython's own modules
  (``import hashlib`` loads OpenSSL: 11.6 M instructions, about 6 ms), with
  :mod:`hashlib` as the fallback;
- :mod:`.background` — a piece of file work on another thread while the
  caller goes on (two fsyncs of a write overlap);
- :mod:`.fast_exit` — a fast command ends with ``os._exit`` after its
  ``atexit`` handlers ran, skipping the interpreter's teardown; it refuses while
  background work is pending;
- :mod:`.faults` — named crash points for the exactly-once sweeps: a test sets
  ``AGENT_DOC_CRASH_AT`` and the process ends there with ``os._exit``, as a
  ``kill -9`` at that step would (read once; a no-op otherwise).

CPython's private names appear in this package only: ``atexit._run_exitfuncs``
in :mod:`.fast_exit` (CPython has no public way to run the handlers early) and
the hash modules ``_sha2``/``_sha256``/``_sha1``/``_blake2`` in :mod:`.digest`.

Nothing here imports another part of :mod:`agent_doc`: every layer may use it.
"""
