"""Parsing agent responses into patch blocks (upstream-notes §3.1).

An agent answers a template document with ``<!-- patch:NAME -->…<!-- /patch:NAME -->``
blocks; everything outside them is "unmatched" text. Re-exported by
:mod:`agent_doc.document.apply`, which applies them.
"""

from __future__ import annotations

import json
import re
from functools import partial

from agent_doc._runtime.lazy import lazy_compile
from agent_doc._runtime.record import Record
from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.codeblocks import code_ranges
from agent_doc.document.components import is_valid_name
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import AgentDocError
from agent_doc.errors import PatchError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

_COMMENT = lazy_compile(r"<!--(.*?)-->", re.DOTALL)


class PatchBlock(Record):
    """One ``<!-- patch:NAME k=v -->…<!-- /patch:NAME -->`` block of a response."""

    __slots__ = ("name", "content", "attrs")

    def __init__(
        self,
        name: str,
        content: str,
        attrs: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.name = name
        """Target component name."""
        self.content = content
        """Everything between the opener (and its newline) and the close marker."""
        self.attrs = attrs
        """``k=v`` attributes of the opener, in order."""


def _opener(inner: str) -> tuple[str, str, tuple[tuple[str, str], ...]] | None:
    """Return ``(kind, name, attrs)`` when a comment's text opens a patch block."""
    text = inner.strip()
    for kind in ("patch", "replace"):
        if text.startswith(f"{kind}:"):
            tokens = text[len(kind) + 1 :].split()
            break
    else:
        return None
    if not tokens or tokens[0].startswith("/"):
        return None
    name = tokens[0]
    if kind == "replace" and name != "pending":
        return None
    if not is_valid_name(name):
        raise PatchError(f"invalid patch name '{name}'")
    attrs = tuple(
        (key, value)
        for key, sep, value in (t.partition("=") for t in tokens[1:])
        if sep
    )
    return kind, name, attrs


def parse_patch_blocks(response: str) -> tuple[list[PatchBlock], str]:
    """Split a response into patch blocks and the unmatched text around them.

    Markers inside fenced or inline code are ignored; ``<!-- replace:pending -->``
    is accepted for ``pending``; an opener without a close marker is dropped.
    Unmatched segments are trimmed and joined with ``\\n``.

    Raises
    ------
    PatchError
        A patch opener names an invalid component.
    """
    blocks, unmatched, _problems = _parse(response)
    return blocks, unmatched


_ANY_CLOSE = lazy_compile(r"<!--\s*/(?:patch|replace):([^\s>]*)\s*-->")
FALLBACK = "its text went to the exchange"
"""How every malformed-block warning ends (the spec's fallback, §7.22)."""


def _unclosed(response: str, name: str, start: int, code: CodeRanges) -> str:
    """The warning for an opener ``name`` that has no close marker of its own."""
    other = next(
        (
            m
            for m in _ANY_CLOSE.finditer(response, start)
            if not code.contains(m.start())
        ),
        None,
    )
    if other is not None:
        return f"patch block '{name}' is closed by '<!-- /patch:{other[1]} -->'"
    return f"patch block '{name}' is never closed"


def _parse(response: str) -> tuple[list[PatchBlock], str, list[str]]:
    """:func:`parse_patch_blocks` plus one problem line per malformed block."""
    code = CodeRanges(code_ranges(response))
    blocks: list[PatchBlock] = []
    problems: list[str] = []
    segments: list[str] = []
    pos = 0
    for match in _COMMENT.finditer(response):
        if match.start() < pos or code.contains(match.start()):
            continue
        opened = _opener(match.group(1))
        if opened is None:
            continue
        kind, name, attrs = opened
        segments.append(response[pos : match.start()])
        body_start = _skip_newline(response, match.end())
        close = re.compile(rf"<!--\s*/{kind}:{re.escape(name)}\s*-->")
        end = next(
            (
                m
                for m in close.finditer(response, body_start)
                if not code.contains(m.start())
            ),
            None,
        )
        if end is None:  # unclosed opener: consume the marker, keep what follows
            problems.append(
                f"{_unclosed(response, name, body_start, code)}; {FALLBACK}"
            )
            pos = body_start
            continue
        blocks.append(PatchBlock(name, response[body_start : end.start()], attrs))
        pos = _skip_newline(response, end.end())
    segments.append(response[pos:])
    unmatched = "\n".join(s.strip() for s in segments if s.strip())
    return blocks, unmatched, problems


def patch_block_warnings(
    response: str,
    document: str,
    *,
    has_component: Callable[[str], bool] | None = None,
) -> list[str]:
    """One line per malformed patch block of ``response`` written into ``document``.

    Unclosed blocks, blocks closed with another name and blocks naming no
    component of a template document; their text still goes to the exchange
    (the spec's fallback), this only says so. Never raises.
    ``has_component`` tells whether the document has an opener of a name
    (:func:`_has_component` of ``document`` by default; then ``document``
    may be the frontmatter alone).
    """
    try:
        if parse_frontmatter(document).format == "inline":
            return []  # an inline document takes the response as it is
        blocks, _unmatched, problems = _parse(response)
    except AgentDocError:
        return []  # the write itself reports these
    names = {b.name for b in blocks} - _FALLBACK_TARGETS
    unknown = [
        f"patch block '{name}' names no component of the document; {FALLBACK}"
        for name in sorted(names)
        if not (has_component or partial(_has_component, document))(name)
    ]
    return problems + unknown


_FALLBACK_TARGETS = frozenset({"exchange", "output", "frontmatter"})
"""Block names that are never unknown: the fallback targets (created when
missing) and the frontmatter patch."""


HAS_COMPONENT_SOURCE = r"<!--\s*agent:{}(?=\s|-->)"
"""The opener of a component whose escaped name fills ``{}``."""


def _has_component(document: str, name: str) -> bool:
    """Whether ``document`` has an opener of component ``name`` (one regex pass)."""
    opener = re.compile(HAS_COMPONENT_SOURCE.format(re.escape(name)))
    return opener.search(document) is not None


def _skip_newline(text: str, offset: int) -> int:
    return offset + 1 if text.startswith("\n", offset) else offset


def frontmatter_patch(fields: dict[str, str | None]) -> str:
    """Return a ``<!-- patch:frontmatter -->`` block setting (None: removing) fields."""
    body = "".join(
        f"{key}: {'null' if value is None else json.dumps(value)}\n"
        for key, value in fields.items()
    )
    return f"\n\n<!-- patch:frontmatter -->\n{body}<!-- /patch:frontmatter -->\n"
