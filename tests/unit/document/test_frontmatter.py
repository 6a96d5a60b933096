"""Frontmatter: fields, legacy aliases, safe YAML, byte-preserving edits (§2.1/§2.2)."""

from __future__ import annotations

import re
import time
import uuid

import pytest
import yaml
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.frontmatter import Frontmatter
from agent_doc.document.frontmatter import deprecated_fields
from agent_doc.document.frontmatter import ensure_session
from agent_doc.document.frontmatter import field_lines
from agent_doc.document.frontmatter import migrate_deprecated
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.document.frontmatter import set_field
from agent_doc.document.frontmatter import split_frontmatter
from agent_doc.errors import FrontmatterError


def fm(body: str, rest: str = "# Doc\n") -> str:
    return f"---\n{body}---\n{rest}"


def test_split_offsets() -> None:
    text = fm("agent: claude\n")
    block = split_frontmatter(text)
    assert block is not None
    assert block.yaml == "agent: claude\n"
    assert text[block.end :] == "# Doc\n"
    assert block.body_start == block.end
    assert split_frontmatter("# no frontmatter\n---\n") is None
    assert split_frontmatter("") is None
    eof = split_frontmatter("---\na: 1\n---")
    assert eof is not None
    assert (eof.yaml, eof.end) == ("a: 1\n", 12)
    empty = split_frontmatter("---\n---\nbody")
    assert empty is not None
    assert (empty.yaml, empty.end) == ("", 8)


def test_unterminated_and_oversized_blocks_fail() -> None:
    with pytest.raises(FrontmatterError, match="unterminated"):
        parse_frontmatter("---\nagent: x\nbody\n")
    with pytest.raises(FrontmatterError, match="larger than 64 KB"):
        parse_frontmatter(fm("x: " + "a" * 70_000 + "\n"))


def test_defaults_without_fields() -> None:
    # Upstream acceptance case 26.
    for text in ("", "# just a body\n", fm(""), fm("# only a comment\n")):
        parsed = parse_frontmatter(text)
        assert (parsed.format, parsed.write, parsed.session) == (
            "template",
            "crdt",
            None,
        )
        assert parsed == Frontmatter()


def test_every_field() -> None:
    text = fm(
        "agent_doc_session: 1234\n"
        "agent_doc_format: inline\n"
        "agent_doc_write: merge\n"
        "agent: codex\n"
        "model: opus\n"
        "branch: main\n"
        'claude_args: "--dangerously-skip-permissions --verbose"\n'
        "resume: abc-123\n"
        "tmux_session: work\n"
        "links:\n  - notes.md\n  - https://example.com/x\n"
        "agent_doc_debounce_ms: 500\n"
        "agent_doc_typing_indicator_ms: 1500\n"
        "agent_doc_status_timeout_ms: 30000\n"
        "custom: kept\n"
    )
    p = parse_frontmatter(text)
    assert p.session == "1234"
    assert (p.format, p.write) == ("inline", "merge")
    assert (p.agent, p.model, p.branch) == ("codex", "opus", "main")
    assert p.claude_args == "--dangerously-skip-permissions --verbose"
    assert (p.resume, p.tmux_session) == ("abc-123", "work")
    assert p.links == ("notes.md", "https://example.com/x")
    assert (p.debounce_ms, p.typing_indicator_ms, p.status_timeout_ms) == (
        500,
        1500,
        30000,
    )
    assert p.deprecated == ("tmux_session",)
    assert p.raw["custom"] == "kept"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param("agent_doc_mode: append\n", ("inline", "crdt"), id="mode-append"),
        pytest.param("mode: append\n", ("inline", "crdt"), id="alias-mode"),
        pytest.param(
            "response_mode: append\n", ("inline", "crdt"), id="alias-response"
        ),
        pytest.param("agent_doc_mode: template\n", ("template", "crdt"), id="template"),
        pytest.param("agent_doc_mode: stream\n", ("template", "crdt"), id="stream"),
        pytest.param(
            "agent_doc_mode: stream\nagent_doc_write: merge\n",
            ("template", "merge"),
            id="write-wins",
        ),
        pytest.param(
            "agent_doc_mode: append\nagent_doc_format: template\n",
            ("template", "crdt"),
            id="format-wins",
        ),
        pytest.param(
            "agent_doc_format: append\n", ("inline", "crdt"), id="append-alias"
        ),
    ],
)
def test_format_and_write_resolution(body: str, expected: tuple[str, str]) -> None:
    parsed = parse_frontmatter(fm(body))
    assert (parsed.format, parsed.write) == expected


