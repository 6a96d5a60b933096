#!/usr/bin/env python3
"""A tiny stand-in for an AI coding agent, for the Quick start demo.

Two ways to use it:

* as a custom backend of ``agent-doc run`` (``[agents.example]`` in the config):
  the prompt arrives on stdin and the answer is printed as claude-style JSON
  ``{"result": ..., "session_id": ..., "is_error": false}``;
* ``--from-diff``: reads ``agent-doc diff`` output on stdin and prints patch
  blocks, ready to be piped into ``agent-doc write``.

Its "intelligence": it answers the newest non-empty line the user added, and
evaluates it when it is simple arithmetic such as ``What is 2 + 3?``.
"""

from __future__ import annotations

import ast
import json
import operator
import re
import sys
import uuid

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv}  # fmt: skip


def _evaluate(expr: str) -> float | None:
    """Evaluate + - * / on numbers only (never ``eval``)."""
    try:
        node = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return None

    def walk(n: ast.AST) -> float:
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            return float(n.value)
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            return float(_OPS[type(n.op)](walk(n.left), walk(n.right)))
        raise ValueError(expr)

    try:
        return walk(node)
    except (ValueError, ZeroDivisionError):
        return None


def _question(text: str) -> str:
    """The newest added line of a diff, else the last line under ``## User``."""
    added = [
        line[1:].strip()
        for line in text.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    candidates = [s for s in added if s and not s.startswith(("#", "<!--", "---"))]
    if candidates:
        return candidates[-1]
    tail = text.rsplit("## User", 1)[-1]
    lines = [s.strip() for s in tail.splitlines()]
    lines = [s for s in lines if s and not s.startswith(("<", "#"))]
    return lines[-1] if lines else "(nothing asked)"


def answer(text: str) -> str:
    """Patch blocks answering the user's newest line."""
    question = _question(text)
    match = re.search(r"[-+*/().\d\s]{3,}", question)
    value = _evaluate(match.group().strip()) if match else None
    if value is not None:
        reply = f"{match.group().strip()} = {value:g}." if match else ""
    else:
        reply = f'You wrote: "{question}". (I am only the demo agent.)'
    return (
        "<!-- patch:status -->\n"
        "Answered by the example agent.\n"
        "<!-- /patch:status -->\n"
        "<!-- patch:exchange -->\n"
        f"\n### Re: {question[:60]}\n\n{reply}\n\n## User\n\n"
        "<!-- /patch:exchange -->\n"
    )


def main(argv: list[str]) -> int:
    """Entry point (see the module docstring)."""
    text = sys.stdin.read()
    if "--from-diff" in argv:
        sys.stdout.write(answer(text))
        return 0
    session = argv[argv.index("--resume") + 1] if "--resume" in argv else None
    reply = {
        "result": answer(text),
        "session_id": session or str(uuid.uuid4()),
        "is_error": False,
    }
    sys.stdout.write(json.dumps(reply) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
