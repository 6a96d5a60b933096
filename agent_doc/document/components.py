"""Named components: ``<!-- agent:NAME [k=v ...] -->`` … ``<!-- /agent:NAME -->``.

Spec §2.3. Components nest (a stack gives each its depth and parent). Markers
inside code (fenced blocks, inline code spans) are ignored, and boundary
markers (``<!-- agent:boundary:… -->``) are never components.
:func:`parse_components` is strict and raises :class:`ComponentError`;
:func:`scan_components` is tolerant and reports issues for editor diagnostics.
"""

from __future__ import annotations

from bisect import bisect_right

from agent_doc._runtime.lazy import KEY_CHARS
from agent_doc._runtime.lazy import KEY_START
from agent_doc._runtime.lazy import lazy_compile
from agent_doc._runtime.record import Record
from agent_doc.document._textmemo import TextMemo
from agent_doc.document._textmemo import newlines_before
from agent_doc.document._textmemo import restart_point
from agent_doc.document.codeblocks import CodeIndex
from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.codeblocks import clear_block_memo
from agent_doc.document.codeblocks import code_index
from agent_doc.document.codeblocks import known_block_ranges
from agent_doc.document.splice import splice
from agent_doc.errors import ComponentError

__all__ = [
    "NAME_RE",
    "STANDARD_MODES",
    "Component",
    "ComponentIssue",
    "ComponentScan",
    "default_mode",
    "find_component",
    "is_valid_name",
    "parse_components",
    "replace_content",
    "scan_components",
]

NAME_RE = r"[a-zA-Z0-9][a-zA-Z0-9-]*"
"""A component name (an ASCII letter or digit, then those or ``-``)."""
_MARKER = lazy_compile(r"<!--[ \t]*(/?)agent:([^ \t\n]*?)([ \t][^\n]*?)?[ \t]*-->")
ATTR_RE = r"""([A-Za-z_][A-Za-z0-9_-]*)=(?:"([^"]*)"|'([^']*)'|([^\s"']\S*))"""
"""One ``key=value`` attribute of a marker; :func:`_parse_attrs` finds what
``finditer`` of this pattern finds, by hand (a write has no pattern to compile)."""

STANDARD_MODES: dict[str, str] = {
    "exchange": "append",
    "findings": "append",
    "status": "replace",
    "pending": "replace",
    "output": "replace",
    "input": "replace",
}
"""Built-in default patch mode of the standard component names (§2.3)."""


def is_valid_name(name: str) -> bool:
    """True when ``name`` is a valid component name (:data:`NAME_RE`)."""
    return name.isascii() and name[:1].isalnum() and name.replace("-", "").isalnum()


def default_mode(name: str) -> str:
    """The built-in patch mode of a component name (custom names → replace)."""
    return STANDARD_MODES.get(name, "replace")


class Component(Record):
    """One component: its name, inline attributes and marker offsets."""

    __slots__ = (
        "name",
        "attrs",
        "open_start",
        "open_end",
        "close_start",
        "close_end",
        "open_line",
        "close_line",
        "depth",
        "parent",
    )

    def __init__(
        self,
        name: str,
        attrs: tuple[tuple[str, str], ...],
        open_start: int,
        open_end: int,
        close_start: int,
        close_end: int,
        open_line: int,
        close_line: int,
        depth: int,
        parent: str | None,
    ) -> None:
        self.name = name
        self.attrs = attrs
        self.open_start = open_start
        self.open_end = open_end
        self.close_start = close_start
        self.close_end = close_end
        self.open_line = open_line
        self.close_line = close_line
        self.depth = depth
        self.parent = parent

    def content(self, text: str) -> str:
        """The text between the open and the close marker."""
        return text[self.open_end : self.close_start]

    def attr(self, key: str) -> str | None:
        """The inline attribute ``key`` (last one wins), or None."""
        found = None
        for k, v in self.attrs:
            if k == key:
                found = v
        return found

    def inline_mode(self) -> str | None:
        """The inline patch mode: ``patch=`` over its alias ``mode=``."""
        return self.attr("patch") or self.attr("mode")