def test_legacy_aliases() -> None:
    p = parse_frontmatter(fm("session: old-id\nrelated_docs:\n  - a.md\n"))
    assert p.session == "old-id"
    assert p.links == ("a.md",)
    assert set(p.deprecated) == {"session", "related_docs"}
    both = parse_frontmatter(fm("session: old\nagent_doc_session: new\n"))
    assert both.session == "new"


@pytest.mark.parametrize(
    ("body", "fragment", "line"),
    [
        pytest.param(
            "agent: x\nagent_doc_format: foo\n",
            "invalid agent_doc_format: 'foo'",
            3,
            id="format",
        ),
        pytest.param(
            "agent_doc_write: disk\n", "invalid agent_doc_write", 2, id="write"
        ),
        pytest.param("mode: sideways\n", "invalid mode", 2, id="mode"),
        pytest.param("links: 3\n", "'links' must be a list of strings", 2, id="links"),
        pytest.param("agent:\n  a: b\n", "'agent' must be a string", 2, id="agent-map"),
        pytest.param(
            "agent_doc_debounce_ms: soon\n", "non-negative integer", 2, id="int"
        ),
        pytest.param(
            "agent_doc_status_timeout_ms: -1\n", "non-negative integer", 2, id="neg"
        ),
        pytest.param("a: 1\nb: [1,\n", "invalid frontmatter YAML", None, id="yaml"),
        pytest.param("- a\n- b\n", "must be a YAML mapping", 2, id="not-mapping"),
        pytest.param(
            "a: !!python/object:os.system x\n", "invalid frontmatter YAML", 2, id="tag"
        ),
    ],
)
def test_invalid_values(body: str, fragment: str, line: int | None) -> None:
    with pytest.raises(FrontmatterError) as info:
        parse_frontmatter(fm(body))
    assert fragment in str(info.value)
    if line is not None:
        assert info.value.line == line


def test_yaml_error_line_points_into_document() -> None:
    with pytest.raises(FrontmatterError) as info:
        parse_frontmatter(fm("a: 1\nb: : :\n  c\n"))
    assert info.value.line is not None
    assert 2 <= info.value.line <= 5


def test_alias_bomb_fails_fast() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    text = fm("\n".join(lines) + "\n")
    start = time.perf_counter()
    with pytest.raises(FrontmatterError, match="anchors and aliases"):
        parse_frontmatter(text)
    assert time.perf_counter() - start < 0.5


def test_field_lines_and_deprecated_fields() -> None:
    text = fm(
        "# c\nagent: x\nmode: append\nlinks:\n  - a\nsession: s\ntmux_session: t\n"
    )
    lines = field_lines(text)
    assert lines == {"agent": 2, "mode": 3, "links": 4, "session": 6, "tmux_session": 7}
    assert [(d.key, d.line, d.replacement) for d in deprecated_fields(text)] == [
        ("mode", 3, "agent_doc_format"),
        ("session", 6, "agent_doc_session"),
        ("tmux_session", 7, None),
    ]
    assert field_lines("no fm") == {}
    assert deprecated_fields("---\nbroken") == []


def test_migrate_deprecated() -> None:
    text = fm(
        "session: s1  # keep\nmode: append\nagent: x\ntmux_session: t\nrelated_docs:\n  - a\n"
    )
    out = migrate_deprecated(text)
    assert out == fm(
        "agent_doc_session: s1  # keep\nagent: x\nlinks:\n  - a\nagent_doc_format: inline\n"
    )
    before, after = parse_frontmatter(text), parse_frontmatter(out)
    assert (after.session, after.format, after.write, after.links) == (
        before.session,
        before.format,
        before.write,
        before.links,
    )
    assert after.deprecated == ()
    assert deprecated_fields(out) == []
    clean = fm("agent: x\n")
    assert migrate_deprecated(clean) == clean


def test_migrate_keeps_explicit_fields() -> None:
    text = fm(
        "agent_doc_mode: stream\nagent_doc_write: merge\nsession: a\nagent_doc_session: b\n"
    )
    out = migrate_deprecated(text)
    assert out == fm("agent_doc_write: merge\nagent_doc_session: b\n")


def test_set_field_changes_only_that_line() -> None:
    text = fm(
        '# top comment\nagent: claude   # trailing\nmodel: "quoted"\nlinks:\n  - a\n  - b\n',
        "body\n",
    )
    assert set_field(text, "agent", "codex") == text.replace(
        "agent: claude", "agent: codex"
    )
    assert set_field(text, "model", "opus") == text.replace(
        'model: "quoted"', "model: opus"
    )
    assert set_field(text, "links", "x") == fm(
        '# top comment\nagent: claude   # trailing\nmodel: "quoted"\nlinks: x\n',
        "body\n",
    )
    added = set_field(text, "resume", "r1")
    assert added == text.replace("  - b\n---", "  - b\nresume: r1\n---")
    assert set_field(text, "model", None) == text.replace('model: "quoted"\n', "")
    assert set_field(text, "missing", None) == text


