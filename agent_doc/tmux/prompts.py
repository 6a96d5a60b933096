"""Permission prompts of an agent's terminal (spec §7.14, upstream notes §4.4).

:func:`parse_prompt` is pure (text in, dataclass out);
:func:`prompt_state`, :func:`prompt_all` and :func:`answer_prompt` read and press
keys in the document's tmux pane.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from agent_doc._runtime.lazy import lazy_compile
from agent_doc._runtime.record import Record
from agent_doc.errors import TmuxError
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import Tmux as _Tmux
from agent_doc.tmux.bindings import load_doc
from agent_doc.tmux.screen import strip_ansi

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from agent_doc.tmux.adapter import Tmux

_BRACKET = lazy_compile(r"^\[(\d+)\]\s+(.+)$")
_NUMBERED = lazy_compile(r"^(\d+)\.\s+(.+)$")


class PromptOption(Record):
    """One choice of a permission prompt (``index`` is 1-based as displayed)."""

    __slots__ = ("index", "label")

    def __init__(self, index: int, label: str) -> None:
        self.index = index
        self.label = label


class PromptInfo(Record):
    """A parsed permission prompt; ``selected`` is the 0-based highlighted option."""

    __slots__ = ("active", "question", "options", "selected")

    def __init__(
        self,
        active: bool,
        question: str = "",
        options: tuple[PromptOption, ...] = (),
        selected: int = 0,
    ) -> None:
        self.active = active
        self.question = question
        self.options = options
        self.selected = selected

    def to_json(self) -> dict[str, Any]:
        """Upstream JSON: inactive → ``{"active": false}`` only."""
        if not self.active:
            return {"active": False}
        return {
            "active": True,
            "question": self.question,
            "options": [{"index": o.index, "label": o.label} for o in self.options],
            "selected": self.selected,
        }


def _option(line: str) -> tuple[PromptOption, bool] | None:
    stripped = line.strip()
    marked = stripped.startswith(("❯", ">"))
    body = stripped.lstrip("❯>").strip()
    match = _BRACKET.match(body) or _NUMBERED.match(body)
    if match is None or not match.group(2).strip():
        return None
    return PromptOption(int(match.group(1)), match.group(2).strip()), marked


def parse_prompt(screen: str) -> PromptInfo:
    """Find a permission prompt in captured pane text (footer ``… to cancel``)."""
    lines = strip_ansi(screen).splitlines()
    footer = next(
        (i for i in range(len(lines) - 1, -1, -1) if "to cancel" in lines[i]), None
    )
    if footer is None:
        return PromptInfo(active=False)
    options: list[PromptOption] = []
    selected = 0
    question = ""
    for line in reversed(lines[:footer]):
        if not line.strip():
            continue
        parsed = _option(line)
        if parsed is not None:
            options.append(parsed[0])
            if parsed[1]:
                selected = len(options) - 1
            continue
        if options:
            question = line.strip()
            break
    if not options:
        return PromptInfo(active=False)
    options.reverse()
    selected = len(options) - 1 - selected
    return PromptInfo(True, question, tuple(options), selected)


def _debug(pane: str, screen: str) -> None:
    if os.environ.get("AGENT_DOC_PROMPT_DEBUG") == "1":
        tail = [ln for ln in strip_ansi(screen).splitlines() if ln.strip()][-5:]
        sys.stderr.write(f"[prompt] pane {pane}:\n" + "\n".join(tail) + "\n")


def _pane_for(file: Path | str, tmux: Tmux) -> str:
    doc = load_doc(file, create=False)
    entry = registry.load(doc.root).entries.get(doc.key or "")
    if entry is None:
        raise TmuxError(f"{doc.rel}: no pane registered (run agent-doc claim)")
    info = tmux.panes().get(entry.pane)
    if info is None or info.dead:
        raise TmuxError(f"pane {entry.pane} is dead")
    return entry.pane


def prompt_state(file: Path | str, tmux: Tmux | None = None) -> PromptInfo:
    """Parse the permission prompt currently shown in the document's pane."""
    tmux = tmux or _Tmux.from_env()
    pane = _pane_for(file, tmux)
    screen = tmux.capture(pane)
    _debug(pane, screen)
    return parse_prompt(screen)


def prompt_all(root: Path, tmux: Tmux | None = None) -> list[dict[str, Any]]:
    """``prompt --all``: one item per live registered pane (with ``file``)."""
    tmux = tmux or _Tmux.from_env()
    panes = tmux.panes()
    result = []
    for key, entry in sorted(registry.load(root).entries.items()):
        info = panes.get(entry.pane)
        if info is None or info.dead:
            continue
        screen = tmux.capture(entry.pane)
        _debug(entry.pane, screen)
        item: dict[str, Any] = {"session_id": key, "file": entry.file}
        item.update(parse_prompt(screen).to_json())
        result.append(item)
    return result


def answer_prompt(
    file: Path | str, n: int, tmux: Tmux | None = None, step_s: float = 0.03
) -> PromptInfo:
    """Move the selection to option ``n`` (1-based, Up/Down) and press Enter."""
    tmux = tmux or _Tmux.from_env()
    pane = _pane_for(file, tmux)
    info = parse_prompt(tmux.capture(pane))
    if not info.active:
        raise TmuxError(f"no permission prompt is active in pane {pane}")
    if not 1 <= n <= len(info.options):
        raise TmuxError(f"option {n} out of range 1..{len(info.options)}")
    delta = (n - 1) - info.selected
    for _ in range(abs(delta)):
        tmux.send_keys(pane, "Down" if delta > 0 else "Up")
        time.sleep(step_s)
    time.sleep(step_s * 2)
    tmux.send_keys(pane, "Enter")
    return info
