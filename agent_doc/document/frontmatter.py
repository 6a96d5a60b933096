"""YAML frontmatter of a session document: fields, defaults, legacy aliases.

Spec §2.1/§2.2. Resolution: explicit ``agent_doc_format``/``agent_doc_write``
> the deprecated ``agent_doc_mode`` (aliases ``mode``, ``response_mode``) >
defaults (template + crdt). Loading is safe (no tags, no aliases/anchors) and
size-limited. Text edits that keep every other byte live in
:mod:`agent_doc.document.frontmatter_text` and are re-exported here.
"""

from __future__ import annotations

from agent_doc._runtime.lazy import DIGITS
from agent_doc._runtime.lazy import KEY_CHARS
from agent_doc._runtime.lazy import KEY_START
from agent_doc._runtime.lazy import LETTERS
from agent_doc._runtime.record import Record
from agent_doc.document.frontmatter_text import FrontmatterBlock
from agent_doc.document.frontmatter_text import field_lines
from agent_doc.document.frontmatter_text import rename_field
from agent_doc.document.frontmatter_text import set_field
from agent_doc.document.frontmatter_text import split_frontmatter
from agent_doc.errors import FrontmatterError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DeprecatedField",
    "Frontmatter",
    "FrontmatterBlock",
    "deprecated_fields",
    "ensure_session",
    "field_lines",
    "migrate_deprecated",
    "parse_frontmatter",
    "set_field",
    "split_frontmatter",
]

_FORMATS = {"inline": "inline", "append": "inline", "template": "template"}
_WRITES = ("merge", "crdt")
_MODES: dict[str, tuple[str, str | None]] = {
    "append": ("inline", None),
    "inline": ("inline", None),
    "template": ("template", None),
    "stream": ("template", "crdt"),
}
_MODE_KEYS = ("agent_doc_mode", "mode", "response_mode")
_REPLACEMENTS: dict[str, str | None] = {
    "agent_doc_mode": "agent_doc_format",
    "mode": "agent_doc_format",
    "response_mode": "agent_doc_format",
    "session": "agent_doc_session",
    "related_docs": "links",
    "tmux_session": None,
}


class Frontmatter(Record):
    """The resolved frontmatter fields (all optional; see spec §2.1)."""

    __slots__ = (
        "session",
        "format",
        "write",
        "agent",
        "model",
        "branch",
        "claude_args",
        "resume",
        "tmux_session",
        "links",
        "debounce_ms",
        "typing_indicator_ms",
        "status_timeout_ms",
        "deprecated",
        "raw",
    )

    def __init__(
        self,
        session: str | None = None,
        format: str = "template",
        write: str = "crdt",
        agent: str | None = None,
        model: str | None = None,
        branch: str | None = None,
        claude_args: str | None = None,
        resume: str | None = None,
        tmux_session: str | None = None,
        links: tuple[str, ...] = (),
        debounce_ms: int | None = None,
        typing_indicator_ms: int | None = None,
        status_timeout_ms: int | None = None,
        deprecated: tuple[str, ...] = (),
        raw: dict[str, Any] | None = None,
    ) -> None:
        self.session = session
        self.format = format
        self.write = write
        self.agent = agent
        self.model = model
        self.branch = branch
        self.claude_args = claude_args
        self.resume = resume
        self.tmux_session = tmux_session
        self.links = links
        self.debounce_ms = debounce_ms
        self.typing_indicator_ms = typing_indicator_ms
        self.status_timeout_ms = status_timeout_ms
        self.deprecated = deprecated
        self.raw: dict[str, Any] = {} if raw is None else raw


class DeprecatedField(Record):
    """A deprecated key present in the frontmatter (for editor diagnostics).

    ``line`` is 0-based; ``replacement`` is the key to use instead (None: drop).
    """

    __slots__ = ("key", "line", "replacement")

    def __init__(self, key: str, line: int, replacement: str | None) -> None:
        self.key = key
        self.line = line
        self.replacement = replacement


