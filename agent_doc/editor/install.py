"""Editor plugin installation from the local ``editors/`` tree (§7.3, §7.19).

Nothing is downloaded: plugins come from the ``editors/`` folder of this
checkout (``AGENT_DOC_EDITORS_DIR`` overrides). VS Code (and Codium/Cursor) get
a ``.vsix`` built with npm and installed with ``<cli> --install-extension``;
Neovim gets a copy of the plugin in its pack path; the others get exact manual
steps. :func:`check_prereqs` reports tmux, claude and git.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from agent_doc.editor.vim_helptags import write_help_tags
from agent_doc.errors import AgentDocError

EDITORS: tuple[str, ...] = ("vscode", "neovim", "emacs", "helix", "zed", "jetbrains")
"""Supported editor names."""

VSCODE_CLIS: tuple[str, ...] = ("code", "codium", "cursor")
"""VS Code family command-line tools, in order of preference."""

EXTENSION_ID = "agent-doc.agent-doc"
"""VS Code extension id (publisher.name)."""

PREREQS: dict[str, str] = {
    "tmux": "install tmux (apt install tmux / brew install tmux)",
    "claude": "install Claude Code (see https://docs.anthropic.com/claude-code)",
    "git": "install git (apt install git / brew install git)",
}
"""Prerequisite programs and how to get them."""

Runner = Callable[[list[str], Path | None], "subprocess.CompletedProcess[str]"]


class InstallError(AgentDocError):
    """An editor plugin could not be installed."""


@dataclass(frozen=True, slots=True)
class Prereq:
    """One prerequisite program: found or not."""

    name: str
    path: str | None
    hint: str

    @property
    def ok(self) -> bool:
        """Whether the program is on PATH."""
        return self.path is not None


@dataclass(slots=True)
class InstallResult:
    """What installing one editor's plugin did."""

    editor: str
    status: str
    """``installed`` (done here) or ``manual`` (follow ``steps``)."""
    detail: str = ""
    path: str | None = None
    steps: list[str] = field(default_factory=list)


def _run(args: list[str], cwd: Path | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=900)


def home() -> Path:
    """The user's home folder."""
    return Path(os.environ.get("HOME") or Path.home())


def data_home() -> Path:
    """``$XDG_DATA_HOME`` or ``~/.local/share``."""
    return Path(os.environ.get("XDG_DATA_HOME") or home() / ".local" / "share")


def config_home() -> Path:
    """``$XDG_CONFIG_HOME`` or ``~/.config``."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or home() / ".config")


def cache_home() -> Path:
    """``$XDG_CACHE_HOME`` or ``~/.cache``."""
    return Path(os.environ.get("XDG_CACHE_HOME") or home() / ".cache")


def editors_source() -> Path:
    """The ``editors/`` tree: ``AGENT_DOC_EDITORS_DIR`` or the source checkout's."""
    override = os.environ.get("AGENT_DOC_EDITORS_DIR")
    candidates = [Path(override)] if override else []
    candidates.append(Path(__file__).resolve().parents[2] / "editors")
    for candidate in candidates:
        if (candidate / "neovim").is_dir():
            return candidate
    raise InstallError(
        "editor plugins not found: run from an agent-doc source checkout "
        "or set AGENT_DOC_EDITORS_DIR to its editors/ folder"
    )


def check_prereqs() -> list[Prereq]:
    """Look up tmux, claude and git on PATH."""
    return [Prereq(name, shutil.which(name), hint) for name, hint in PREREQS.items()]


def neovim_pack_dir() -> Path:
    """Where the Neovim plugin is installed (a ``start`` package)."""
    return data_home() / "nvim" / "site" / "pack" / "agent-doc" / "start" / "agent-doc"


def vscode_cli() -> str | None:
    """The first VS Code family CLI on PATH."""
    return next((c for c in VSCODE_CLIS if shutil.which(c)), None)


def _vscode_extension_dirs() -> list[Path]:
    names = (".vscode", ".vscode-oss", ".cursor")
    return [home() / n / "extensions" for n in names]


def detect_editors() -> list[str]:
    """Editors that look installed on this machine."""
    found = []
    if vscode_cli():
        found.append("vscode")
    if shutil.which("nvim"):
        found.append("neovim")
    if shutil.which("emacs"):
        found.append("emacs")
    if shutil.which("hx") or shutil.which("helix"):
        found.append("helix")
    if shutil.which("zed") or shutil.which("zeditor"):
        found.append("zed")
    if (data_home() / "JetBrains").is_dir() or any(
        Path("/Applications").glob("IntelliJ*")
    ):
        found.append("jetbrains")
    return found


def is_installed(editor: str) -> bool | None:
    """Whether ``editor``'s plugin is installed (``None``: cannot tell)."""
    if editor == "neovim":
        return (neovim_pack_dir() / "lua" / "agent_doc" / "init.lua").is_file()
    if editor == "vscode":
        return any(
            any(d.glob(f"{EXTENSION_ID}-*"))
            for d in _vscode_extension_dirs()
            if d.is_dir()
        )
    if editor == "emacs":
        inits = [home() / ".emacs", home() / ".emacs.d" / "init.el",
                 config_home() / "emacs" / "init.el"]  # fmt: skip
        return any(
            p.is_file() and "agent-doc" in p.read_text("utf-8", "replace")
            for p in inits
        )
    if editor == "helix":
        languages = config_home() / "helix" / "languages.toml"
        return languages.is_file() and "agent-doc-lsp" in languages.read_text("utf-8")
    if editor == "zed":
        return (data_home() / "zed" / "extensions" / "installed" / "agent-doc").exists()
    return None