@pytest.mark.parametrize(
    "value",
    [
        "true",
        "123",
        "a: b",
        "#x",
        "",
        " pad",
        "null",
        "*alias",
        "line\nbreak",
        "tab\there",
        'q"uote',
        "ü🎉",
    ],
)
def test_set_field_quotes_only_when_needed(value: str) -> None:
    out = set_field(fm("agent: x\n"), "agent", value)
    assert parse_frontmatter(out).agent == value or (
        value == "" and parse_frontmatter(out).agent == ""
    )
    plain = value in {"ü🎉", 'q"uote'}
    assert (f"agent: {value}\n" in out) == plain


def test_set_field_creates_a_block() -> None:
    assert set_field("body\n", "agent", "x") == "---\nagent: x\n---\nbody\n"
    assert set_field("", "agent", "x") == "---\nagent: x\n---\n"
    assert set_field("body\n", "agent", None) == "body\n"
    assert set_field(fm(""), "agent", "x") == fm("agent: x\n")
    with pytest.raises(FrontmatterError):
        set_field("body", "bad key", "x")


def test_ensure_session() -> None:
    # Upstream acceptance case 26.
    text, sid = ensure_session("# Title\n")
    uuid.UUID(sid)
    assert text == f"---\nagent_doc_session: {sid}\n---\n# Title\n"
    again, same = ensure_session(text)
    assert (again, same) == (text, sid)
    null_doc = fm("session: null\nagent: claude\nmodel: m\n")
    out, sid2 = ensure_session(null_doc)
    assert out == fm(f"agent_doc_session: {sid2}\nagent: claude\nmodel: m\n")
    p = parse_frontmatter(out)
    assert (p.session, p.agent, p.model) == (sid2, "claude", "m")
    legacy, sid3 = ensure_session(fm("session: keep-me\n"))
    assert sid3 == "keep-me"
    assert legacy == fm("session: keep-me\n")
    added, sid4 = ensure_session(fm("agent: x\n"))
    assert added == fm(f"agent: x\nagent_doc_session: {sid4}\n")


KEYS = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)
VALUES = st.text(max_size=30)


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["plain", "quoted", "comment", "list", "blank"]))
        key = draw(KEYS)
        if kind == "plain":
            lines.append(
                f"{key}: {draw(st.from_regex(r'[a-z0-9]{1,8}', fullmatch=True))}"
            )
        elif kind == "quoted":
            lines.append(
                f"{key}: 'v {draw(st.from_regex(r'[a-z ]{0,8}', fullmatch=True))}'  # c"
            )
        elif kind == "comment":
            lines.append("# note " + draw(st.from_regex(r"[a-z]{0,5}", fullmatch=True)))
        elif kind == "list":
            lines.append(f"{key}:\n  - a\n  - b")
        else:
            lines.append("")
    body = draw(st.text(max_size=40))
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n" + body


@settings(max_examples=300, deadline=None)
@given(documents(), KEYS, st.one_of(st.none(), VALUES))
def test_set_field_property(text: str, key: str, value: str | None) -> None:
    try:
        before = yaml.safe_load(split_frontmatter(text).yaml)  # type: ignore[union-attr]
    except yaml.YAMLError:
        return
    before = before if isinstance(before, dict) else {}
    out = set_field(text, key, value)
    after = yaml.safe_load(split_frontmatter(out).yaml) or {}  # type: ignore[union-attr]
    expected = {k: v for k, v in before.items() if k != key}
    if value is not None:
        expected[key] = value
    assert after == expected

    # Every line not belonging to ``key`` is byte-identical and in order.
    def others(t: str) -> list[str]:
        out_lines, skipping = [], False
        for line in t.split("\n"):
            if re.match(rf"{re.escape(key)}[ \t]*:", line):
                skipping = True
                continue
            if skipping and re.match(r"[ \t]|-( |$)", line):
                continue
            skipping = False
            out_lines.append(line)
        return out_lines

    assert others(out) == others(text)


@pytest.mark.parametrize("prefix", ["", "\ufeff"])
def test_a_crlf_buffer_reads_as_its_file(prefix: str) -> None:
    """An editor's CRLF buffer (with or without a BOM) names the same agent
    and session as the file the CLI reads in the core's form (issue 35)."""
    text = (
        "---\nagent_doc_session: 11111111-2222-3333-4444-555555555555\n"
        "agent: standin\nresume: acp-1\n---\n# Plan\n"
    )
    buffer = prefix + text.replace("\n", "\r\n")
    assert parse_frontmatter(buffer) == parse_frontmatter(text)
    assert parse_frontmatter(buffer).agent == "standin"
