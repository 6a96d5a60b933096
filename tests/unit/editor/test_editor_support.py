"""agent_doc.editor: the pure logic behind the language server's features."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_doc.editor import completions
from agent_doc.editor import folds
from agent_doc.editor import hover
from agent_doc.editor import is_session_document
from agent_doc.editor import outline
from agent_doc.editor import problems
from agent_doc.editor import quick_fixes
from agent_doc.editor import rename_edits
from agent_doc.editor import rename_target
from agent_doc.editor.fixes import minimal_change
from agent_doc.editor.project import ConfigCache
from agent_doc.editor.project import SessionIndex
from agent_doc.errors import ComponentError


def _apply(text, changes):
    for c in sorted(changes, key=lambda c: -c.start):
        text = text[: c.start] + c.new_text + text[c.end :]
    return text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("---\nagent_doc_session: x\n---\n", True, id="session-key"),
        pytest.param("---\nagent: claude\n---\n", True, id="agent-key"),
        pytest.param("<!-- agent:a -->\n<!-- /agent:a -->\n", True, id="component"),
        pytest.param("---\ntitle: x\n---\n# doc\n", False, id="other-frontmatter"),
        pytest.param(
            "```\n<!-- agent:a -->\n<!-- /agent:a -->\n```\n", False, id="in-code"
        ),
        pytest.param("<!-- agent:a -->\n", False, id="unclosed-only"),
    ],
)
def test_is_session_document(text, expected):
    assert is_session_document(text) is expected


def test_headings_in_code_and_outside_components_are_not_symbols():
    text = "# outside\n<!-- agent:a -->\n## C#\n```\n# code\n```\n### x ###\n<!-- /agent:a -->\n"
    (comp,) = outline(text)
    assert [c.name for c in comp.children] == ["C#", "x"]


def test_folds_skip_single_line_components():
    assert folds("<!-- agent:a --> <!-- /agent:a -->\n") == []


def test_minimal_change_keeps_common_prefix_and_suffix():
    change = minimal_change("abcXYZdef", "abc12def")
    assert (change.start, change.end, change.new_text) == (3, 6, "12")
    assert _apply("abcXYZdef", [change]) == "abc12def"


def test_completion_in_closing_marker_offers_names_not_attributes():
    text = "<!-- agent:alpha -->\n<!-- /agent:al"
    labels = [c.label for c in completions(text, len(text))]
    assert "alpha" in labels
    assert completions("<!-- /agent:alpha ", len("<!-- /agent:alpha ")) == []


def test_completion_outside_markers_and_after_close_is_empty():
    text = "<!-- agent:a --> text"
    assert completions(text, len(text)) == []


def test_frontmatter_value_completion_only_for_choice_fields():
    text = "---\nmodel: \n---\n"
    assert completions(text, text.index("\n---", 3)) == []


def test_unterminated_frontmatter_still_completes_keys():
    text = "---\nagent_doc_f"
    items = {c.label: c for c in completions(text, len(text))}  # the client filters
    item = items["agent_doc_format"]
    assert text[item.start : item.end] == "agent_doc_f"


def test_hover_reports_invalid_inline_values():
    text = "<!-- agent:a patch=bad max_lines=x -->\n<!-- /agent:a -->\n"
    info = hover(text, 3)
    assert info is not None
    assert "patch mode: invalid" in info.markdown
    assert "max_lines: invalid" in info.markdown


def test_rename_target_and_edits_cover_both_markers_of_nested_component():
    text = "<!-- agent:a -->\n<!-- agent:b -->\n<!-- /agent:b -->\n<!-- /agent:a -->\n"
    start, end, name = rename_target(text, text.index("/agent:b") + 3) or (0, 0, "")
    assert (text[start:end], name) == ("b", "b")
    result = _apply(text, rename_edits(text, start, "c-2"))
    assert result == text.replace("agent:b", "agent:c-2")
    with pytest.raises(ComponentError):
        rename_edits(text, start, "bad name")
    with pytest.raises(ComponentError):
        rename_edits(text, len(text), "x")


def test_fixes_make_the_problems_disappear():
    text = (
        "---\nresponse_mode: stream\n---\n<!-- agent:exchange -->\n"
        "<!-- agent:boundary:aaaaaaaa -->\n<!-- agent:boundary:bbbbbbbb -->\n"
        "<!-- agent:open -->\n<!-- /agent:exchange -->\n"
    )
    for _ in range(5):
        found = [p for p in problems(text) if p.code != "mismatched"]
        if not found:
            break
        fixes = quick_fixes(text, found[0].start, found[0].end)
        assert fixes, found[0]
        text = _apply(text, fixes[0].changes)
    assert problems(text) == []
    assert "agent_doc_write: crdt" not in text  # stream → template + crdt = defaults


def test_config_cache_reloads_only_when_the_file_changes(tmp_path: Path):
    root = tmp_path / "p"
    (root / ".agent-doc").mkdir(parents=True)
    toml = root / ".agent-doc" / "components.toml"
    toml.write_text('[log]\nmode = "append"\n')
    cache = ConfigCache()
    first, error = cache.for_document(root / "doc.md")
    assert error is None
    assert first["log"].mode == "append"
    assert cache.for_document(root / "doc.md")[0] is first
    toml.write_text('[log]\nmode = "sideways"\n')
    st = toml.stat()
    os.utime(toml, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    configs, error = cache.for_document(root / "doc.md")
    assert configs == {}
    assert error is not None
    assert "components.toml" in error


def test_session_index_reads_each_file_once_until_it_changes(tmp_path: Path):
    (tmp_path / "a.md").write_text("<!-- agent:x -->\n<!-- /agent:x -->\n")
    (tmp_path / "b.md").write_text("plain\n")
    index = SessionIndex()
    assert [s.name for s in index.search([tmp_path], "")] == ["x"]
    assert index.reads == 2
    index.search([tmp_path], "x")
    assert index.reads == 2
    (tmp_path / "a.md").unlink()
    assert index.search([tmp_path], "") == []
