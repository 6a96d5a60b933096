"""Typing in Neovim on the largest document, with and without the server.

Neovim 0.11 (``.venv/bin/nvim``, or nvim on PATH) runs in a private tmux
server (``tmux -L agentdoc-bench-<id>``, never the default one) with the
Neovim plugin of ``editors/neovim`` starting the real ``agent-doc-lsp`` — or,
for the reference, with no plugin and no server. The document is opened, the
cursor put on a new line above the closing marker of the exchange, and
:data:`TYPED` typed one key every :data:`GAP_S` through ``tmux send-keys``.
Keystroke → screen is the time from the start of ``send-keys`` until
``capture-pane`` shows the key on the screen (both variants pay the same tmux
client processes, a few ms). With the server, the answer is then written into
the open buffer by ``agent-doc write`` (the live-edit path).
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from bench._long_cli import REPLY
from bench._long_cli import fresh_copy

REPO = Path(__file__).resolve().parents[1]
SERVER_CMD = [str(Path(sys.executable).with_name("agent-doc-lsp"))]
TYPED = "Zq_typed_at_a_human_pace_12345"
GAP_S = 0.08
PLUGIN = """
vim.opt.rtp:prepend({plugin})
require("agent_doc").setup({{ cmd = vim.json.decode({cmd}), keymaps = false,
  auto_sync = false }})
"""
INIT = "vim.o.swapfile = false\nvim.o.shortmess = vim.o.shortmess .. 'aFW'\n"


class Session:
    """Neovim in a private tmux server, driven over ``--listen``."""

    def __init__(self, nvim: str, root: Path, server: bool) -> None:
        self.nvim = nvim
        self.root = root
        self.tmux = ["tmux", "-L", f"agentdoc-bench-{uuid.uuid4().hex[:10]}", "-f", "/dev/null"]  # fmt: skip
        self.sock = root.parent / f"nvim-{uuid.uuid4().hex[:8]}.sock"
        init = root.parent / f"init-{server}.lua"
        plugin = PLUGIN.format(plugin=json.dumps(str(REPO / "editors" / "neovim")),
                               cmd=json.dumps(json.dumps(SERVER_CMD)))  # fmt: skip
        init.write_text(INIT + (plugin if server else ""), "utf-8")
        subprocess.run([*self.tmux, "new-session", "-d", "-s", "main", "-x", "200",
                        "-y", "50", "/bin/sh"], check=True)  # fmt: skip
        self.started = time.perf_counter()
        command = f"{nvim} --clean -n --listen {self.sock} -u {init} doc.md"
        self.pane = self.run("new-window", "-d", "-P", "-F", "#{pane_id}", "-t",
                             "=main:", "-c", str(root), command).strip()  # fmt: skip

    def run(self, *args: str) -> str:
        """One tmux command on the private server."""
        return subprocess.run([*self.tmux, *args], capture_output=True, text=True,
                              timeout=30, check=False).stdout  # fmt: skip

    def lua(self, code: str, timeout: float = 120) -> Any:
        """Evaluate Lua (a body ending in ``return``) in the editor; decode it."""
        wrapped = f"vim.json.encode((function() {code} end)())"
        expr = "luaeval('" + wrapped.replace("'", "''") + "')"
        proc = subprocess.run([self.nvim, "--clean", "--headless", "--server",
                               str(self.sock), "--remote-expr", expr],
                              capture_output=True, text=True, timeout=timeout,
                              check=False)  # fmt: skip
        if proc.returncode != 0 or not proc.stdout.strip():
            raise RuntimeError(f"nvim: {proc.stderr.strip()[-300:]}")
        return json.loads(proc.stdout)

    def wait(self, code: str, timeout: float = 120) -> float:
        """Poll ``code`` until it returns true; return seconds since the start."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.sock.exists() and self.lua(code):
                    return time.perf_counter() - self.started
            except (RuntimeError, json.JSONDecodeError):
                pass
            time.sleep(0.02)
        raise TimeoutError(code)

    def screen_has(self, typed: str) -> bool:
        """Whether a screen line is exactly ``typed``."""
        screen = self.run("capture-pane", "-p", "-t", self.pane)
        return any(line.rstrip() == typed for line in screen.splitlines())

    def type_line(self) -> list[float]:
        """Type :data:`TYPED`; return each key's keystroke → screen ms."""
        self.lua("local n = vim.api.nvim_buf_line_count(0) "
                 "for i = n, 1, -1 do if vim.fn.getline(i) == '<!-- /agent:exchange -->' "
                 "then vim.api.nvim_win_set_cursor(0, {i, 0}) return i end end return 0")  # fmt: skip
        time.sleep(1.0)
        self.run("send-keys", "-t", self.pane, "O")
        deadline = time.monotonic() + 30
        while "-- INSERT --" not in self.run("capture-pane", "-p", "-t", self.pane):
            if time.monotonic() > deadline:
                raise TimeoutError("Insert mode")
            time.sleep(0.02)
        time.sleep(0.5)
        latencies = []
        for i, key in enumerate(TYPED):
            start = time.perf_counter()
            self.run("send-keys", "-t", self.pane, "-l", key)
            while not self.screen_has(TYPED[: i + 1]):
                if time.perf_counter() - start > 30:
                    raise TimeoutError(f"key {i} on the screen")
            latencies.append((time.perf_counter() - start) * 1000)
            time.sleep(max(start + GAP_S - time.perf_counter(), 0))
        self.run("send-keys", "-t", self.pane, "Escape")
        return latencies

    def peaks(self) -> tuple[float, float]:
        """Peak RSS (MB) of Neovim and of its language server (0 without)."""
        pid = int(self.lua("return vim.fn.getpid()"))
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        rss = [_hwm(pid)] + [_hwm(int(c)) for c in children if _is_server(int(c))]
        return rss[0], max(rss[1:], default=0.0)

    def close(self) -> None:
        """Quit Neovim and the private tmux server."""
        self.run("kill-server")


