"""Completion, hover and rename for session documents.

Completion knows two places: the frontmatter block (keys, then the values of
choice fields) and ``<!-- agent:`` markers (component names — the standard ones
plus those already in the document — then ``patch=`` / ``max_lines=`` and the
patch modes). Hover explains a component (resolved patch mode and max_lines and
where each came from) or a frontmatter key. Rename changes a component's name
in both of its markers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.component_config import resolve_max_lines
from agent_doc.document.component_config import resolve_mode
from agent_doc.document.components import Component
from agent_doc.document.components import is_valid_name
from agent_doc.document.frontmatter import field_lines
from agent_doc.document.frontmatter import split_frontmatter
from agent_doc.document.frontmatter_text import MAX_FRONTMATTER_CHARS
from agent_doc.editor.backlog import has_id_prefix
from agent_doc.editor.backlog import id_completions
from agent_doc.editor.cache import scan
from agent_doc.editor.fields import ATTRIBUTES
from agent_doc.editor.fields import BY_KEY
from agent_doc.editor.fields import COMPONENT_DOCS
from agent_doc.editor.fields import FIELDS
from agent_doc.editor.model import Completion
from agent_doc.editor.model import HoverInfo
from agent_doc.editor.model import TextChange
from agent_doc.errors import AgentDocError
from agent_doc.errors import ComponentError

_WORD = lazy_compile(r"(?:[A-Za-z0-9_]|-(?!->))*")  # never eats a "-->"
_VALUE_LINE = lazy_compile(r"([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:[ \t]*(\S*)$")
_IN_MARKER = lazy_compile(r"<!--[ \t]*(/?)agent:([A-Za-z0-9-]*)([ \t][^>]*)?$")


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _word_end(text: str, offset: int) -> int:
    m = _WORD.match(text, offset)
    return m.end() if m else offset


def _yaml_span(text: str) -> tuple[int, int] | None:
    try:
        block = split_frontmatter(text)
    except AgentDocError:  # unterminated: the rest of the document is YAML
        return (4, len(text)) if text.startswith("---\n") else None
    return (block.yaml_start, block.yaml_end) if block else None


def _frontmatter_items(text: str, offset: int, prefix: str) -> list[Completion]:
    start = _line_start(text, offset)
    value = _VALUE_LINE.match(prefix)
    if value:
        doc = BY_KEY.get(value.group(1))
        begin = offset - len(value.group(2))
        end = _word_end(text, offset)
        if doc is None:
            return []
        return [
            Completion(v, v, "value", value.group(1), doc.summary, begin, end)
            for v in doc.values
        ]
    if ":" in prefix or prefix[:1] in (" ", "\t", "-"):
        return []
    present = set(field_lines(text)) - {prefix + text[offset : _word_end(text, offset)]}
    end = _word_end(text, offset)
    if text.startswith(":", end):
        end += 1
    return [
        Completion(f.key, f"{f.key}: ", "field", "frontmatter", f.summary, start, end)
        for f in FIELDS
        if f.key not in present
    ]


def _names(text: str) -> list[str]:
    found_scan = scan(text)
    found = {c.name for c in found_scan.components} | {
        i.name for i in found_scan.issues
    }
    return sorted(set(COMPONENT_DOCS) | {n for n in found if is_valid_name(n)})


def _marker_items(text: str, offset: int, m: re.Match[str]) -> list[Completion]:
    closing, name, rest = m.group(1), m.group(2), m.group(3)
    if rest is None:
        begin, end = offset - len(name), _word_end(text, offset)
        return [
            Completion(
                n, n, "component", "component", COMPONENT_DOCS.get(n, ""), begin, end
            )
            for n in _names(text)
        ]
    if closing:
        return []
    token = re.search(r"(\S*)$", rest)
    current = token.group(1) if token else ""
    key, eq, typed = current.partition("=")
    if eq:
        values = ATTRIBUTES.get(key, ("", ()))[1]
        end = _word_end(text, offset)
        return [
            Completion(
                v, v, "value", f"{key}=", ATTRIBUTES[key][0], offset - len(typed), end
            )
            for v in values
        ]
    end = _word_end(text, offset)
    return [
        Completion(
            f"{k}=",
            f"{k}=",
            "attribute",
            "attribute",
            summary,
            offset - len(current),
            end,
        )
        for k, (summary, _values) in ATTRIBUTES.items()
        if k != "mode"
    ]


def completions(text: str, offset: int) -> list[Completion]:
    """Completion items at ``offset`` (empty outside frontmatter and markers)."""
    span = _yaml_span(text)
    prefix = text[_line_start(text, offset) : offset]
    if span and span[0] <= offset <= span[1]:
        return _frontmatter_items(text, offset, prefix)
    m = _IN_MARKER.search(prefix)
    if m and "-->" not in m.group(0):
        return _marker_items(text, offset, m)
    return id_completions(text, offset)


COMPLETION_HEAD = MAX_FRONTMATTER_CHARS + 16
"""Characters of a text's start :func:`no_completions` needs (its frontmatter)."""


