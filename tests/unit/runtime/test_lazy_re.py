"""Per-turn modules compile no regular expression at import (issue 17)."""

from __future__ import annotations

import re
import subprocess
import sys

from agent_doc._runtime.lazy import lazy_compile

PER_TURN = (
    "agent_doc.document.apply",
    "agent_doc.document.outline",
    "agent_doc.document.diff",
    "agent_doc.write.pipeline",
    "agent_doc.write.server_link",
    "agent_doc.cycle.preflight",
    "agent_doc.tmux.route",
    "agent_doc.tmux.agent_state",
)


def test_a_lazy_pattern_matches_like_a_compiled_one() -> None:
    lazy = lazy_compile(r"(a+)(b)?", re.IGNORECASE)
    real = re.compile(r"(a+)(b)?", re.IGNORECASE)
    for text in ("", "xAAb", "aaa", "bab"):
        assert [m.span() for m in lazy.finditer(text)] == [
            m.span() for m in real.finditer(text)
        ]
        assert bool(lazy.search(text)) == bool(real.search(text))
    assert lazy.sub("-", "AAB x a") == real.sub("-", "AAB x a")
    assert lazy.pattern == real.pattern


def test_importing_the_per_turn_modules_compiles_no_regex() -> None:
    code = (
        "import re, sys\n"
        "calls = []\n"
        "real = re._compile\n"
        "def spy(*a, **k):\n"
        "    frame = sys._getframe(1)\n"
        "    while frame and frame.f_globals.get('__name__') == 're':\n"
        "        frame = frame.f_back\n"
        "    calls.append(frame and frame.f_globals.get('__name__'))\n"
        "    return real(*a, **k)\n"
        "re._compile = spy\n"
        f"for name in {PER_TURN!r}:\n"
        "    __import__(name)\n"
        "print(sorted({c for c in calls if c and c.startswith('agent_doc')}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
