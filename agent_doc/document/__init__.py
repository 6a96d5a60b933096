"""The pure text model of a session document.

Owns everything that can be computed from text alone: YAML frontmatter, named
components and code ranges, the boundary marker, patch blocks and component
modes, applying a response, the CRDT merge, diffs, dedupe, format conversion,
outline and ``(HEAD)`` headings. No file, process or socket I/O happens here.

May import: :mod:`agent_doc.errors` only (and the standard library, pyyaml,
pycrdt).
"""
