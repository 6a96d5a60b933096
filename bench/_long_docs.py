"""Session documents as a user has them after N turns, in a real repository.

:func:`conversation` writes the text of a template session document (as
``agent-doc init`` makes it: frontmatter, title, a ``status`` component with
``patch=replace`` and the ``exchange`` with ``patch=append``) holding ``turns``
exchanges of about 4 KB each: the person's question (now and then with a list),
then the agent's ``### Re:`` answer with paragraphs, a ``####`` subheading, a
list, a code block and now and then a table. The text mixes ASCII with the
non-ASCII an agent writes (``—``, ``→``, ``é``) and, in the first answer, one
emoji outside the BMP (as people paste them), so every size is stored by Python
the same way (4 bytes per character). Deterministic: every run and every
machine measures the same texts.

:func:`make_repository` puts it in a git repository the way N turns of
``agent-doc run`` leave it: the document without its last answer committed,
the last answer written by ``agent-doc write`` (snapshot, boundary, CRDT state)
and ``agent-doc commit`` run, so the next diff is exactly what the person types
next (:func:`type_line`).
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

SESSION_ID = "bench-session"
"""The agent's session id (``resume``) the stand-in agent answers from."""
CLOSE = "<!-- /agent:exchange -->"
TOPICS = ("the parser", "the merge", "the server", "the cache", "the tests",
          "the docs", "the release", "the CLI")  # fmt: skip


def head(session: str) -> str:
    """Frontmatter, title and the status component of the document."""
    return (
        f"---\nagent_doc_session: {session}\nagent_doc_format: template\n"
        f"agent: bench\nresume: {SESSION_ID}\n---\n\n# Long conversation\n\n"
        "<!-- agent:status patch=replace -->\nidle\n<!-- /agent:status -->\n\n"
        "<!-- agent:exchange patch=append -->\n## User\n\n"
    )


def question(n: int) -> str:
    """The person's question of turn ``n``."""
    topic = TOPICS[n % len(TOPICS)]
    text = f"Turn {n}: what should change in {topic} next — and why?\n"
    if n % 3 == 0:
        text += "\n- keep the API stable\n- measure before and after\n"
    return text + "\n"


def answer(n: int) -> str:
    """The agent's answer of turn ``n`` (about 3.9 KB)."""
    topic = TOPICS[n % len(TOPICS)]
    para = (
        f"In {topic}, turn {n} found that the slow part is the copy → it grows "
        "with the document, not with the change. The fix keeps the index and "
        "touches only the edited lines; café-style names stay valid. "
    )
    parts = [f"### Re: {topic} (turn {n})\n\n"]
    if n == 0:
        parts.append("Done 🚀 — the first answer.\n\n")
    parts += [para * 3, "\n\n", para * 2, "\n\n", f"#### Steps for {topic}\n\n"]
    parts += [f"{i}. Step {i} of turn {n}: change the {topic} module.\n" for i in range(1, 7)]  # fmt: skip
    parts.append("\n```python\n")
    code = "def step_{}_{}(text: str) -> str:\n    # not a heading\n    return text[{}:]\n\n"
    parts += [code.format(n, i, i) for i in range(8)]
    parts.append("```\n\n")
    if n % 4 == 0:
        parts.append("| size | before | after |\n|---|---|---|\n")
        parts += [f"| {k} KB | {k * 3} ms | {k} ms |\n" for k in (10, 100, 1000)]
        parts.append("\n")
    parts += [
        para * 4,
        "\n\n",
        para * 4,
        "\n\n",
        "- checked: the tests pass\n- next: measure again\n\n",
    ]
    return "".join(parts)


def conversation(turns: int, session: str = "") -> tuple[str, str]:
    """(the document up to the last question, the last answer).

    The document ends with the person's last question, before the closing
    marker of the exchange; the last answer is what ``agent-doc write``
    appends to make the document of ``turns`` full turns.
    """
    session = session or str(uuid.UUID(int=turns))
    body = []
    for n in range(turns - 1):
        body += [question(n), answer(n)]
    body.append(question(turns - 1))
    return head(session) + "".join(body) + CLOSE + "\n", answer(turns - 1)


def type_line(text: str, line: str = "One more question, typed just now?") -> str:
    """``text`` with ``line`` typed at the end of the exchange (the next prompt)."""
    at = text.rindex(CLOSE)
    return text[:at] + line + "\n" + text[at:]


def _run(argv: list[str], cwd: Path, stdin: str = "") -> None:
    proc = subprocess.run(argv, cwd=cwd, input=stdin.encode(), capture_output=True,
                          check=False)  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {proc.stderr.decode()[-500:]}")


def make_repository(root: Path, turns: int, name: str = "doc.md") -> Path:
    """A git repository at ``root`` holding a document after ``turns`` turns.

    The document is committed, its snapshot and CRDT state taken by a real
    ``agent-doc write`` of the last answer, and that answer committed by
    ``agent-doc commit``: the state a person has right after the agent's
    answer. Return the document's path.
    """
    cli = str(Path(sys.executable).with_name("agent-doc"))
    root.mkdir(parents=True, exist_ok=True)
    _run(["git", "init", "-q", str(root)], root)
    _run(["git", "config", "user.email", "bench@example.invalid"], root)
    _run(["git", "config", "user.name", "bench"], root)
    _run([cli, "init"], root)
    text, last = conversation(turns)
    doc = root / name
    doc.write_text(text, "utf-8")
    _run(["git", "add", "-A"], root)
    _run(["git", "commit", "-qm", f"{turns} turns"], root)
    reply = (
        f"<!-- patch:status -->\nanswered turn {turns}\n<!-- /patch:status -->\n"
        f"<!-- patch:exchange -->\n{last}<!-- /patch:exchange -->\n"
    )
    _run([cli, "write", name, "--force-disk"], root, reply)
    _run([cli, "commit", name], root)
    return doc
