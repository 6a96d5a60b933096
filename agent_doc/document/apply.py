"""Applying an agent's response to a document (upstream-notes §3.2, spec §7.21–7.22).

Patch blocks (parsed by :mod:`agent_doc.document.patch_blocks`, re-exported here) go to
their components; text outside the blocks is "unmatched" and goes to the
``exchange`` (or ``output``) component. :func:`apply_patches` follows the
boundary lifecycle of spec §7.22: the response lands at a fresh boundary
placed after all of the user's text, and exactly one boundary is left at the
end of ``exchange``.
"""

from __future__ import annotations

import re

from agent_doc._runtime.lazy import lazy_logger
from agent_doc._runtime.record import Record
from agent_doc.document.backlog_ops import refuse_whole_replace
from agent_doc.document.boundary import boundary_marker
from agent_doc.document.boundary import find_boundaries
from agent_doc.document.boundary import insert_boundary_at_end_of_exchange
from agent_doc.document.boundary import new_boundary_id
from agent_doc.document.boundary import remove_all_boundaries
from agent_doc.document.boundary import reposition_boundary_to_end
from agent_doc.document.codeblocks import CodeIndex
from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.codeblocks import code_index
from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.component_config import resolve_max_lines
from agent_doc.document.component_config import resolve_mode
from agent_doc.document.components import find_component
from agent_doc.document.components import parse_components
from agent_doc.document.components import replace_content
from agent_doc.document.components import scan_components
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.document.frontmatter import set_field
from agent_doc.document.inline import append_inline_response
from agent_doc.document.patch_blocks import PatchBlock
from agent_doc.document.patch_blocks import parse_patch_blocks
from agent_doc.document.splice import splice
from agent_doc.errors import AgentDocError
from agent_doc.errors import ComponentNotFound
from agent_doc.errors import PatchError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Iterator
    from collections.abc import Mapping
    from datetime import datetime

    from agent_doc.document.boundary import Boundary
    from agent_doc.document.components import Component

__all__ = [
    "EMPTY_RESPONSE",
    "PatchBlock",
    "apply_component_patch",
    "apply_patches",
    "build_content_ours",
    "close_open_fence",
    "dedup_exchange_adjacent_lines",
    "parse_patch_blocks",
    "strip_leading_overlap",
    "strip_trailing_caret_lines",
    "trim_entries",
]

logger = lazy_logger(__name__)

EMPTY_RESPONSE = "empty response — nothing to write"
UNMATCHED_TARGETS = ("exchange", "output")
"""Components that receive unmatched text (the first one in the document)."""

# -- small text helpers ---------------------------------------------------------


