"""One agent turn and the git cycle around it.

Owns the agent backends (the exact argv and JSON of each CLI), ``run``,
``preflight`` and linked documents, the nearest AGENTS.md, the selective
commit and history, project housekeeping (``init``, ``reset``, ``diff``,
``recover``), ``audit-docs`` and the bundled Claude skill.

May import: :mod:`agent_doc.tmux`, :mod:`agent_doc.write`,
:mod:`agent_doc.store`, :mod:`agent_doc.document`, :mod:`agent_doc.errors`.
"""
