"""A stand-in for an interactive coding agent, driven by the tmux tests.

It draws a ``❯`` prompt and reads one line at a time:

* ``/agent-doc FILE`` → prints ``received: /agent-doc FILE``, a few output
  bursts (``FAKE_AGENT_BURSTS``, ``FAKE_AGENT_DELAY`` seconds apart) and
  ``done: FILE``;
* ``ask`` → shows a Claude-style permission dialog, reads the answer in raw mode
  (Up/Down/digits, Enter confirms, Esc cancels) and prints ``answered: N LABEL``;
* ``/exit [CODE]`` → exits with CODE (default 0);
* ``!COMMAND`` → runs COMMAND in a shell, like an agent's Bash tool, and prints
  ``ran: STATUS``.

``FAKE_AGENT_STARTUP_DELAY`` delays the first prompt.

Kept (issue 36): a pane behaviour a real CLI cannot be made to show on demand.
"""

from __future__ import annotations

import os
import sys
import termios
import time
import tty

OPTIONS = ["Yes", "Yes, and don't ask again", "No"]


def out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def draw_dialog(selected: int) -> None:
    out("\x1b[2J\x1b[H")
    out("Bash command\r\n\r\n  rm -rf build\r\n\r\nDo you want to proceed?\r\n")
    for i, label in enumerate(OPTIONS):
        mark = "❯" if i == selected else " "
        out(f"{mark} {i + 1}. {label}\r\n")
    out("\r\nEsc to cancel · Tab to amend\r\n")


def read_key(fd: int) -> str:
    ch = os.read(fd, 1)
    if ch == b"\x1b":
        rest = os.read(fd, 2) if _ready(fd) else b""
        return {b"[A": "up", b"[B": "down", b"OA": "up", b"OB": "down"}.get(rest, "esc")
    if ch in (b"\r", b"\n"):
        return "enter"
    return ch.decode("utf-8", "replace")


def _ready(fd: int) -> bool:
    import select

    return bool(select.select([fd], [], [], 0.05)[0])


def dialog() -> None:
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    selected = 0
    try:
        tty.setraw(fd)
        draw_dialog(selected)
        while True:
            key = read_key(fd)
            if key == "up":
                selected = max(0, selected - 1)
            elif key == "down":
                selected = min(len(OPTIONS) - 1, selected + 1)
            elif key.isdigit() and 1 <= int(key) <= len(OPTIONS):
                selected = int(key) - 1
            elif key == "enter":
                break
            elif key == "esc":
                selected = -1
                break
            draw_dialog(selected)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
    out("\x1b[2J\x1b[H")
    if selected < 0:
        out("cancelled\n")
    else:
        out(f"answered: {selected + 1} {OPTIONS[selected]}\n")


def main() -> int:
    time.sleep(float(os.environ.get("FAKE_AGENT_STARTUP_DELAY", "0")))
    bursts = int(os.environ.get("FAKE_AGENT_BURSTS", "3"))
    delay = float(os.environ.get("FAKE_AGENT_DELAY", "0.05"))
    out("fake-agent ready\n")
    while True:
        out("❯ ")
        try:
            line = sys.stdin.readline()
        except KeyboardInterrupt:
            continue
        if not line:
            return 0
        line = line.strip()
        if line.startswith("/agent-doc "):
            out(f"received: {line}\n")
            for i in range(bursts):
                time.sleep(delay)
                out(f"working {i + 1}/{bursts}\n")
            out(f"done: {line.split(' ', 1)[1]}\n")
        elif line == "ask":
            dialog()
        elif line.startswith("!"):
            import subprocess

            status = subprocess.run(line[1:], shell=True, check=False).returncode
            out(f"ran: {status}\n")
        elif line.startswith("/exit"):
            parts = line.split()
            return int(parts[1]) if len(parts) > 1 else 0
        elif line:
            out(f"unknown: {line}\n")


if __name__ == "__main__":
    raise SystemExit(main())
