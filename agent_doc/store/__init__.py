"""Everything under a project's ``.agent-doc/`` folder, and the files around it.

Owns paths and document hashes, atomic writes and advisory locks, reading and
writing documents (BOM and CRLF kept), snapshots, baselines, pending responses,
CRDT state, the global and project configuration, cross-session hook events and
their socket, and process helpers for pid files.

May import: :mod:`agent_doc.document` and :mod:`agent_doc.errors`.
"""
