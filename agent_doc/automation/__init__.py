"""What runs by itself: ``watch``, the busy guard, typing awareness, gc, upgrade.

Owns the ``watch`` daemon and its pid file, per-document operation status (the
busy guard), whether the person is typing, the lifecycle around operations
(status + hook events), ``gc`` of stale ``.agent-doc/`` state and the update
check.

May import: every domain package below it (:mod:`agent_doc.cycle`,
:mod:`agent_doc.tmux`, :mod:`agent_doc.write`, :mod:`agent_doc.store`,
:mod:`agent_doc.document`); never :mod:`agent_doc.cli` or the language server.
"""
