"""Documents and edits shared by the user-facing benchmarks.

Each function is deterministic (no randomness) so every run and every machine
measures the same texts.
"""

from __future__ import annotations

import compileall
from pathlib import Path

HEAD = (
    "---\nagent_doc_session: bench\nagent_doc_format: template\n---\n"
    "# Bench session\n\n"
    "<!-- agent:status -->\nidle\n<!-- /agent:status -->\n\n"
)


def session_document(size: int = 835_000) -> str:
    """A template session document of about ``size`` bytes.

    A long ``exchange`` of earlier turns (``### Re:`` headings, prose with
    non-ASCII text, a code block now and then), ending with the user's question.
    """
    parts = [HEAD, "<!-- agent:exchange -->\n"]
    total = sum(len(p.encode()) for p in parts)
    turn = 0
    while total < size - 200:
        block = [f"### Re: question {turn}\n\n"]
        for i in range(12):
            block.append(
                f"Turn {turn} line {i}: prose about the design, é and 😀 here.\n"
            )
        if turn % 5 == 0:
            block.append("\n```python\nprint('hello')  # <!-- not a marker -->\n```\n")
        block.append("\n")
        chunk = "".join(block)
        parts.append(chunk)
        total += len(chunk.encode())
        turn += 1
    parts.append("## User\n\nWhat should the next step be?\n<!-- /agent:exchange -->\n")
    return "".join(parts)


def answer(lines: int = 50) -> str:
    """An agent response of ``lines`` lines (unmatched text → exchange)."""
    body = [
        f"Answer line {i}: do this, then that — ünïcode ok.\n" for i in range(lines - 2)
    ]
    return "### Re: What should the next step be?\n\n" + "".join(body)


def user_edits(text: str, edits: int = 20) -> str:
    """``text`` with ``edits`` concurrent user edits spread through the document.

    A third each: a word changed mid-line, a new line typed, a line deleted.
    The last edit types a follow-up at the end of the exchange.
    """
    lines = text.splitlines(keepends=True)
    step = len(lines) // (edits + 1)
    for k in range(edits - 1, 0, -1):  # back to front: indices stay valid
        i = k * step
        while not lines[i].startswith("Turn "):
            i += 1
        if k % 3 == 0:
            lines[i] = lines[i].replace("design", "design (edited by the user)")
        elif k % 3 == 1:
            lines.insert(i, f"A line the user typed while the agent worked ({k}).\n")
        else:
            del lines[i]
    end = next(i for i in range(len(lines) - 1, 0, -1) if "/agent:exchange" in lines[i])
    lines.insert(end, "Also: one follow-up typed during the write.\n")
    return "".join(lines)


def structured_document(components: int = 200, target: int = 822_000) -> str:
    """A document of ``components`` components with headings (~6 symbols each).

    About ``target`` bytes: frontmatter (4 symbols), then per component its
    symbol, five ``##``/``###`` headings and prose with a code block whose
    ``#`` lines are not headings. 200 components give about 1,200 symbols.
    """
    head = "---\nagent_doc_session: bench\nagent_doc_format: template\nmodel: x\n---\n"
    per = max((target - len(head)) // components, 400)
    prose = "Prose line about the component, with é and 😀 in it. " * 2 + "\n"
    parts = [head]
    for n in range(components):
        block = [f"<!-- agent:part{n} -->\n"]
        for h in range(5):
            block.append(f"{'##' if h == 0 else '###'} Heading {n}.{h}\n\n")
            block.append("```sh\n# not a heading\n```\n")
        body = "".join(block)
        fill = per - len(body.encode()) - 30
        body += prose * max(fill // len(prose.encode()), 0)
        parts.append(body + f"<!-- /agent:part{n} -->\n")
    return "".join(parts)


def compile_packages() -> None:
    """Write the packages' bytecode before timing a command, as an installed
    copy has it: with ``PYTHONDONTWRITEBYTECODE`` set (or a fresh checkout) a
    CLI start would otherwise be measured compiling changed sources."""
    root = Path(__file__).resolve().parents[1]
    for package in ("agent_doc", "agent_doc_lsp"):
        compileall.compile_dir(root / package, quiet=1)
