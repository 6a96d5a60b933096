"""The inline write form: ``## Assistant`` … ``## User`` (spec §7.1).

Inline-format documents alternate ``## User`` and ``## Assistant`` sections. A
response is appended to the baseline as a new ``## Assistant`` section followed
by an empty ``## User`` heading for the next prompt.
"""

from __future__ import annotations

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.errors import PatchError

ASSISTANT_HEADING = "## Assistant"
USER_HEADING = "## User"

_LEADING_BLANK_LINES = lazy_compile(r"\A(?:[ \t]*\n)+")
_LEADING_ASSISTANT = lazy_compile(r"\A[ \t]*## Assistant[ \t]*(?:\n|\Z)")
_TRAILING_USER = lazy_compile(r"(?:\A|\n)[ \t]*## User[ \t]*\Z")


def strip_assistant_heading(response: str) -> str:
    """Drop a leading ``## Assistant`` and a trailing ``## User`` from a response.

    Leading blank lines and trailing whitespace go too; the result ends with
    exactly one newline (or is empty).
    """
    text = _LEADING_BLANK_LINES.sub("", response)
    text = _LEADING_ASSISTANT.sub("", text, count=1)
    text = _LEADING_BLANK_LINES.sub("", text).rstrip()
    text = _TRAILING_USER.sub("", text, count=1)
    text = text.rstrip()
    return f"{text}\n" if text else ""


def append_inline_response(base: str, response: str) -> str:
    """Append a response to an inline document as a new ``## Assistant`` section.

    Returns ``base`` (newline-terminated) + ``## Assistant``, a blank line, the
    response, a blank line, and an empty ``## User`` section.

    Raises
    ------
    PatchError
        The response is empty once its headings are stripped.
    """
    body = strip_assistant_heading(response)
    if not body.strip():
        raise PatchError("empty response — nothing to write")
    if base and not base.endswith("\n"):
        base += "\n"
    return f"{base}{ASSISTANT_HEADING}\n\n{body}\n{USER_HEADING}\n\n"
