"""Command modules of the CLI; each defines ``register(app: typer.Typer)``."""
