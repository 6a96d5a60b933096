"""Fixtures of the reliability suite: the real language server over stdio.

``client`` is the pytest-lsp client of ``tests/lsp`` (``python -m agent_doc_lsp``
over stdio); :func:`server_session` turns it into an initialized editor on a
project and returns the project socket of the server.
"""

from __future__ import annotations

from tests.lsp.conftest import client

__all__ = ["client"]
