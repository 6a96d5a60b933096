"""The write path: an agent response lands in a document, never losing user text.

Owns the write request and its one seam (a language server that has the
document open takes the write; otherwise the disk writer merges and writes),
the socket client that hands work to that server, the live-buffer write
planning the server shares, and the component ``pre_patch``/``post_patch`` hooks.

May import: :mod:`agent_doc.store`, :mod:`agent_doc.document`,
:mod:`agent_doc.errors`.
"""