def _copy_tree(source: Path, target: Path) -> None:
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("tags", "*.swp"))


def install_neovim(source: Path) -> InstallResult:
    """Copy ``editors/neovim`` into the pack path and write its help tags."""
    target = neovim_pack_dir()
    _copy_tree(source / "neovim", target)
    write_help_tags(target / "doc")  # `:help agent_doc` works at once
    return InstallResult(
        "neovim", "installed", path=str(target),
        steps=['add to init.lua: require("agent_doc").setup()',
               "agent-doc-lsp must be on the PATH Neovim sees, or pass its "
               f"absolute path: setup({{ cmd = {{ \"{server_path()}\" }} }})"],
    )  # fmt: skip


def server_path() -> str:
    """The absolute path of ``agent-doc-lsp`` (next to this Python, else PATH)."""
    beside = Path(sys.executable).parent / "agent-doc-lsp"
    if beside.is_file():
        return str(beside)
    return shutil.which("agent-doc-lsp") or "agent-doc-lsp"


def build_vsix(source: Path, run: Runner = _run) -> Path:
    """Build the VS Code extension with npm in the cache folder; return the .vsix."""
    if shutil.which("npm") is None:
        raise InstallError("npm not found: install Node.js 20+ to build the extension")
    work = cache_home() / "agent-doc" / "vscode-build"
    if work.exists():
        for child in work.iterdir():  # keep node_modules between builds
            if child.name != "node_modules":
                shutil.rmtree(child) if child.is_dir() else child.unlink()
    work.mkdir(parents=True, exist_ok=True)
    shutil.copytree(
        source / "vscode", work, dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("node_modules", "out", "*.vsix"),
    )  # fmt: skip
    for step in (
        ["npm", "ci", "--no-audit", "--no-fund"],
        ["npm", "run", "compile"],
        ["npx", "--no-install", "@vscode/vsce", "package", "--out", "agent-doc.vsix"],
    ):
        proc = run(step, work)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip()[-400:]
            raise InstallError(f"{' '.join(step)} failed: {tail}")
    return work / "agent-doc.vsix"


def install_vscode(source: Path, run: Runner = _run) -> InstallResult:
    """Build the .vsix and install it with code/codium/cursor when present."""
    cli = vscode_cli()
    if cli is None:
        return InstallResult(
            "vscode", "manual", "no code/codium/cursor command on PATH",
            steps=[
                f"cd {source / 'vscode'}",
                "npm ci && npm run compile && npx @vscode/vsce package",
                "code --install-extension agent-doc-*.vsix",
            ],
        )  # fmt: skip
    vsix = build_vsix(source, run)
    proc = run([cli, "--install-extension", str(vsix), "--force"], None)
    if proc.returncode != 0:
        raise InstallError(f"{cli} --install-extension failed: {proc.stderr.strip()}")
    return InstallResult("vscode", "installed", f"with {cli}", path=str(vsix))


def manual_steps(editor: str, source: Path) -> InstallResult:
    """Exact steps for editors installed by hand."""
    doc = f"docs/editors/{editor}.md"
    steps = {
        "emacs": [
            "add to init.el:",
            f'  (add-to-list \'load-path "{source / "emacs"}")',
            "  (require 'agent-doc)",
            "  (agent-doc-setup)",
            "agent-doc-lsp must be on Emacs's exec-path, or set "
            "agent-doc-server-command to its absolute path:",
            f'  (setq agent-doc-server-command \'("{server_path()}"))',
        ],
        "helix": [
            f"merge {source / 'helix' / 'languages.toml'} into "
            f"{config_home() / 'helix' / 'languages.toml'}",
            f"merge {source / 'helix' / 'config.toml'} into "
            f"{config_home() / 'helix' / 'config.toml'} (keys)",
        ],
        "zed": [
            "in Zed: command palette → 'zed: install dev extension'",
            f"choose the folder {source / 'zed'} (Zed compiles it with Rust)",
        ],
        "jetbrains": [
            "install the LSP4IJ plugin (Settings → Plugins → Marketplace)",
            "Settings → Languages & Frameworks → Language Servers → + → Template",
            f"import the folder {source / 'jetbrains' / 'agent-doc-lsp'}",
        ],
    }[editor]
    return InstallResult(editor, "manual", f"see {doc}", steps=steps)


def install(editor: str, run: Runner = _run) -> InstallResult:
    """Install (or update: same operation) one editor's plugin from local sources."""
    if editor not in EDITORS:
        raise InstallError(f"unknown editor {editor!r} (one of {', '.join(EDITORS)})")
    source = editors_source()
    if editor == "neovim":
        return install_neovim(source)
    if editor == "vscode":
        return install_vscode(source, run)
    return manual_steps(editor, source)
