"""Switch a document between inline and template format (``convert``, ``mode``).

``convert`` rewrites the body: an inline conversation is wrapped into an
``exchange`` component under a ``## Exchange`` heading, and back. ``mode`` only
edits the frontmatter fields ``agent_doc_format`` / ``agent_doc_write``. Both
migrate the deprecated single ``agent_doc_mode`` field (aliases ``mode``,
``response_mode``) to the explicit fields.
"""

from __future__ import annotations

import re

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.document.boundary import remove_all_boundaries
from agent_doc.document.codeblocks import CodeIndex
from agent_doc.document.components import find_component
from agent_doc.document.components import parse_components
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.document.frontmatter import set_field
from agent_doc.document.frontmatter import split_frontmatter
from agent_doc.errors import DocumentError
from agent_doc.errors import FrontmatterError

FORMAT_KEY = "agent_doc_format"
WRITE_KEY = "agent_doc_write"
DEPRECATED_MODE_KEYS = ("agent_doc_mode", "mode", "response_mode")
"""The deprecated single-field mode and its legacy aliases."""

FORMATS = {"inline": "inline", "append": "inline", "template": "template"}
"""Accepted format names (``append`` is the old name of ``inline``)."""
WRITES = ("merge", "crdt")
_DEPRECATED_VALUES = {
    "append": ("inline", None),
    "inline": ("inline", None),
    "template": ("template", None),
    "stream": ("template", "crdt"),
}

_CONVERSATION = lazy_compile(r"^## (?:User|Assistant)[ \t]*$", re.MULTILINE)
_EXCHANGE_HEADING = lazy_compile(r"(?:\A|(?<=\n))## Exchange[ \t]*\n(?:[ \t]*\n)*\Z")


def _body_start(text: str) -> int:
    block = split_frontmatter(text)
    return 0 if block is None else block.body_start


def _conversation_start(body: str) -> int:
    """Offset of the first ``## User``/``## Assistant`` heading outside code."""
    code = CodeIndex(body)
    for match in _CONVERSATION.finditer(body):
        if not code.contains(match.start()):
            return match.start()
    return 0


def convert_to_template(text: str) -> str:
    """Wrap an inline conversation into an ``exchange`` component.

    Text above the first ``## User``/``## Assistant`` heading stays above the
    new ``## Exchange`` heading; the frontmatter gets ``agent_doc_format:
    template``.

    Raises
    ------
    DocumentError
        The document already has components (it is a template document), or
        its markers or frontmatter are invalid.
    """
    if parse_components(text):
        raise DocumentError(
            "document already has components (template format); nothing to convert"
        )
    start = _body_start(text)
    head, body = text[:start], text[start:]
    cut = _conversation_start(body)
    preamble = body[:cut].rstrip("\n")
    conversation = body[cut:].lstrip("\n")
    if conversation and not conversation.endswith("\n"):
        conversation += "\n"
    new_body = (
        (preamble + "\n" if preamble else "")
        + "\n## Exchange\n\n<!-- agent:exchange -->\n"
        + conversation
        + "<!-- /agent:exchange -->\n"
    )
    return set_field(_migrate_deprecated(head + new_body), FORMAT_KEY, "template")


def inline_losses(text: str) -> list[str]:
    """What :func:`convert_to_inline` drops that ``convert`` back cannot restore:
    other components' markers (their text stays, plain) and marker attributes."""
    components = parse_components(text)
    lost = [
        f"the {name} component (its text stays, no longer a component)"
        for name in dict.fromkeys(c.name for c in components if c.name != "exchange")
    ]
    for component in components:
        if component.name == "exchange" and component.attrs:
            attrs = " ".join(f"{key}={value}" for key, value in component.attrs)
            lost.append(f"the exchange's settings ({attrs})")
    return lost


def convert_to_inline(text: str) -> str:
    """Strip component markers, boundaries and the ``## Exchange`` heading.

    Component content stays in place; the frontmatter gets
    ``agent_doc_format: inline``.

    Raises
    ------
    DocumentError
        The component markers or the frontmatter are invalid.
    """
    components = parse_components(text)
    spans: list[tuple[int, int]] = []
    for component in components:
        spans += [
            (component.open_start, component.open_end),
            (component.close_start, component.close_end),
        ]
    exchange = find_component(components, "exchange")
    body_start = _body_start(text)
    if exchange is not None:
        before = text[body_start : exchange.open_start]
        heading = _EXCHANGE_HEADING.search(before)
        if heading is not None:
            cut = heading.start()
            if not before[:cut].strip():  # nothing above it: drop the blank lines too
                cut = 0
            spans.append((body_start + cut, exchange.open_start))
    out = text
    for start, end in sorted(spans, reverse=True):
        out = out[:start] + out[end:]
    out = remove_all_boundaries(out)
    return set_field(_migrate_deprecated(out), FORMAT_KEY, "inline")


def _migrate_deprecated(text: str) -> str:
    """Replace a deprecated mode field with explicit format/write fields."""
    raw = parse_frontmatter(text).raw
    for key in DEPRECATED_MODE_KEYS:
        value = raw.get(key)
        if not isinstance(value, str) or value not in _DEPRECATED_VALUES:
            continue
        fmt, write = _DEPRECATED_VALUES[value]
        if raw.get(FORMAT_KEY) is None:
            text = set_field(text, FORMAT_KEY, fmt)
        if write is not None and raw.get(WRITE_KEY) is None:
            text = set_field(text, WRITE_KEY, write)
        text = set_field(text, key, None)
        raw = parse_frontmatter(text).raw
    return text


def set_mode(text: str, format: str | None = None, write: str | None = None) -> str:
    """Set ``agent_doc_format`` and/or ``agent_doc_write`` (the ``mode`` command).

    A deprecated ``agent_doc_mode`` (or alias) is migrated to the explicit
    fields first; the body is never touched.

    Raises
    ------
    FrontmatterError
        An unknown format or write strategy, or invalid frontmatter.
    """
    if format is not None and format not in FORMATS:
        raise FrontmatterError(
            f"invalid format '{format}' (expected inline or template)"
        )
    if write is not None and write not in WRITES:
        raise FrontmatterError(
            f"invalid write strategy '{write}' (expected merge or crdt)"
        )
    text = _migrate_deprecated(text)
    if format is not None:
        text = set_field(text, FORMAT_KEY, FORMATS[format])
    if write is not None:
        text = set_field(text, WRITE_KEY, write)
    return text
