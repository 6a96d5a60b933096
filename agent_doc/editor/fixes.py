"""Quick fixes for the problems found by :mod:`agent_doc.editor.lint`.

* deprecated frontmatter keys →
  :func:`agent_doc.document.frontmatter.migrate_deprecated` (as one minimal edit);
* an unclosed component → insert its close marker before the enclosing
  component's close marker, or at the end of the document;
* stale boundary markers → delete every boundary line but the last.
"""

from __future__ import annotations

from agent_doc.document.boundary import find_boundaries
from agent_doc.document.components import Component
from agent_doc.document.frontmatter import deprecated_fields
from agent_doc.document.frontmatter import migrate_deprecated
from agent_doc.document.textedit import single_op
from agent_doc.editor.backlog import item_actions
from agent_doc.editor.cache import scan
from agent_doc.editor.model import Fix
from agent_doc.editor.model import TextChange
from agent_doc.errors import AgentDocError


def minimal_change(old: str, new: str) -> TextChange:
    """One change turning ``old`` into ``new`` (common prefix/suffix kept)."""
    return TextChange(*(single_op(old, new) or (0, 0, "")))


def _overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    return a_start <= b_end and b_start <= a_end


def _migrate(text: str, start: int, end: int) -> list[Fix]:
    fields = list(deprecated_fields(text))
    if not fields:
        return []
    try:
        migrated = migrate_deprecated(text)
    except AgentDocError:
        return []
    if migrated == text:
        return []
    change = minimal_change(text, migrated)
    names = ", ".join(f"'{f.key}'" for f in fields)
    return [
        Fix(
            f"Migrate deprecated frontmatter field(s) {names}",
            "deprecated-field",
            start,
            end,
            (change,),
        )
    ]


def close_insertion(text: str, components: list[Component], open_start: int) -> int:
    """Where to insert the close marker of a component opened at ``open_start``."""
    enclosing = [c for c in components if c.open_start < open_start < c.close_start]
    if enclosing:
        return max(enclosing, key=lambda c: c.depth).close_start
    return len(text)


def _close(text: str, start: int, end: int) -> list[Fix]:
    found_scan = scan(text)
    out = []
    for issue in found_scan.issues:
        if issue.kind != "unclosed" or not _overlaps(
            issue.start, issue.end, start, end
        ):
            continue
        at = close_insertion(text, found_scan.components, issue.start)
        marker = f"<!-- /agent:{issue.name} -->\n"
        if at == len(text) and text and not text.endswith("\n"):
            marker = "\n" + marker
        out.append(
            Fix(
                f"Close component '{issue.name}'",
                "unclosed",
                issue.start,
                issue.end,
                (TextChange(at, at, marker),),
            )
        )
    return out


def _boundaries(text: str, start: int, end: int) -> list[Fix]:
    found = find_boundaries(text)
    stale = found[:-1]
    if not any(_overlaps(b.start, b.end, start, end) for b in stale):
        return []
    changes = tuple(TextChange(b.start, b.end, "") for b in stale)
    return [
        Fix(
            "Remove stale boundary markers (keep the last)",
            "stale-boundary",
            stale[0].start,
            stale[-1].end,
            changes,
        )
    ]


def quick_fixes(text: str, start: int, end: int) -> list[Fix]:
    """Fixes for the problems touching ``[start, end]``."""
    out: list[Fix] = []
    for field in deprecated_fields(text):
        line_start = _line_start(text, field.line)
        if _overlaps(line_start, line_start + len(field.key), start, end):
            out.extend(_migrate(text, line_start, line_start + len(field.key)))
            break
    out.extend(_close(text, start, end))
    out.extend(_boundaries(text, start, end))
    out.extend(item_actions(text, start, end))
    return out


def _line_start(text: str, line: int) -> int:
    pos = 0
    for _ in range(line):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return pos
