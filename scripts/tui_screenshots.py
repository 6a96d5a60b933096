"""Regenerate docs/editors/{neovim,emacs}-conversation-state.png.

Each editor runs in its terminal UI inside a private tmux server (120x32): a
session document with one agent turn (written and committed by the real CLI),
a typed follow-up and a private comment. Neovim shows the unsent/private Hint
diagnostics and the lenses (Submit count, Diff/Revert this turn); Emacs shows
the Flymake notes and the sessions in ``completing-read``. The screen is read
with ``tmux capture-pane -e`` (colours kept), turned into HTML and rendered to
PNG by Debian's chromium through playwright.

Usage: .venv/bin/python scripts/tui_screenshots.py [neovim|emacs ...]
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.editors.harness import SERVER_CMD  # noqa: E402
from tests.editors.harness import find_nvim  # noqa: E402
from tests.editors.harness import session_doc  # noqa: E402

OUT = REPO / "docs" / "editors"
ANSWER = (
    "<!-- patch:exchange -->\n### Re: the plan\n\nShip it on Friday.\n"
    "<!-- /patch:exchange -->\n"
)
BASIC = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd",
         "#e5e5e5", "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff",
         "#00ffff", "#ffffff"]  # fmt: skip


def _xterm(n: int) -> str:
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return f"#{steps[n // 36]:02x}{steps[n // 6 % 6]:02x}{steps[n % 6]:02x}"
    level = 8 + (n - 232) * 10
    return f"#{level:02x}{level:02x}{level:02x}"


def ansi_to_html(screen: str, fg0: str = "#d0d0d0", bg0: str = "#1c1c1c") -> str:
    """SGR-coloured terminal text → HTML spans (fg, bg, bold, underline, reverse)."""
    out: list[str] = []
    style: dict[str, object] = {}
    for piece in re.split(r"(\x1b\[[0-9;:]*m)", screen):
        if not piece.startswith("\x1b["):
            if piece:
                fg, bg = style.get("fg", fg0), style.get("bg", bg0)
                if style.get("reverse"):
                    fg, bg = bg, fg
                css = f"color:{fg};background:{bg};"
                css += "font-weight:bold;" if style.get("bold") else ""
                css += "text-decoration:underline;" if style.get("underline") else ""
                out.append(f'<span style="{css}">{html.escape(piece)}</span>')
            continue
        codes = [int(c or 0) for c in re.split(r"[;:]", piece[2:-1])] or [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                style = {}
            elif c == 1:
                style["bold"] = True
            elif c in (4, 21):
                style["underline"] = True
            elif c == 7:
                style["reverse"] = True
            elif c == 22:
                style.pop("bold", None)
            elif c == 24:
                style.pop("underline", None)
            elif c == 27:
                style.pop("reverse", None)
            elif 30 <= c <= 37 or 90 <= c <= 97:
                style["fg"] = BASIC[c - 30 if c < 90 else c - 82]
            elif 40 <= c <= 47 or 100 <= c <= 107:
                style["bg"] = BASIC[c - 40 if c < 100 else c - 92]
            elif c == 39:
                style.pop("fg", None)
            elif c == 49:
                style.pop("bg", None)
            elif c in (38, 48) and i + 1 < len(codes):
                key = "fg" if c == 38 else "bg"
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    style[key] = _xterm(codes[i + 2])
                    i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    style[key] = "#{:02x}{:02x}{:02x}".format(
                        *tuple(codes[i + 2 : i + 5])
                    )
                    i += 4
            i += 1
    return "".join(out)


def render(screen: str, out: Path, *, light: bool = False) -> None:
    """Render captured terminal text to a PNG with chromium."""
    from playwright.sync_api import sync_playwright

    fg, bg = ("#000000", "#ffffff") if light else ("#d0d0d0", "#1c1c1c")
    page_html = (
        f"<html><body style='margin:0;background:{bg}'><pre style=\"margin:8px;"
        f"font:14px/1.25 'DejaVu Sans Mono',monospace;color:{fg}\">"
        f"{ansi_to_html(screen, fg, bg)}</pre></body></html>"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--no-sandbox"])  # fmt: skip
        page = browser.new_page(viewport={"width": 1000, "height": 600})
        page.set_content(page_html)
        page.locator("pre").screenshot(path=str(out))
        browser.close()


class Tmux:
    """A private tmux server running one editor."""

    def __init__(self, cwd: Path, command: list[str]) -> None:
        self.base = ["tmux", "-L", f"shot-{uuid.uuid4().hex[:8]}", "-f", "/dev/null"]
        subprocess.run([*self.base, "new-session", "-d", "-x", "120", "-y", "32",
                        "-c", str(cwd), "env", "TERM=xterm-256color", *command],
                       check=True)  # fmt: skip

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.base, "send-keys", *keys], check=True)

    def screen(self) -> str:
        argv = [*self.base, "capture-pane", "-e", "-p"]
        return subprocess.run(argv, check=True, capture_output=True, text=True).stdout

    def wait(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in (screen := self.screen()):
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out waiting for {text!r}:\n{screen}")
            time.sleep(0.2)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], check=False, capture_output=True)


def project(base: Path) -> Path:
    """A git project whose plan.md has one committed agent turn."""
    root = base / "proj"
    (root / ".agent-doc").mkdir(parents=True)
    for args in (["init", "-q"], ["config", "user.email", "t@example.invalid"],
                 ["config", "user.name", "Shot"]):  # fmt: skip
        subprocess.run(["git", "-C", str(root), *args], check=True)
    session_doc(root, "plan.md", body="What is the plan?\n")
    session_doc(root, "budget.md", body="How much?\n")
    cli = [sys.executable, "-m", "agent_doc.cli.entry"]
    subprocess.run([*cli, "write", "plan.md"], cwd=root, input=ANSWER, text=True,
                   check=True, capture_output=True)  # fmt: skip
    subprocess.run(
        [*cli, "commit", "plan.md"], cwd=root, check=True, capture_output=True
    )
    return root


def neovim(base: Path) -> None:
    """Hints with virtual text, the lenses, in Neovim's TUI."""
    root = project(base)
    setup = (
        "require('agent_doc').setup({cmd = vim.json.decode("
        f"{json.dumps(json.dumps(SERVER_CMD))}),"
        " keymaps = false, auto_sync = false})"
        " vim.diagnostic.config({virtual_text = true})"
    )
    nvim = find_nvim() or "nvim"
    tmux = Tmux(root, [nvim, "--clean", "--cmd", f"set rtp^={REPO / 'editors/neovim'}",
                       "--cmd", f"lua {setup}", "plan.md"])  # fmt: skip
    try:
        tmux.wait("Diff this turn")
        tmux.keys("/<!-- \\/agent:exchange", "Enter")
        tmux.keys(
            "O", "And the budget?", "Enter", "<!-- ask about Q3 later -->", "Escape"
        )
        tmux.wait("private, not sent")
        tmux.keys(":lua vim.lsp.codelens.refresh({bufnr=0})", "Enter", ":noh", "Enter")
        tmux.wait("Submit · 1 change")
        time.sleep(0.5)
        render(tmux.screen(), OUT / "neovim-conversation-state.png")
    finally:
        tmux.close()


