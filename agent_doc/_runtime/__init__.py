"""The one seam for start-up tricks: everything the per-turn commands do to
start and end fast, in the style of httpx's ``_compat.py``.

The rest of the package imports plain :mod:`typing`, :mod:`hashlib`,
:mod:`threading` and :mod:`subprocess`; what a command must not pay on every
start lives here, each with the reason it earns its place:

- :mod:`.lazy` — patterns compiled and loggers resolved on first use (a module
  level ``re.compile`` or ``logging.getLogger`` costs every command that imports
  the module, whether it matches or logs anything);
- :mod:`.background` — a piece of file work on another thread while the
  caller goes on (two fsyncs of a write overlap);
- :mod:`.fast_exit` — a fast command ends with ``os._exit`` after its
  ``atexit`` handlers ran, skipping the interpreter's teardown; it refuses while
  background work is pending. The only private CPython name of the package is
  there (``atexit._run_exitfuncs``; CPython has no public way to run the
  handlers early).

Nothing here imports another part of :mod:`agent_doc`: every layer may use it.
"""
