"""Agents in tmux panes: routing, the registry and what each agent is doing.

Owns the tmux adapter (the only module that runs ``tmux``), the
``sessions.json`` registry, document bindings, ``claim``, ``route``, layout
``sync``, ``resync``, stash windows, ``terminal``, permission prompts and the
inferred agent lifecycle state.

May import: :mod:`agent_doc.write`, :mod:`agent_doc.store`,
:mod:`agent_doc.document`, :mod:`agent_doc.errors`.
"""
