"""What a resumed agent needs besides the diff: the parts the change touches.

An agent whose session resumes already holds the conversation, so the prompt
does not resend the document (issue 30). It carries the diff plus excerpts:

* every component other than ``exchange`` whose content changed since the
  snapshot, whole (a component is where a patch block lands);
* the exchange's tail: from the answer heading (``### Re:`` / ``## Assistant``)
  at or above the first change — at most :data:`BEFORE_CHANGE` characters above
  it — to the end of the exchange, where the answer lands. A tail longer than
  :data:`TAIL_LIMIT` keeps its first and last ``TAIL_LIMIT / 2`` characters
  with the cut marked. A document without an ``exchange`` component uses its
  body as the exchange.

Each excerpt names its component and its 1-based line range in the document.
Pure: text in, text out; the work is proportional to the excerpts plus one
scan of the components.
"""

from __future__ import annotations

from agent_doc.document.components import scan_components
from agent_doc.document.frontmatter_text import split_frontmatter

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.document.components import Component

BEFORE_CHANGE = 16_000
"""Characters of exchange kept above the first change at most."""
TAIL_LIMIT = 64_000
"""Characters of exchange tail sent at most."""
_CHUNK = 1 << 16
ANSWER_HEADS = ("\n### Re:", "\n## Assistant")
"""What an answer heading line starts with (after its line break)."""


def common_prefix(
    a: str, b: str, a_start: int = 0, b_start: int = 0, a_end: int | None = None
) -> int:
    """Length of the longest common prefix of ``a[a_start:a_end]`` and
    ``b[b_start:]`` (compared a chunk at a time)."""
    limit = min((len(a) if a_end is None else a_end) - a_start, len(b) - b_start)
    at = 0
    while at < limit and (
        a[a_start + at : a_start + at + _CHUNK]
        == b[b_start + at : b_start + at + _CHUNK]
    ):
        at += _CHUNK
    at = min(at, limit)
    end = min(at + _CHUNK, limit)
    while at < end and a[a_start + at] == b[b_start + at]:
        at += 1
    return at


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _answer_above(text: str, start: int, change: int) -> int | None:
    """Offset of the last answer heading line in ``text[start:change]``."""
    found = max(text.rfind(head, max(start - 1, 0), change) for head in ANSWER_HEADS)
    return None if found < 0 else found + 1


def _excerpt(text: str, name: str, start: int, end: int) -> str:
    first = text.count("\n", 0, start) + 1
    body = text[start:end]
    last = first + body.count("\n", 0, max(len(body) - 1, 0))
    if len(body) > TAIL_LIMIT:
        half = TAIL_LIMIT // 2
        return render_excerpt(name, first, last, body[:half], len(body), body[-half:])
    return render_excerpt(name, first, last, body, len(body))


def render_excerpt(
    name: str, first: int, last: int, head: str, length: int, end: str = ""
) -> str:
    """One ``<excerpt>`` of component ``name`` on lines ``first``-``last``:
    ``head`` is its body, or (``length`` characters past :data:`TAIL_LIMIT`)
    the body's first ``TAIL_LIMIT / 2`` characters, ``end`` its last ones."""
    body = head
    if length > TAIL_LIMIT:
        cut = length - 2 * (TAIL_LIMIT // 2)
        body = (
            head.rstrip("\n")
            + f"\n… ({cut} characters you already have are not repeated) …\n"
            + end
        )
    body = body.rstrip("\n")
    return f'<excerpt component="{name}" lines="{first}-{last}">\n{body}\n</excerpt>'


def _by_name(components: list[Component]) -> dict[str, Component]:
    named: dict[str, Component] = {}
    for component in components:
        named.setdefault(component.name, component)
    return named


def resumed_context(snapshot: str, text: str) -> str:
    """The excerpts of ``text`` a resumed agent needs (see the module docstring)."""
    now = _by_name(scan_components(text).components)
    before = _by_name(scan_components(snapshot).components)
    parts: list[str] = []
    for name, component in now.items():
        if name == "exchange" or component.parent is not None:
            continue
        old = before.get(name)
        if old is None or old.content(snapshot) != component.content(text):
            parts.append(
                _excerpt(text, name, component.open_start, component.close_end)
            )
    exchange, old = now.get("exchange"), before.get("exchange")
    if exchange is not None:
        start, end = exchange.open_end, exchange.close_start
    else:
        block = split_frontmatter(text)
        start, end = (block.body_start if block is not None else 0), len(text)
    if exchange is not None and old is not None:  # the exchange's first change
        same = common_prefix(snapshot, text, old.open_end, start, old.close_start)
        change = start + same
    else:
        change = common_prefix(snapshot, text)
    change = min(max(change, start), end)
    answer = _answer_above(text, start, change)
    floor = _line_start(text, max(start, change - BEFORE_CHANGE))
    tail_start = max(answer if answer is not None else start, floor, start)
    parts.append(_excerpt(text, "exchange", tail_start, end))
    return "\n\n".join(parts)