class ComponentIssue(Record):
    """A problem found by :func:`scan_components` (for editor diagnostics).

    ``kind`` is one of ``unclosed``, ``unmatched``, ``mismatched``,
    ``invalid-name``; ``line`` is 1-based; ``start``/``end`` span the marker.
    """

    __slots__ = ("kind", "message", "line", "start", "end", "name")

    def __init__(
        self,
        kind: str,
        message: str,
        line: int,
        start: int,
        end: int,
        name: str,
    ) -> None:
        self.kind = kind
        self.message = message
        self.line = line
        self.start = start
        self.end = end
        self.name = name


class ComponentScan(Record):
    """The components found and the issues met, both in document order."""

    __slots__ = ("components", "issues")

    def __init__(
        self,
        components: list[Component],
        issues: list[ComponentIssue],
    ) -> None:
        self.components = components
        self.issues = issues


class _Marker(Record):
    __slots__ = ("closing", "name", "attrs", "start", "end", "line")

    def __init__(
        self,
        closing: bool,
        name: str,
        attrs: tuple[tuple[str, str], ...],
        start: int,
        end: int,
        line: int,
    ) -> None:
        self.closing = closing
        self.name = name
        self.attrs = attrs
        self.start = start
        self.end = end  # after the marker and one following "\n"
        self.line = line  # 0-based


def _parse_attrs(raw: str | None) -> tuple[tuple[str, str], ...]:
    """The ``key=value`` attributes in ``raw``, as ``re.finditer(ATTR_RE, raw)``
    finds them: left to right, each after the previous one."""
    if not raw or "=" not in raw:
        return ()
    out: list[tuple[str, str]] = []
    pos = 0
    while (eq := raw.find("=", pos)) >= 0:
        start = eq  # the key: the run of key characters before "="…
        while start > pos and raw[start - 1] in KEY_CHARS:
            start -= 1
        while start < eq and raw[start] not in KEY_START:  # …from a letter or _
            start += 1
        value, end = _attr_value(raw, eq + 1) if start < eq else (None, 0)
        if value is None:
            pos = eq + 1
            continue
        out.append((raw[start:eq], value))
        pos = end
    return tuple(out)


def _attr_value(raw: str, at: int) -> tuple[str | None, int]:
    """The attribute value starting at ``raw[at]`` (double- or single-quoted,
    or bare up to whitespace) and where it ends; ``(None, 0)`` when none."""
    first = raw[at : at + 1]
    if first in ('"', "'"):
        close = raw.find(first, at + 1)
        return (None, 0) if close < 0 else (raw[at + 1 : close], close + 1)
    if not first or first.isspace():
        return None, 0
    value = raw[at:].split(None, 1)[0]
    return value, at + len(value)


def _markers(text: str) -> list[_Marker]:
    """All component markers outside code, in document order (remembered for
    the last few texts; a text that begins like the latest one is scanned from
    where they differ, see :func:`agent_doc.document._textmemo.restart_point`)."""
    if "agent:" not in text:  # no marker: no code blocks to find either
        return []
    found = _MARKERS.get(text)
    if found is not None:
        return found
    blocks = block_ranges(text)
    found = None
    latest = _MARKERS.latest_like(text)
    old_blocks = None if latest is None else known_block_ranges(latest[0])
    if latest is not None and old_blocks is not None:
        old, markers = latest
        restart = restart_point(old, text, sorted(old_blocks[0] + old_blocks[1]))
        if restart:
            kept = [m for m in markers if m.start < restart]
            line = newlines_before(old, text, restart)
            if line is None:
                line = kept[-1].line if kept else 0
                line += text.count("\n", kept[-1].start if kept else 0, restart)
            found = kept + _scan_markers(text, blocks, restart, line)
    if found is None:
        found = _scan_markers(text, blocks, 0, 0)
    _MARKERS.put(text, found)
    return found


_MARKERS: TextMemo[list[_Marker]] = TextMemo(4)


def _scan_markers(
    text: str,
    blocks: tuple[list[tuple[int, int]], list[tuple[int, int]]],
    start: int,
    line: int,
) -> list[_Marker]:
    """The markers outside code from ``start`` (a line start outside every
    block, on line ``line``) to the end."""
    fences = blocks[0]
    code: CodeIndex | None = None
    out: list[_Marker] = []
    counted = start
    fi = bisect_right(fences, (start, start))
    for m in _MARKER.finditer(text, start):
        name = m.group(2)
        if name.startswith("boundary:"):
            continue
        start = m.start()
        while fi < len(fences) and fences[fi][1] <= start:
            fi += 1
        if fi < len(fences) and fences[fi][0] <= start:
            continue
        line_start = text.rfind("\n", 0, start) + 1
        # A marker opening its line (indent <= 3) starts an HTML block: it can
        # only be code inside a fence. Others may sit in a code span.
        if start - line_start > 3 or text[line_start:start].strip(" "):
            if code is None:
                code = code_index(text)
            if code.contains(start):
                continue
        line += text.count("\n", counted, start)
        counted = start
        end = m.end()
        if text.startswith("\n", end):
            end += 1
        out.append(
            _Marker(m.group(1) == "/", name, _parse_attrs(m.group(3)), start, end, line)
        )
    return out


