"""Component markers: parsing, nesting, errors, code immunity (spec §2.3)."""

from __future__ import annotations

import pytest

from agent_doc.document.components import STANDARD_MODES
from agent_doc.document.components import default_mode
from agent_doc.document.components import find_component
from agent_doc.document.components import is_valid_name
from agent_doc.document.components import parse_components
from agent_doc.document.components import replace_content
from agent_doc.document.components import scan_components
from agent_doc.errors import ComponentError


def test_simple_component_offsets_and_content() -> None:
    text = "# Doc\n\n<!-- agent:status -->\nold\n<!-- /agent:status -->\ntail\n"
    [c] = parse_components(text)
    assert c.name == "status"
    assert text[c.open_start : c.open_end] == "<!-- agent:status -->\n"
    assert text[c.close_start : c.close_end] == "<!-- /agent:status -->\n"
    assert c.content(text) == "old\n"
    assert (c.open_line, c.close_line) == (2, 4)
    assert (c.depth, c.parent) == (0, None)


def test_replace_content_keeps_markers() -> None:
    # Upstream acceptance case 3.
    text = "# Dashboard\n\n<!-- agent:status -->\nold\n<!-- /agent:status -->\n"
    [c] = parse_components(text)
    out = replace_content(text, c, "new\n")
    assert out == "# Dashboard\n\n<!-- agent:status -->\nnew\n<!-- /agent:status -->\n"


def test_whitespace_inside_comment_is_tolerated() -> None:
    text = "<!--   agent:a\t-->\nx\n<!--/agent:a   -->"
    [c] = parse_components(text)
    assert c.content(text) == "x\n"
    assert c.close_end == len(text)


def test_inline_attributes_and_mode_alias() -> None:
    text = (
        "<!-- agent:log patch=append max_lines=3 note=\"two words\" k='q' -->\n"
        "<!-- /agent:log -->\n"
        "<!-- agent:b mode=prepend -->\n<!-- /agent:b -->\n"
        "<!-- agent:c patch=replace mode=append -->\n<!-- /agent:c -->\n"
    )
    log, b, c = parse_components(text)
    assert log.attrs == (
        ("patch", "append"),
        ("max_lines", "3"),
        ("note", "two words"),
        ("k", "q"),
    )
    assert log.attr("max_lines") == "3"
    assert log.attr("missing") is None
    assert log.inline_mode() == "append"
    assert b.inline_mode() == "prepend"
    assert c.inline_mode() == "replace"
    assert log.content(text) == ""


def test_nesting_depth_and_parent_in_document_order() -> None:
    text = (
        "<!-- agent:outer -->\n<!-- agent:mid -->\n<!-- agent:leaf -->\nx\n"
        "<!-- /agent:leaf -->\n<!-- /agent:mid -->\n<!-- agent:sib -->\n"
        "<!-- /agent:sib -->\n<!-- /agent:outer -->\n"
    )
    comps = parse_components(text)
    assert [(c.name, c.depth, c.parent) for c in comps] == [
        ("outer", 0, None),
        ("mid", 1, "outer"),
        ("leaf", 2, "mid"),
        ("sib", 1, "outer"),
    ]
    assert find_component(comps, "leaf") is comps[2]
    assert find_component(comps, "nope") is None


@pytest.mark.parametrize(
    ("text", "fragment", "line"),
    [
        pytest.param(
            "<!-- agent:orphan -->\n", "unclosed component 'orphan'", 1, id="unclosed"
        ),
        pytest.param(
            "x\n<!-- /agent:orphan -->\n",
            "closing marker '/orphan' without matching open",
            2,
            id="unmatched",
        ),
        pytest.param(
            "<!-- agent:foo -->\n\n<!-- /agent:bar -->\n",
            "mismatched component: opened 'foo', closed 'bar'",
            3,
            id="mismatched",
        ),
        pytest.param(
            "a\nb\n<!-- agent:-bad -->\n<!-- /agent:-bad -->\n",
            "invalid component name '-bad'",
            3,
            id="invalid-name",
        ),
        pytest.param(
            "<!-- agent:a.b -->\n", "invalid component name 'a.b'", 1, id="invalid-dot"
        ),
    ],
)
def test_parse_errors(text: str, fragment: str, line: int) -> None:
    # Upstream acceptance case 7.
    with pytest.raises(ComponentError) as info:
        parse_components(text)
    assert fragment in str(info.value)
    assert info.value.line == line
    assert str(info.value).startswith(f"line {line}: ")


def test_scan_is_tolerant_and_reports_offsets() -> None:
    text = (
        "<!-- agent:good -->\nok\n<!-- /agent:good -->\n"
        "<!-- /agent:stray -->\n"
        "<!-- agent:-bad -->\n"
        "<!-- agent:open -->\n"
    )
    scan = scan_components(text)
    assert [c.name for c in scan.components] == ["good"]
    kinds = [(i.kind, i.line, i.name) for i in scan.issues]
    assert kinds == [
        ("unmatched", 4, "stray"),
        ("invalid-name", 5, "-bad"),
        ("unclosed", 6, "open"),
    ]
    stray = scan.issues[0]
    assert text[stray.start : stray.end] == "<!-- /agent:stray -->\n"


