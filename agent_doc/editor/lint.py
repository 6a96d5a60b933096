"""Problems of a session document, for editor diagnostics.

Tolerant: it never raises. Component structure errors sit on the offending
marker; frontmatter problems on the key's line; every boundary marker but the
last is stale (the write path keeps exactly one).
"""

from __future__ import annotations

from agent_doc.document.boundary import find_boundaries
from agent_doc.document.component_config import validate_component_attrs
from agent_doc.document.frontmatter import deprecated_fields
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.document.frontmatter import split_frontmatter
from agent_doc.editor.backlog import item_problems
from agent_doc.editor.cache import scan
from agent_doc.editor.model import Problem
from agent_doc.editor.outline import MAX_SYMBOL_DEPTH
from agent_doc.errors import AgentDocError
from agent_doc.errors import FrontmatterError


def line_span(text: str, line: int) -> tuple[int, int]:
    """``[start, end)`` of 0-based ``line`` without its newline (clamped)."""
    start = 0
    for _ in range(max(line, 0)):
        nl = text.find("\n", start)
        if nl < 0:
            break
        start = nl + 1
    end = text.find("\n", start)
    return start, len(text) if end < 0 else end


def component_problems(text: str) -> list[Problem]:
    """Structure errors and invalid inline attributes of the components."""
    found_scan = scan(text)
    out = []
    for issue in found_scan.issues:
        end = issue.end - 1 if text[issue.end - 1 : issue.end] == "\n" else issue.end
        out.append(Problem(issue.start, end, issue.message, "error", issue.kind))
    deep = next((c for c in found_scan.components if c.depth >= MAX_SYMBOL_DEPTH), None)
    if deep is not None:
        message = (
            f"components nested more than {MAX_SYMBOL_DEPTH} deep: the outline "
            "lists the deeper ones flat"
        )
        out.append(
            Problem(deep.open_start, deep.open_end, message, "info", "deep-nesting")
        )
    for comp in found_scan.components:
        end = comp.open_end
        end = end - 1 if text[end - 1 : end] == "\n" else end
        for message in validate_component_attrs(comp):
            out.append(
                Problem(comp.open_start, end, message, "error", "invalid-attribute")
            )
    return out


def boundary_problems(text: str) -> list[Problem]:
    """Every boundary marker except the last one is stale."""
    found = find_boundaries(text)
    return [
        Problem(
            b.start,
            b.end - 1 if text[b.end - 1 : b.end] == "\n" else b.end,
            f"stale boundary marker ({len(found)} found; only the last one is used)",
            "warning",
            "stale-boundary",
        )
        for b in found[:-1]
    ]


def frontmatter_problems(text: str) -> list[Problem]:
    """Invalid YAML, invalid values and deprecated keys of the frontmatter."""
    out = []
    try:
        if split_frontmatter(text) is None:
            return []
        parse_frontmatter(text)
    except FrontmatterError as exc:
        line = (exc.line or 1) - 1
        message = str(exc).split(": ", 1)[1] if exc.line is not None else str(exc)
        out.append(Problem(*line_span(text, line), message, "error", "frontmatter"))
    for field in deprecated_fields(text):
        start, _end = line_span(text, field.line)
        hint = f"use '{field.replacement}'" if field.replacement else "remove it"
        out.append(
            Problem(
                start,
                start + len(field.key),
                f"'{field.key}' is deprecated: {hint}",
                "warning",
                "deprecated-field",
                deprecated=True,
            )
        )
    return out


def problems(text: str) -> list[Problem]:
    """Every problem of the document, in document order."""
    out: list[Problem] = []
    for check in (
        frontmatter_problems,
        component_problems,
        boundary_problems,
        item_problems,
    ):
        try:
            out.extend(check(text))
        except AgentDocError as exc:  # a checker must never hide the others
            out.append(Problem(0, 0, str(exc), "error", "internal"))
    return sorted(out, key=lambda p: (p.start, p.end))


def config_problem(message: str) -> Problem:
    """A project configuration error, shown at the top of the document."""
    return Problem(0, 0, message, "warning", "config")