_YAML_WORDS = frozenset(
    {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"}
)
"""Plain scalars YAML 1.1 reads as booleans, null or numbers: not plain strings."""


_PLAIN_KEY_CHARS = LETTERS + DIGITS + "_"
"""A plain line's key continues with these (``-`` excluded)."""
_HEX = DIGITS + "abcdefABCDEF"


def _plain_entry(line: str) -> tuple[str, str | None] | None:
    """``key: word`` (see :func:`_load_plain`) read by hand: the key and the
    value (``None`` for ``key:`` alone); ``None`` for any other line."""
    key, colon, rest = line.partition(":")
    if not colon or not key or key[0] not in KEY_START or key.strip(_PLAIN_KEY_CHARS):
        return None
    value = rest.strip(" ")
    if not value:
        return key, None
    if not rest.startswith(" ") or not (_is_word(value) or _is_uuid(value)):
        return None
    return key, value


def _is_word(value: str) -> bool:
    """A letter followed by letters, digits, ``_`` or ``-``."""
    return value != "" and value[0] in LETTERS and not value.strip(KEY_CHARS)


def _is_uuid(value: str) -> bool:
    """A canonical UUID: 8-4-4-4-12 hexadecimal digits."""
    return (
        len(value) == 36
        and value[8] == value[13] == value[18] == value[23] == "-"
        and not value.replace("-", "", 4).strip(_HEX)
    )


def _load_plain(yaml_text: str) -> dict[str, str | None] | None:
    """Read a frontmatter of only ``key: word`` lines without PyYAML.

    ``None`` when any line is something else (the caller then uses PyYAML):
    a word is a letter followed by letters, digits, ``_`` or ``-`` and is none
    of the words YAML reads as a boolean or null, or a canonical UUID (the
    session ids; no YAML 1.1 number, date or boolean has its shape), so the
    result is exactly what ``yaml.safe_load`` returns. Importing PyYAML alone
    costs more than a whole ``agent-doc write`` should.
    """
    data: dict[str, str | None] = {}
    for line in yaml_text.split("\n"):
        if not line.strip():
            continue
        entry = _plain_entry(line)
        if entry is None:
            return None
        key, value = entry
        if key.lower() in _YAML_WORDS or (value and value.lower() in _YAML_WORDS):
            return None
        data[key] = value
    return data or None


def _load(yaml_text: str) -> Any:
    """Safe-load YAML, refusing aliases and anchors (alias bombs fail fast)."""
    plain = _load_plain(yaml_text)
    if plain is not None:
        return plain
    return _load_yaml(yaml_text)


def _load_yaml(yaml_text: str) -> Any:
    """:func:`_load` through PyYAML."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        for event in yaml.parse(yaml_text, Loader=loader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                mark = event.start_mark
                raise FrontmatterError(
                    "YAML anchors and aliases are not allowed in frontmatter",
                    mark.line + 2 if mark else None,
                )
        return yaml.load(yaml_text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "invalid YAML"
        line = mark.line + 2 if mark else None
        raise FrontmatterError(f"invalid frontmatter YAML: {problem}", line) from exc
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"invalid frontmatter YAML: {exc}") from exc


def _str(raw: dict[str, Any], key: str, lines: dict[str, int]) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        raise FrontmatterError(f"'{key}' must be a string", _line(lines, key))
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _line(lines: dict[str, int], key: str) -> int | None:
    return lines[key] + 1 if key in lines else None


def _choice(raw: dict[str, Any], key: str, allowed: Any, lines: dict[str, int]) -> Any:
    value = _str(raw, key, lines)
    if value is None:
        return None
    if value not in allowed:
        names = ", ".join(sorted(allowed))
        raise FrontmatterError(
            f"invalid {key}: {value!r} (expected one of: {names})", _line(lines, key)
        )
    return value


def _links(raw: dict[str, Any], lines: dict[str, int]) -> tuple[str, ...]:
    key = "links" if raw.get("links") is not None else "related_docs"
    value = raw.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise FrontmatterError(f"'{key}' must be a list of strings", _line(lines, key))


def _int(raw: dict[str, Any], key: str, lines: dict[str, int]) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FrontmatterError(
            f"'{key}' must be a non-negative integer (milliseconds)", _line(lines, key)
        )
    return value


def parse_frontmatter(text: str) -> Frontmatter:
    """Parse and validate the frontmatter (a document without one gets defaults).

    ``text`` may be an editor's buffer with a BOM or CRLF line endings: it is
    read as the file is (the CLI reads files in the core's form).
    """
    if text.startswith(("\ufeff", "---\r\n")):
        text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    block = split_frontmatter(text)
    if block is None or not block.yaml.strip():
        return Frontmatter(raw={})
    raw = _load(block.yaml)
    if raw is None:
        return Frontmatter(raw={})
    if not isinstance(raw, dict):
        raise FrontmatterError("frontmatter must be a YAML mapping of fields", 2)
    raw = {str(k): v for k, v in raw.items()}
    lines = field_lines(text)
    fmt, write = "template", "crdt"
    mode_key = next((k for k in _MODE_KEYS if raw.get(k) is not None), None)
    if mode_key is not None:
        fmt, implied = _MODES[_choice(raw, mode_key, _MODES, lines)]
        write = implied or write
    fmt = _FORMATS[_choice(raw, "agent_doc_format", _FORMATS, lines) or fmt]
    write = _choice(raw, "agent_doc_write", _WRITES, lines) or write
    session = _str(raw, "agent_doc_session", lines) or _str(raw, "session", lines)
    return Frontmatter(
        session=session,
        format=fmt,
        write=write,
        agent=_str(raw, "agent", lines),
        model=_str(raw, "model", lines),
        branch=_str(raw, "branch", lines),
        claude_args=_str(raw, "claude_args", lines),
        resume=_str(raw, "resume", lines),
        tmux_session=_str(raw, "tmux_session", lines),
        links=_links(raw, lines),
        debounce_ms=_int(raw, "agent_doc_debounce_ms", lines),
        typing_indicator_ms=_int(raw, "agent_doc_typing_indicator_ms", lines),
        status_timeout_ms=_int(raw, "agent_doc_status_timeout_ms", lines),
        deprecated=tuple(k for k in _REPLACEMENTS if k in raw),
        raw=raw,
    )


def ensure_session(text: str) -> tuple[str, str]:
    """Return ``(text, session)``, giving the document a UUID4 session if it has none.

    A null legacy ``session:`` entry becomes ``agent_doc_session:`` in place.
    """
    current = parse_frontmatter(text)
    if current.session:
        return text, current.session
    import uuid

    new = str(uuid.uuid4())
    raw = current.raw
    if "session" in raw and "agent_doc_session" not in raw:
        text = rename_field(text, "session", "agent_doc_session")
    return set_field(text, "agent_doc_session", new), new


def deprecated_fields(text: str) -> list[DeprecatedField]:
    """Deprecated keys present in the frontmatter, with their lines (tolerant)."""
    return sorted(
        (
            DeprecatedField(key, line, _REPLACEMENTS[key])
            for key, line in field_lines(text).items()
            if key in _REPLACEMENTS
        ),
        key=lambda d: d.line,
    )


def migrate_deprecated(text: str) -> str:
    """Rewrite deprecated keys to their current form (resolution unchanged)."""
    fm = parse_frontmatter(text)
    raw = fm.raw
    present = set(raw)
    if not present & set(_REPLACEMENTS):
        return text
    mode_keys = [k for k in _MODE_KEYS if k in raw]
    for key in mode_keys:
        text = set_field(text, key, None)
    if mode_keys and "agent_doc_format" not in raw and fm.format != "template":
        text = set_field(text, "agent_doc_format", fm.format)
    if mode_keys and "agent_doc_write" not in raw and fm.write != "crdt":
        text = set_field(text, "agent_doc_write", fm.write)
    for old, new in (("session", "agent_doc_session"), ("related_docs", "links")):
        if old in raw:
            if new in raw:
                text = set_field(text, old, None)
            else:
                text = rename_field(text, old, new)
    if "tmux_session" in raw:
        text = set_field(text, "tmux_session", None)
    return text
