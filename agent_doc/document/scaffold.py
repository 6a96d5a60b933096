"""What ``init`` writes, told apart from what a person typed.

A fresh session document holds only its scaffold: the frontmatter, the title
heading, HTML comments (component markers among them) and empty ``## User`` /
``## Assistant`` headings. Sending it would pay the agent to answer nothing,
so ``run`` and ``preflight`` treat it as "nothing to send".
"""

from __future__ import annotations

import re

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.document.frontmatter_text import split_frontmatter

_COMMENT = lazy_compile(r"<!--.*?-->", re.DOTALL)
_TITLE = lazy_compile(r"#\s.*")
_SCAFFOLD_HEADING = lazy_compile(r"#{1,6}\s*(User|Assistant)\s*:?", re.IGNORECASE)


def nothing_typed(text: str) -> bool:
    """True when a document holds nothing a person wrote: only the scaffold.

    What ``init`` writes is not a question: the frontmatter, the title
    heading, HTML comments (component markers among them) and empty
    ``## User`` / ``## Assistant`` headings. Any other text counts as typed.
    """
    block = split_frontmatter(text)
    body = text[block.body_start :] if block is not None else text
    body = _COMMENT.sub("", body)
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    if lines and _TITLE.fullmatch(lines[0]):
        lines = lines[1:]  # the title
    return all(_SCAFFOLD_HEADING.fullmatch(line) for line in lines)