def emacs(base: Path) -> None:
    """Flymake notes and the sessions in completing-read, in Emacs' TUI."""
    root = project(base)
    init = base / "init.el"
    init.write_text(
        "(require 'package) (package-initialize)\n"
        f"(add-to-list 'load-path {json.dumps(str(REPO / 'editors/emacs'))})\n"
        "(require 'agent-doc)\n"
        "(setq agent-doc-server-command"
        f' (list {json.dumps(sys.executable)} "-m" "agent_doc_lsp"))\n'
        "(setq agent-doc-auto-sync nil)\n(agent-doc-setup)\n"
        "(add-hook 'markdown-mode-hook #'eglot-ensure)\n"
        "(setq flymake-no-changes-timeout 0.3)\n"
    )
    tmux = Tmux(root, ["emacs", "-nw", "--no-init-file", "-l", str(init), "plan.md"])
    try:
        tmux.wait("Connected!")
        tmux.keys("C-x", "1")
        time.sleep(1.5)
        tmux.keys("M-<", "C-s", "<!-- /agent:exchange", "Enter", "C-a")
        tmux.keys("And the budget?", "Enter", "<!-- ask about Q3 later -->", "Enter")
        time.sleep(2.5)
        tmux.keys("C-p", "C-p")
        tmux.keys("M-x", "agent-doc-sessions", "Enter")
        time.sleep(1.0)
        tmux.keys("Tab")
        time.sleep(0.5)
        tmux.keys("Tab")
        tmux.wait("udget.md  none")
        time.sleep(0.5)
        render(tmux.screen(), OUT / "emacs-conversation-state.png", light=True)
        tmux.keys("C-g", "C-g")
    finally:
        tmux.close()


def main() -> int:
    """Take the requested screenshots (default: both)."""
    wanted = sys.argv[1:] or ["neovim", "emacs"]
    for name in wanted:
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
            {"neovim": neovim, "emacs": emacs}[name](Path(tmp))
        print(OUT / f"{name}-conversation-state.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