def no_completions(head: str, line_prefix: str, offset: int) -> bool:
    """Whether :func:`completions` at ``offset`` is certainly empty, told from
    the text's first :data:`COMPLETION_HEAD` characters ``head`` and the
    cursor's line before ``offset``, so a long document is not read whole for a
    space typed in prose. ``False``: ask :func:`completions`."""
    if head.startswith("---\n"):
        close = head.find("\n---\n", 3)
        if close < 0 or close - 3 > MAX_FRONTMATTER_CHARS or offset <= close + 1:
            return False  # inside it, or the head cannot tell where it ends
    m = _IN_MARKER.search(line_prefix)
    if m and "-->" not in m.group(0):
        return False
    return not has_id_prefix(line_prefix)


def _markers(text: str, c: Component) -> list[tuple[int, int]]:
    """Spans of the open and the close marker (without their newlines)."""
    return [
        (c.open_start, c.open_end - (text[c.open_end - 1 : c.open_end] == "\n")),
        (c.close_start, c.close_end - (text[c.close_end - 1 : c.close_end] == "\n")),
    ]


def component_at(text: str, offset: int) -> tuple[Component, int, int] | None:
    """The component whose marker holds ``offset``, with that marker's span."""
    for c in scan(text).components:
        for start, end in _markers(text, c):
            if start <= offset <= end:
                return c, start, end
    return None


def _component_hover(c: Component, configs: Mapping[str, ComponentConfig]) -> str:
    lines = [f"**component `{c.name}`**"]
    if c.name in COMPONENT_DOCS:
        lines[0] += f" — {COMPONENT_DOCS[c.name]}"
    try:
        mode, source = resolve_mode(c, configs)
        lines.append(f"- patch mode: `{mode}` ({source})")
    except AgentDocError as exc:
        lines.append(f"- patch mode: invalid — {exc}")
    try:
        limit, source = resolve_max_lines(c, configs)
        shown = "unlimited" if limit == 0 else f"last {limit} lines"
        lines.append(f"- max_lines: `{limit}` ({shown}; {source})")
    except AgentDocError as exc:
        lines.append(f"- max_lines: invalid — {exc}")
    return "\n".join(lines)


def hover(
    text: str, offset: int, configs: Mapping[str, ComponentConfig] | None = None
) -> HoverInfo | None:
    """Hover text for a component marker or a frontmatter key at ``offset``."""
    found = component_at(text, offset)
    if found:
        comp, start, end = found
        return HoverInfo(_component_hover(comp, configs or {}), start, end)
    span = _yaml_span(text)
    if not span or not span[0] <= offset <= span[1]:
        return None
    start = _line_start(text, offset)
    m = re.match(r"([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:", text[start:])
    doc = BY_KEY.get(m.group(1)) if m else None
    if m is None or doc is None or offset > start + m.end():
        return None
    body = f"**`{doc.key}`** — {doc.summary}"
    if doc.values:
        body += "\n\nValues: " + ", ".join(f"`{v}`" for v in doc.values)
    if doc.replacement is not None:
        hint = f"use `{doc.replacement}`" if doc.replacement else "remove it"
        body += f"\n\n*Deprecated*: {hint}."
    return HoverInfo(body, start, start + len(doc.key))


def rename_target(text: str, offset: int) -> tuple[int, int, str] | None:
    """The name span ``(start, end, name)`` of the marker at ``offset``."""
    found = component_at(text, offset)
    if found is None:
        return None
    comp, start, _end = found
    at = text.find("agent:" + comp.name, start) + len("agent:")
    return at, at + len(comp.name), comp.name


def rename_edits(text: str, offset: int, new_name: str) -> list[TextChange]:
    """Changes renaming the component at ``offset`` in both of its markers.

    Raises
    ------
    ComponentError
        ``new_name`` is not a valid name, or no component marker is at ``offset``.
    """
    if not is_valid_name(new_name):
        raise ComponentError(f"invalid component name '{new_name}'")
    found = component_at(text, offset)
    if found is None:
        raise ComponentError("no component marker here")
    comp = found[0]
    out = []
    for start, _end in _markers(text, comp):
        at = text.find("agent:" + comp.name, start) + len("agent:")
        out.append(TextChange(at, at + len(comp.name), new_name))
    return out
