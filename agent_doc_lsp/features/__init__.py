"""One module per LSP feature; each exposes ``register(server)``."""
