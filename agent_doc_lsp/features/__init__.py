"""One module per LSP feature; each exposes ``register(server)``.

:mod:`~agent_doc_lsp.features.local_link` is the exception: the in-process
:class:`~agent_doc.write.server_link.ServerLink` through which the commands
reach this server's own buffers.
"""