def _hwm(pid: int) -> float:
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmHWM:"):
            return int(row.split()[1]) / 1024
    return 0.0


def _is_server(pid: int) -> bool:
    try:
        return "agent_doc_lsp" in Path(f"/proc/{pid}/cmdline").read_text() or (
            "agent-doc-lsp" in Path(f"/proc/{pid}/cmdline").read_text()
        )
    except OSError:
        return False


def _variant(nvim: str, root: Path, server: bool) -> dict[str, Any]:
    session = Session(nvim, root, server)
    out: dict[str, Any] = {}
    try:
        out["open s"] = session.wait("return vim.api.nvim_buf_line_count(0) > 10")
        if server:
            session.wait("return #vim.lsp.get_clients({ bufnr = 0 }) == 1")
            session.wait(  # the server answers once it has opened the buffer
                "local ok, r = pcall(vim.lsp.buf_request_sync, 0,"
                " 'textDocument/documentSymbol',"
                " { textDocument = vim.lsp.util.make_text_document_params() }, 120000)"
                " return ok and r ~= nil"
            )
            out["server ready s"] = time.perf_counter() - session.started
        out["keys"] = session.type_line()
        if server:
            time.sleep(1.5)  # the person pauses; the debounced run is done
            cli = str(Path(sys.executable).with_name("agent-doc"))
            reply = f"<!-- patch:exchange -->\n{REPLY}<!-- /patch:exchange -->\n"
            start = time.perf_counter()
            proc = subprocess.run([cli, "write", "doc.md"], cwd=root, input=reply.encode(),
                                  capture_output=True, timeout=120, check=False)  # fmt: skip
            out["write s"] = time.perf_counter() - start
            out["write exit"] = proc.returncode
            out["landed"] = session.lua(
                "return table.concat(vim.api.nvim_buf_get_lines(0, -30, -1, false),"
                " '\\n'):find('A short answer.', 1, true) ~= nil"
            )
        out["nvim MB"], out["server MB"] = session.peaks()
    finally:
        session.close()
    return out


def measure_neovim(
    pristine: Path, work: Path, turns: int, row: dict[str, float]
) -> None:
    """Print keystroke → screen in Neovim with and without the server."""
    local = Path(sys.executable).with_name("nvim")
    nvim = str(local) if local.exists() else shutil.which("nvim")
    print(f"\nNeovim, {turns:,} turns ({row['bytes'] / 1e6:.1f} MB): "
          f"{len(TYPED)} keys typed {GAP_S * 1000:.0f} ms apart on a new line at the end")  # fmt: skip
    if nvim is None or shutil.which("tmux") is None:
        print("skipped: nvim or tmux is not installed")
        return
    results = {}
    for server in (False, True):
        fresh_copy(pristine, work)  # the state is keyed by the document's path
        results[server] = _variant(nvim, work, server)
    print(
        "\n| | open | keystroke → screen median | p90 | max | nvim peak RSS | server peak RSS |"
    )
    print("|---|---|---|---|---|---|---|")
    for server, res in results.items():
        keys = sorted(res["keys"])
        p90 = keys[int(len(keys) * 0.9) - 1]
        ready = f" (server ready {res['server ready s']:.1f} s)" if server else ""
        print(f"| {'with the server' if server else 'without it'} | {res['open s']:.1f} s{ready} "
              f"| {statistics.median(keys):.1f} ms | {p90:.1f} ms | {keys[-1]:.1f} ms "
              f"| {res['nvim MB']:.0f} MB | {res['server MB']:.0f} MB |")  # fmt: skip
    res = results[True]
    print(f"\nagent-doc write into the open buffer: {res['write s'] * 1000:.0f} ms, exit "
          f"{res['write exit']}, answer in the buffer: {res['landed']}")  # fmt: skip
    print(f"the server's didChange at this size: {row['didChange CPU']:.1f} ms CPU in "
          f"process, {row['didChange wire']:.1f} ms over the wire (goal ≤ 2 ms)")  # fmt: skip