def _terminated(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def strip_leading_overlap(existing: str, new: str) -> str:
    """Drop ``new``'s first line when it repeats ``existing``'s last non-blank line."""
    last = next((s for s in reversed(existing.splitlines()) if s.strip()), None)
    body = new.lstrip("\n")
    first, sep, rest = body.partition("\n")
    if last is not None and first.strip() and first.strip() == last.strip():
        return rest if sep else ""
    return new


def close_open_fence(text: str) -> str:
    """Close a fenced code block left open (it would swallow a close marker)."""
    probe = _terminated(text) + "x\n"
    fences, _ = block_ranges(probe)
    if not fences or fences[-1][1] < len(probe):
        return text
    opener = probe[fences[-1][0] :].lstrip(" ")
    run = re.match(r"`+|~+", opener)
    return _terminated(text) + (run.group() if run else "```") + "\n"


def strip_trailing_caret_lines(text: str) -> str:
    """Remove trailing lines that hold only a bare ``❯`` prompt character."""
    lines = text.split("\n")
    end = len(lines)
    while end > 0 and lines[end - 1].strip() in ("", "❯"):
        end -= 1
    if not any(s.strip() == "❯" for s in lines[end:]):
        return text
    return "\n".join(lines[:end]) + "\n" if end else ""


def _boundary_in(doc: str, component: Component) -> Boundary | None:
    for boundary in find_boundaries(doc):
        if component.open_end <= boundary.start < component.close_start:
            return boundary
    return None


def _is_heading(line: str) -> bool:
    """True when ``line`` (no line break) opens an ATX heading: at most three
    spaces, one to six ``#``, then a space, a tab or the end."""
    body = line.lstrip(" ")
    hashes = len(body) - len(body.lstrip("#"))
    return (
        len(line) - len(body) <= 3
        and 1 <= hashes <= 6
        and body[hashes : hashes + 1] in ("", " ", "\t")
    )


def separate_heading(before: str, content: str, *, paragraph: bool = False) -> str:
    """Start ``content`` with a blank line when it opens with a heading that
    would otherwise sit right under the person's text (``before``'s last line);
    with ``paragraph``, whatever it opens with (a new markdown paragraph).

    Nothing changes after a blank line, a component or boundary marker, or at
    the start of the document.
    """
    if not paragraph and not _is_heading(content.split("\n", 1)[0]):
        return content
    last = before[:-1].rsplit("\n", 1)[-1] if before.endswith("\n") else None
    if last is None or not last.strip() or last.lstrip().startswith("<!--"):
        return content
    return "\n" + content


def _separate_heading_at(
    doc: str, pos: int, content: str, *, paragraph: bool = False
) -> str:
    """:func:`separate_heading` with ``before = doc[:pos]``, without the copy."""
    if not paragraph and not _is_heading(content.split("\n", 1)[0]):
        return content
    if pos < 64:
        return separate_heading(doc[:pos], content, paragraph=paragraph)
    if doc[pos - 1] != "\n":  # doc[:pos] does not end a line
        return content
    start = doc.rfind("\n", 0, pos - 1) + 1
    return separate_heading(doc[start:pos], content, paragraph=paragraph)


def _insert_at_boundary(
    doc: str, boundary: Boundary, content: str, new_id: str, *, paragraph: bool = False
) -> str:
    content = _separate_heading_at(doc, boundary.start, content, paragraph=paragraph)
    text = content.rstrip("\n")
    block = (text + "\n" if text else "") + boundary_marker(new_id) + "\n"
    return splice(doc, boundary.start, boundary.end, block)


def _apply_mode(
    doc: str,
    component: Component,
    mode: str,
    content: str,
    new_id: str,
    *,
    paragraph: bool = False,
) -> str:
    """Apply one patch in ``mode``; append goes to a boundary inside the component.

    ``paragraph``: appended text starts a new markdown paragraph (a blank line
    after the text above it), not only when it opens with a heading.
    """
    content = close_open_fence(_terminated(content))
    existing = component.content(doc)
    if mode == "replace":
        return replace_content(doc, component, content)
    if mode == "prepend":
        return replace_content(doc, component, content + existing)
    boundary = _boundary_in(doc, component)
    if boundary is not None:
        return _insert_at_boundary(doc, boundary, content, new_id, paragraph=paragraph)
    added = strip_leading_overlap(existing, content)
    before = _terminated(existing)
    added = separate_heading(
        doc[: component.open_end] + before, added, paragraph=paragraph
    )
    return replace_content(doc, component, before + added)


def _find(doc: str, name: str) -> Component | None:
    return find_component(parse_components(doc), name)


# -- apply_patches ----------------------------------------------------------------


def apply_patches(
    doc: str,
    blocks: list[PatchBlock],
    unmatched: str,
    configs: Mapping[str, ComponentConfig],
    boundary_id: str | None = None,
    *,
    mode_overrides: Mapping[str, str] | None = None,
) -> str:
    """Apply patch blocks and unmatched text to a template document (spec §7.22).

    Per block the mode is ``mode_overrides`` > inline ``patch=``/``mode=`` >
    config > default. Blocks naming a missing component and the unmatched text
    go to ``exchange``/``output`` (an ``exchange`` is created at the end when
    neither exists). The result holds exactly one boundary, at the end of
    ``exchange``, with id ``boundary_id`` (a fresh one when ``None``).

    Raises
    ------
    ComponentError
        The document's component markers are malformed.
    PatchError
        An inline mode or ``max_lines`` attribute is invalid.
    """
    bid = boundary_id or new_boundary_id()
    overrides = mode_overrides or {}
    doc = remove_all_boundaries(doc)
    direct = None if blocks else _answer_at_end(doc, unmatched, bid)
    if direct is not None:
        doc, answer_at = direct
        protected = _Protected(end=answer_at)
    else:
        doc, user_lines = _apply_blocks(doc, blocks, unmatched, configs, bid, overrides)
        protected = _Protected(lines=user_lines)
    if _already_final(doc, configs, bid, protected):
        return doc
    doc = remove_all_boundaries(doc)  # (ours comes after ``answer_at``)
    doc = dedup_exchange_adjacent_lines(
        doc, protected_lines=protected.lines, protected_end=protected.end
    )
    doc = _limit_lines(doc, configs)
    return reposition_boundary_to_end(doc, bid)


class _Protected(Record):
    """The person's lines at the start of ``exchange`` that de-duplication
    keeps: the first ``lines``, or those before the offset ``end``."""

    __slots__ = ("lines", "end")

    def __init__(self, lines: int = 0, end: int | None = None) -> None:
        self.lines = lines
        self.end = end


def _already_final(
    doc: str, configs: Mapping[str, ComponentConfig], bid: str, protected: _Protected
) -> bool:
    """True when removing the boundaries, de-duplicating, trimming and putting
    the boundary back at the end of ``exchange`` would give ``doc`` itself.

    That is the usual case: the only boundary is ``bid``'s marker line, which
    ends ``exchange`` after exactly one newline, no component has a line limit,
    and no line would be dropped (the marker line, last in ``exchange``, does
    not change what is dropped before it). Skipping the steps saves copying
    and scanning a large document three times. Any doubt (or error) answers
    ``False``, and the steps run.
    """
    try:
        found = find_boundaries(doc)
        if len(found) != 1:
            return False
        start, end = found[0].start, found[0].end
        if doc[start:end] != boundary_marker(bid) + "\n":
            return False
        components = parse_components(doc)
        exchange = find_component(components, "exchange")
        if exchange is None or end != exchange.close_start:
            return False
        newline = start - 1  # the only newline before the marker
        if newline < exchange.open_end or doc[newline] != "\n":
            return False
        if newline > exchange.open_end and doc[newline - 1] == "\n":
            return False
        if any(resolve_max_lines(c, configs)[0] > 0 for c in components):
            return False
        deduped = dedup_exchange_adjacent_lines(
            doc, protected_lines=protected.lines, protected_end=protected.end
        )
        return deduped is doc
    except AgentDocError:
        return False


def _apply_blocks(
    doc: str,
    blocks: list[PatchBlock],
    unmatched: str,
    configs: Mapping[str, ComponentConfig],
    bid: str,
    overrides: Mapping[str, str],
) -> tuple[str, int]:
    """Put the boundary at the end of ``exchange``, apply the blocks, route the
    unmatched text; return the document and the number of user lines."""
    doc = insert_boundary_at_end_of_exchange(doc, bid)
    exchange = _find(doc, "exchange")
    user_lines = 0 if exchange is None else _line_count(doc, exchange) - 1
    overflow: list[str] = []
    for block in blocks:
        component = _find(doc, block.name)
        if component is None:
            overflow.append(block.content)
            continue
        mode = overrides.get(block.name) or resolve_mode(component, configs)[0]
        content = block.content
        if block.name == "exchange":
            content = strip_trailing_caret_lines(content)
        doc = _apply_mode(doc, component, mode, content, bid)
    leftover = "\n".join(p.strip("\n") for p in [*overflow, unmatched] if p.strip())
    if leftover:
        text = close_open_fence(strip_trailing_caret_lines(leftover)).rstrip("\n")
        doc = _route_unmatched(doc, text, bid)
    return doc, user_lines


def _answer_at_end(doc: str, unmatched: str, bid: str) -> tuple[str, int] | None:
    """What :func:`_apply_blocks` gives for a response without blocks whose
    text goes to the end of ``exchange``, with one copy of the document
    instead of two and one scan instead of two; ``None`` in any other case.
    Also gives where the answer starts (the person's lines end there).

    ``doc`` holds no boundary. The text lands where the boundary put at the
    end of ``exchange`` would be, followed by that boundary.
    """
    leftover = unmatched.strip("\n") if unmatched.strip() else ""
    if not leftover:
        return None
    scan = scan_components(doc)
    if scan.issues:
        return None  # the full steps raise the error, with its line
    target = next((c for c in scan.components if c.name in UNMATCHED_TARGETS), None)
    if target is None or target.name != "exchange":
        return None
    text = close_open_fence(strip_trailing_caret_lines(leftover)).rstrip("\n")
    cut = target.close_start
    while cut > target.open_end and doc[cut - 1] == "\n":
        cut -= 1
    line_start = doc.rfind("\n", 0, cut) + 1
    content = separate_heading(doc[line_start:cut] + "\n", text).rstrip("\n")
    block = (content + "\n" if content else "") + boundary_marker(bid) + "\n"
    return splice(doc, cut, target.close_start, "\n" + block), cut + 1


def _route_unmatched(doc: str, text: str, bid: str) -> str:
    """Send unmatched text to the first exchange/output, or create an exchange."""
    target = next(
        (c for c in parse_components(doc) if c.name in UNMATCHED_TARGETS), None
    )
    if target is None:
        return (
            _terminated(doc)
            + f"\n<!-- agent:exchange -->\n{text}\n<!-- /agent:exchange -->\n"
        )
    boundary = _boundary_in(doc, target)
    if boundary is not None:
        return _insert_at_boundary(doc, boundary, text, bid)
    existing = target.content(doc)
    if not existing.strip():
        new = text + "\n"
    else:
        before = _terminated(existing)
        new = before + separate_heading(before, text) + "\n"
    return replace_content(doc, target, new)


_OTHER_LINE_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Line breaks of ``str.splitlines`` other than ``\\n``."""


def _line_count(doc: str, component: Component) -> int:
    """Lines of ``component``'s content as :func:`dedup_exchange_adjacent_lines`
    counts them (``str.splitlines``: a ``\u2028`` ends a line too, and a
    count of ``\n`` alone would protect the wrong lines of the person's)."""
    lo, hi = component.open_end, component.close_start
    if _has_other_line_break(doc, lo, hi):
        return len(doc[lo:hi].splitlines())
    return doc.count("\n", lo, hi)


def _has_other_line_break(text: str, lo: int, hi: int) -> bool:
    """True when ``text[lo:hi]`` holds a line break of :data:`_OTHER_LINE_BREAKS`.

    One ``str.find`` per character: on a large text stored 4 bytes per
    character that is a sixth of the time of one regular-expression search
    for the character class.
    """
    return any(text.find(char, lo, hi) >= 0 for char in _OTHER_LINE_BREAKS)


def dedup_exchange_adjacent_lines(
    doc: str, *, protected_lines: int = 0, protected_end: int | None = None
) -> str:
    """Inside ``exchange``, drop a non-blank line equal to the previous non-blank one.

    Blank lines are never collapsed, lines inside code are never touched, and
    the first ``protected_lines`` lines (the user's text before the response)
    are never dropped; or, given ``protected_end`` (a line start), nothing
    before that offset. Only the lines after the protected ones are walked, so
    the cost follows the response, not the document.
    """
    exchange = _find(doc, "exchange")
    if exchange is None:
        return doc
    lo, hi = exchange.open_end, exchange.close_start
    if protected_end is not None:
        offset = min(max(protected_end, lo), hi)
        if offset >= hi:
            return doc  # every line is protected
        return _dedup_from(doc, offset, hi, _lines_before(doc, lo, offset))
    before: Iterable[str]  # the lines before the first unprotected one, last first
    if _has_other_line_break(doc, lo, hi):
        lines = doc[lo:hi].splitlines(keepends=True)
        first = min(max(protected_lines, 0), len(lines))
        offset = lo + sum(map(len, lines[:first]))
        count = len(lines)
        before = reversed(lines[:first])
    else:  # lines end at "\n" only: find where line ``first`` starts from the end
        count = doc.count("\n", lo, hi) + (hi > lo and doc[hi - 1] != "\n")
        first = min(max(protected_lines, 0), count)
        offset = hi
        for _ in range(count - first):
            offset = max(doc.rfind("\n", lo, offset - 1) + 1, lo)
        before = _lines_before(doc, lo, offset)
    if first >= count:
        return doc  # every line is protected
    return _dedup_from(doc, offset, hi, before)


def _dedup_from(doc: str, offset: int, hi: int, before: Iterable[str]) -> str:
    """:func:`dedup_exchange_adjacent_lines` of the lines in ``doc[offset:hi]``,
    after ``before`` (the lines before ``offset``, last first)."""
    code = code_index(doc)
    previous = _previous_bare(before, offset, code)
    kept: list[str] = []
    dropped = False
    pos = offset
    for line in doc[offset:hi].splitlines(keepends=True):
        start, pos = pos, pos + len(line)
        bare = line.rstrip("\n").rstrip()
        if code.contains(start):
            previous = None
        elif bare:
            if bare == previous:
                dropped = True
                continue
            previous = bare
        kept.append(line)
    if not dropped:
        return doc
    return splice(doc, offset, hi, "".join(kept))


def _lines_before(doc: str, lo: int, offset: int) -> Iterator[str]:
    """The lines of ``doc[lo:offset]`` as ``str.splitlines`` cuts them, last
    first (found from ``offset`` back, so only the lines asked for are cut)."""
    end = offset
    while end > lo:
        start = max(doc.rfind("\n", lo, end - 1) + 1, lo)
        line = doc[start:end]
        if _has_other_line_break(line, 0, len(line)):
            yield from reversed(line.splitlines(keepends=True))
        else:
            yield line
        end = start


def _previous_bare(before: Iterable[str], offset: int, code: CodeIndex) -> str | None:
    """The last non-blank line of ``before`` (lines ending at ``offset``, last
    first), as the walk of :func:`dedup_exchange_adjacent_lines` would have it
    (``None`` when a line in code came after it)."""
    for line in before:
        offset -= len(line)
        if code.contains(offset):
            return None
        bare = line.rstrip("\n").rstrip()
        if bare:
            return bare
    return None


def _limit_lines(
    doc: str, configs: Mapping[str, ComponentConfig], only: str | None = None
) -> str:
    """Trim components (or just ``only``) with ``max_lines`` > 0 to the last N lines."""
    for _ in range(3):
        changed = False
        index = 0
        # parse once per pass, and again only after a trim moved the offsets
        # (re-parsing for every component was quadratic: 100k components)
        components = parse_components(doc)
        while index < len(components):
            component = components[index]
            index += 1
            if only is not None and component.name != only:
                continue
            limit = resolve_max_lines(component, configs)[0]
            if limit <= 0:
                continue
            lines = component.content(doc).splitlines(keepends=True)
            if len(lines) > limit:
                doc = replace_content(doc, component, "".join(lines[-limit:]))
                components = parse_components(doc)
                changed = True
        if not changed:
            break
    return doc


# -- build_content_ours / apply_component_patch -----------------------------------


def build_content_ours(
    baseline: str,
    response: str,
    configs: Mapping[str, ComponentConfig],
    *,
    boundary_id: str | None = None,
) -> str:
    """Return the baseline with the agent's response applied (``content_ours``).

    Inline-format documents get a ``## Assistant`` section; template documents
    get the response's patch blocks and unmatched text.

    Raises
    ------
    PatchError
        The response is empty, or a template response has neither blocks nor text.
    """
    if not response.strip():
        raise PatchError(EMPTY_RESPONSE)
    response, fields = split_frontmatter_patch(response)
    if parse_frontmatter(baseline).format == "inline":
        ours = baseline
        if response.strip():
            ours = append_inline_response(baseline, response)
        return apply_frontmatter_fields(ours, fields)
    blocks, unmatched = parse_patch_blocks(response)
    for block in blocks:
        refuse_whole_replace(block.name)
    if not blocks and not unmatched.strip():
        if not fields:
            raise PatchError(EMPTY_RESPONSE)
        return apply_frontmatter_fields(baseline, fields)
    ours = apply_patches(baseline, blocks, unmatched, configs, boundary_id)
    return apply_frontmatter_fields(ours, fields)


FRONTMATTER_PATCH_KEYS = frozenset(
    {
        "agent_doc_session",
        "agent_doc_format",
        "agent_doc_write",
        "agent",
        "model",
        "branch",
        "claude_args",
        "resume",
    }
)
"""Frontmatter keys an agent response may set with a ``patch:frontmatter`` block."""


def split_frontmatter_patch(response: str) -> tuple[str, dict[str, str | None]]:
    """Take ``<!-- patch:frontmatter -->`` blocks out of a response.

    Returns the response without them and the fields they set (``None`` removes
    a field). Unknown keys are ignored with a warning; invalid YAML is an error.
    """
    if "patch:frontmatter" not in response:
        return response, {}
    import yaml

    blocks, unmatched = parse_patch_blocks(response)
    fields: dict[str, str | None] = {}
    rest: list[str] = []
    for block in blocks:
        if block.name != "frontmatter":
            opener, closer = (
                f"<!-- patch:{block.name} -->",
                f"<!-- /patch:{block.name} -->",
            )
            rest.append(f"{opener}\n{block.content}{closer}")
            continue
        try:
            data = yaml.safe_load(block.content) or {}
        except yaml.YAMLError as exc:
            raise PatchError(f"invalid YAML in the frontmatter patch: {exc}") from exc
        if not isinstance(data, dict):
            raise PatchError("the frontmatter patch must be a YAML mapping")
        for key, value in data.items():
            if key not in FRONTMATTER_PATCH_KEYS or isinstance(value, (dict, list)):
                logger.warning("frontmatter patch: ignoring field %r", key)
                continue
            fields[str(key)] = None if value is None else str(value)
    text = "\n\n".join([*rest, unmatched] if unmatched.strip() else rest)
    return text, fields


def apply_frontmatter_fields(text: str, fields: Mapping[str, str | None]) -> str:
    """Set each field in the document's frontmatter, changing only its line."""
    for key, value in fields.items():
        text = set_field(text, key, value)
    return text


def trim_entries(text: str, max_entries: int, *, newest_first: bool = False) -> str:
    """Keep the newest ``max_entries`` non-empty lines (0 = keep everything)."""
    if max_entries <= 0:
        return text
    lines = [s for s in text.splitlines() if s.strip()]
    kept = lines[:max_entries] if newest_first else lines[-max_entries:]
    return "\n".join(kept) + ("\n" if text.endswith("\n") and kept else "")


def apply_component_patch(
    doc: str,
    name: str,
    content: str,
    configs: Mapping[str, ComponentConfig],
    *,
    now: datetime | None = None,
    mode: str | None = None,
) -> str:
    """Patch one component the way the ``patch`` command does (spec §7.21).

    Mode is ``mode`` (an explicit override) > inline attribute > config >
    ``replace``; ``timestamp`` prefixes the
    entry with ``[YYYY-MM-DDTHH:MM:SSZ] `` of ``now`` (UTC; the caller reads
    the clock: :func:`agent_doc.write.patch_time.patch_time`); ``max_entries``
    (append and prepend only) keeps the newest N non-empty lines;
    ``max_lines`` keeps the last N lines. Hooks are the caller's job
    (:mod:`agent_doc.write.component_hooks`).

    Raises
    ------
    ComponentNotFound
        The document has no component ``name`` (the message lists those it has).
    """
    components = parse_components(doc)
    component = find_component(components, name)
    if component is None:
        names = ", ".join(dict.fromkeys(c.name for c in components)) or "none"
        raise ComponentNotFound(f"component '{name}' not found (available: {names})")
    config = configs.get(name, ComponentConfig())
    if mode is None:
        mode, source = resolve_mode(component, configs)
        if source == "default":
            mode = "replace"
    elif mode not in ("replace", "append", "prepend"):
        raise PatchError(f"invalid patch mode '{mode}' (replace, append or prepend)")
    if mode == "replace":
        refuse_whole_replace(name)
    if config.timestamp:
        if now is None:
            raise PatchError(f"component '{name}' is stamped: give the time")
        from datetime import timezone  # loaded already: ``now`` is a datetime

        stamp = now.astimezone(timezone.utc)
        content = f"[{stamp.strftime('%Y-%m-%dT%H:%M:%SZ')}] {content}"
    boundary = _boundary_in(doc, component)
    doc = _apply_mode(
        doc,
        component,
        mode,
        content,
        boundary.id if boundary else "",
        paragraph=name == "exchange",  # the conversation: text is paragraphs
    )
    if config.max_entries > 0 and mode in ("append", "prepend"):
        component = _require(doc, name)
        trimmed = trim_entries(
            component.content(doc), config.max_entries, newest_first=mode == "prepend"
        )
        doc = replace_content(doc, component, trimmed)
    return _limit_lines(doc, configs, only=name)


def _require(doc: str, name: str) -> Component:
    component = _find(doc, name)
    if component is None:  # pragma: no cover - the patch keeps the markers
        raise ComponentNotFound(f"component '{name}' not found")
    return component
