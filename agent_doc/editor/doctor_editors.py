"""Which language server command each editor is set to run (for ``doctor``).

An editor starts ``agent-doc-lsp`` with the command its configuration names:
Helix's ``[language-server.agent-doc-lsp] command`` in ``languages.toml``,
Emacs's ``agent-doc-server-command`` in an init file, Neovim's
``require("agent_doc").setup({ cmd = { … } })`` in ``init.lua``. A path that
no longer exists (a deleted or moved virtualenv) or a bare name that is not on
PATH means the editor starts without agent-doc: :func:`configured_commands`
finds these settings, and :func:`agent_doc.editor.doctor.check_editor_servers`
judges each.
"""

from __future__ import annotations

import re
from pathlib import Path

from agent_doc.editor.install import config_home
from agent_doc.editor.install import home
from agent_doc.errors import AgentDocError
from agent_doc.store.config import read_toml

_EMACS = re.compile(r"""agent-doc-server-command\s+'\(\s*"([^"]+)\"""")
_NEOVIM = re.compile(
    r"""agent_doc["']\)\s*\.setup\s*\(\s*\{.*?\bcmd\s*=\s*\{\s*["']([^"']+)""",
    re.DOTALL,
)


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8", "replace") if path.is_file() else None
    except OSError:
        return None


def _helix_command() -> tuple[Path, str] | None:
    path = config_home() / "helix" / "languages.toml"
    try:
        data = read_toml(path)
    except AgentDocError:
        return None
    servers = data.get("language-server")
    server = servers.get("agent-doc-lsp") if isinstance(servers, dict) else None
    command = server.get("command") if isinstance(server, dict) else None
    return (path, command) if isinstance(command, str) else None


def _search(paths: list[Path], pattern: re.Pattern[str]) -> tuple[Path, str] | None:
    for path in paths:
        match = pattern.search(_read(path) or "")
        if match:
            return path, match.group(1)
    return None


def configured_commands() -> dict[str, tuple[Path, str]]:
    """Editor → (the file that sets it, the server command it runs)."""
    found = {
        "helix": _helix_command(),
        "emacs": _search(
            [
                home() / ".emacs",
                home() / ".emacs.d" / "init.el",
                config_home() / "emacs" / "init.el",
            ],
            _EMACS,
        ),
        "neovim": _search([config_home() / "nvim" / "init.lua"], _NEOVIM),
    }
    return {editor: where for editor, where in found.items() if where is not None}