def test_scan_recovers_from_a_missing_inner_close() -> None:
    text = "<!-- agent:a -->\n<!-- agent:b -->\nx\n<!-- /agent:a -->\n"
    scan = scan_components(text)
    assert [c.name for c in scan.components] == ["a"]
    assert [(i.kind, i.line) for i in scan.issues] == [
        ("unclosed", 2),
        ("mismatched", 4),
    ]
    with pytest.raises(ComponentError, match="mismatched"):
        parse_components(text)


def test_boundary_marker_is_not_a_component() -> None:
    text = "<!-- agent:exchange -->\nq\n<!-- agent:boundary:1a2b3c4d -->\n<!-- /agent:exchange -->\n"
    [c] = parse_components(text)
    assert c.name == "exchange"


@pytest.mark.parametrize(
    "fence",
    [
        pytest.param(("```markdown", "```"), id="backticks"),
        pytest.param(("~~~", "~~~"), id="tildes"),
        pytest.param(("`````", "`````"), id="long-fence"),
        pytest.param(("  ```", "   ```"), id="indented"),
    ],
)
def test_markers_in_fences_are_ignored(fence: tuple[str, str]) -> None:
    # Upstream acceptance case 6.
    opening, closing = fence
    text = (
        f"{opening}\n<!-- agent:status -->\nexample\n<!-- /agent:status -->\n{closing}\n"
        "<!-- agent:status -->\nreal\n<!-- /agent:status -->\n"
    )
    [c] = parse_components(text)
    assert c.content(text) == "real\n"
    assert c.open_line == 5
    out = replace_content(text, c, "patched\n")
    assert "example" in out
    assert out.endswith("<!-- agent:status -->\npatched\n<!-- /agent:status -->\n")


def test_unclosed_fence_hides_everything_after_it() -> None:
    text = "<!-- agent:a -->\n<!-- /agent:a -->\n```\n<!-- agent:b -->\n"
    assert [c.name for c in parse_components(text)] == ["a"]


def test_markers_in_inline_code_are_ignored() -> None:
    text = (
        "Use `<!-- agent:demo -->` to open and ``<!-- /agent:x -->`` to close.\n"
        "<!-- agent:real -->\nbody\n<!-- /agent:real -->\n"
    )
    assert [c.name for c in parse_components(text)] == ["real"]


def test_non_ascii_offsets_are_code_points() -> None:
    text = "émoji 🎉🎉 ✓\n<!-- agent:out -->\nünïcødé 🚀\n<!-- /agent:out -->"
    [c] = parse_components(text)
    assert c.content(text) == "ünïcødé 🚀\n"
    assert c.open_start == text.index("<!--")
    assert c.open_line == 1


def test_empty_and_marker_free_documents() -> None:
    assert parse_components("") == []
    assert parse_components("just text, agent: nothing\n") == []
    assert scan_components("").issues == []


def test_no_trailing_newline_and_inline_markers() -> None:
    text = "a <!-- agent:x -->inline<!-- /agent:x --> b"
    [c] = parse_components(text)
    assert c.content(text) == "inline"
    assert c.close_end == text.index(" b")


def test_names() -> None:
    assert is_valid_name("status")
    assert is_valid_name("9-lives")
    assert is_valid_name("A")
    assert not is_valid_name("-bad")
    assert not is_valid_name("")
    assert not is_valid_name("a_b")


def test_standard_modes_table() -> None:
    assert STANDARD_MODES == {
        "exchange": "append",
        "findings": "append",
        "status": "replace",
        "pending": "replace",
        "output": "replace",
        "input": "replace",
    }
    assert default_mode("exchange") == "append"
    assert default_mode("findings") == "append"
    assert default_mode("custom-thing") == "replace"


def test_marker_without_space_before_close() -> None:
    text = "<!-- agent:x patch=append-->\nbody\n<!-- /agent:x-->\n"
    [c] = parse_components(text)
    assert (c.name, c.inline_mode(), c.content(text)) == ("x", "append", "body\n")


def test_fence_inside_multiline_html_comment_is_not_code() -> None:
    text = "<!--\n```\n-->\n<!-- agent:a -->\nx\n<!-- /agent:a -->\n"
    assert [c.name for c in parse_components(text)] == ["a"]


def test_inline_marker_in_paragraph_span_across_lines() -> None:
    text = "see `code\n<!-- agent:no --> still code` end\n<!-- agent:yes -->\n<!-- /agent:yes -->\n"
    # The marker line starts an HTML block, which ends the paragraph first.
    with pytest.raises(ComponentError, match="unclosed component 'no'"):
        parse_components(text)
    inline = "see `code <!-- agent:no --> still` end\n<!-- agent:yes -->\n<!-- /agent:yes -->\n"
    assert [c.name for c in parse_components(inline)] == ["yes"]