def scan_components(text: str) -> ComponentScan:
    """Parse components tolerantly: never raises, collects issues instead.

    The write path asks about the same text several times in a row (find the
    exchange, then a block's component, then route, dedup, trim…); the scan of
    the last few texts is memoised, so a 100k-component document is scanned a
    handful of times per write, not once per question.
    """
    components, issues = _scan_memo(text)
    return ComponentScan(list(components), list(issues))


def _scan_memo(
    text: str,
) -> tuple[tuple[Component, ...], tuple[ComponentIssue, ...]]:
    found = _SCANS.get(text)
    if found is None:
        scan = _scan(text)
        found = tuple(scan.components), tuple(scan.issues)
        _SCANS.put(text, found)
    return found


_SCANS: TextMemo[tuple[tuple[Component, ...], tuple[ComponentIssue, ...]]]
_SCANS = TextMemo(4)


def clear_scan_memos() -> None:
    """Forget every remembered scan: components, markers and code blocks
    (benchmarks of a first parse)."""
    _SCANS.clear()
    _MARKERS.clear()
    clear_block_memo()


def _scan(text: str) -> ComponentScan:
    """The uncached scan behind :func:`scan_components`."""
    components: list[Component] = []
    issues: list[ComponentIssue] = []
    stack: list[_Marker] = []

    def issue(kind: str, message: str, mk: _Marker) -> None:
        issues.append(
            ComponentIssue(kind, message, mk.line + 1, mk.start, mk.end, mk.name)
        )

    def close(opened: _Marker, mk: _Marker, depth: int) -> None:
        parent = stack[-1].name if stack else None
        components.append(
            Component(
                opened.name,
                opened.attrs,
                opened.start,
                opened.end,
                mk.start,
                mk.end,
                opened.line,
                mk.line,
                depth,
                parent,
            )
        )

    for mk in _markers(text):
        if not is_valid_name(mk.name):
            issue("invalid-name", f"invalid component name '{mk.name}'", mk)
        elif not mk.closing:
            stack.append(mk)
        elif not stack:
            issue("unmatched", f"closing marker '/{mk.name}' without matching open", mk)
        elif stack[-1].name == mk.name:
            opened = stack.pop()
            close(opened, mk, len(stack))
        else:
            issue(
                "mismatched",
                f"mismatched component: opened '{stack[-1].name}', closed '{mk.name}'",
                mk,
            )
            names = [s.name for s in stack]
            if mk.name in names:
                while stack[-1].name != mk.name:
                    lost = stack.pop()
                    issue("unclosed", f"unclosed component '{lost.name}'", lost)
                opened = stack.pop()
                close(opened, mk, len(stack))
    for mk in stack:
        issue("unclosed", f"unclosed component '{mk.name}'", mk)
    components.sort(key=lambda c: c.open_start)
    issues.sort(key=lambda i: i.start)
    return ComponentScan(components, issues)


def parse_components(text: str) -> list[Component]:
    """Parse every component in document order; raise ComponentError if invalid."""
    scan = scan_components(text)
    if scan.issues:
        first = min(scan.issues, key=_issue_order)
        raise ComponentError(first.message, first.line)
    return scan.components


def _issue_order(issue: ComponentIssue) -> tuple[int, int]:
    # Strict order: problems met while scanning come first; a marker left
    # open is only known at the end of the document.
    return (1 if issue.kind == "unclosed" else 0, issue.start)


def find_component(components: list[Component], name: str) -> Component | None:
    """The first component called ``name``, or None."""
    return next((c for c in components if c.name == name), None)


def replace_content(text: str, component: Component, new_content: str) -> str:
    """Return ``text`` with the component's content replaced (markers kept)."""
    return splice(text, component.open_end, component.close_start, new_content)
