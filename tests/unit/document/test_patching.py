"""Patch blocks: parsing responses and applying them (upstream-notes §3.1–3.3)."""

from __future__ import annotations

import re
import time
from datetime import datetime
from datetime import timedelta
from datetime import timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.apply import PatchBlock
from agent_doc.document.apply import apply_component_patch
from agent_doc.document.apply import apply_patches
from agent_doc.document.apply import dedup_exchange_adjacent_lines
from agent_doc.document.apply import parse_patch_blocks
from agent_doc.document.apply import strip_leading_overlap
from agent_doc.document.apply import strip_trailing_caret_lines
from agent_doc.document.apply import trim_entries
from agent_doc.document.boundary import find_boundaries
from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.component_config import load_component_configs
from agent_doc.document.components import find_component
from agent_doc.document.components import parse_components
from agent_doc.errors import ComponentError
from agent_doc.errors import ComponentNotFound
from agent_doc.errors import PatchError
from agent_doc.write.component_hooks import run_post_patch
from agent_doc.write.component_hooks import run_pre_patch
from agent_doc.write.patch_time import patch_time

BOUNDARY = re.compile(r"<!-- agent:boundary:([0-9a-z-]+) -->")


def content_of(doc: str, name: str) -> str:
    component = find_component(parse_components(doc), name)
    assert component is not None, f"no component {name!r}"
    return component.content(doc)


def exchange_doc(body: str) -> str:
    return f"# Doc\n\n<!-- agent:exchange -->\n{body}<!-- /agent:exchange -->\n"


# -- parse_patch_blocks ------------------------------------------------------------


def test_parse_single_block_keeps_content_and_no_unmatched() -> None:
    blocks, unmatched = parse_patch_blocks(
        "<!-- patch:status -->\nBuild passing.\n<!-- /patch:status -->\n"
    )
    assert blocks == [PatchBlock("status", "Build passing.\n")]
    assert unmatched == ""


def test_parse_collects_unmatched_text_around_blocks() -> None:
    response = (
        "Some free text.\n\n<!-- patch:status -->\nOK\n<!-- /patch:status -->\n\n"
        "Trailing text.\n"
    )
    blocks, unmatched = parse_patch_blocks(response)
    assert [b.name for b in blocks] == ["status"]
    assert unmatched == "Some free text.\nTrailing text."


def test_parse_without_blocks_returns_whole_trimmed_text() -> None:
    assert parse_patch_blocks("\n  Just an answer.\n\n") == ([], "Just an answer.")


def test_parse_reads_opener_attributes() -> None:
    blocks, _ = parse_patch_blocks(
        "<!-- patch:exchange transfer-source=notes.md flag -->\nhi\n<!-- /patch:exchange -->"
    )
    assert blocks[0].attrs == (("transfer-source", "notes.md"),)
    assert blocks[0].content == "hi\n"


def test_parse_ignores_markers_in_fenced_and_inline_code() -> None:
    response = (
        "Use it like this:\n\n```markdown\n<!-- patch:status -->\nfake\n"
        "<!-- /patch:status -->\n```\n\n~~~\n<!-- patch:log -->\n~~~\n"
        "Inline `<!-- patch:status -->` too.\n"
        "<!-- patch:status -->\nreal\n<!-- /patch:status -->\n"
    )
    blocks, unmatched = parse_patch_blocks(response)
    assert blocks == [PatchBlock("status", "real\n")]
    assert "fake" in unmatched
    assert "Inline `<!-- patch:status -->` too." in unmatched


def test_parse_close_marker_inside_code_does_not_end_block() -> None:
    response = (
        "<!-- patch:notes -->\nExample:\n```\n<!-- /patch:notes -->\n```\n"
        "done\n<!-- /patch:notes -->\n"
    )
    blocks, unmatched = parse_patch_blocks(response)
    assert len(blocks) == 1
    assert blocks[0].content == "Example:\n```\n<!-- /patch:notes -->\n```\ndone\n"
    assert unmatched == ""


def test_parse_accepts_replace_pending_but_only_for_pending() -> None:
    blocks, unmatched = parse_patch_blocks(
        "<!-- replace:pending -->\n- task\n<!-- /replace:pending -->\n"
        "<!-- replace:status -->x<!-- /replace:status -->"
    )
    assert blocks == [PatchBlock("pending", "- task\n")]
    assert "replace:status" in unmatched


def test_parse_unclosed_opener_is_consumed() -> None:
    blocks, unmatched = parse_patch_blocks(
        "Intro.\n<!-- patch:status -->\nhalf written"
    )
    assert blocks == []
    assert "patch:status" not in unmatched
    assert unmatched == "Intro.\nhalf written"


def test_parse_invalid_patch_name_raises() -> None:
    with pytest.raises(PatchError, match="invalid patch name '-bad'"):
        parse_patch_blocks("<!-- patch:-bad -->\nx\n<!-- /patch:-bad -->\n")


def test_parse_multiple_blocks_in_order() -> None:
    blocks, unmatched = parse_patch_blocks(
        "<!-- patch:a -->1\n<!-- /patch:a -->\nmid\n<!-- patch:b -->\n2\n<!-- /patch:b -->"
    )
    assert [(b.name, b.content) for b in blocks] == [("a", "1\n"), ("b", "2\n")]
    assert unmatched == "mid"


# -- apply_patches: modes ------------------------------------------------------------


def test_replace_mode_replaces_content_exactly() -> None:
    doc = "# Dashboard\n\n<!-- agent:status -->\nold\n<!-- /agent:status -->\n"
    out = apply_patches(doc, [PatchBlock("status", "new\n")], "", {})
    assert out == "# Dashboard\n\n<!-- agent:status -->\nnew\n<!-- /agent:status -->\n"


def test_missing_component_overflows_into_exchange() -> None:
    doc = exchange_doc("previous\n")
    out = apply_patches(doc, [PatchBlock("nonexistent", "overflow data\n")], "", {})
    body = content_of(out, "exchange")
    assert body.index("previous") < body.index("overflow data")


def test_missing_component_without_exchange_creates_one_at_end() -> None:
    doc = "# Doc\n\n<!-- agent:status -->\nok\n<!-- /agent:status -->\n"
    out = apply_patches(doc, [PatchBlock("nonexistent", "overflow data\n")], "", {})
    assert out.startswith(doc)
    assert "overflow data" in content_of(out, "exchange")
    again = apply_patches(out, [], "more unmatched", {})
    assert again.count("<!-- agent:exchange -->") == 1
    assert "more unmatched" in content_of(again, "exchange")


def test_unmatched_goes_to_output_when_there_is_no_exchange() -> None:
    doc = "<!-- agent:output -->\n<!-- /agent:output -->\n"
    out = apply_patches(doc, [], "Answer.", {})
    assert content_of(out, "output") == "Answer.\n"
    assert "agent:exchange" not in out
    assert not find_boundaries(out)


@pytest.mark.parametrize(
    ("tag", "configs", "expected"),
    [
        pytest.param(
            "<!-- agent:status patch=replace -->",
            {"status": ComponentConfig(mode="append")},
            "new\n",
            id="inline-beats-config",
        ),
        pytest.param(
            "<!-- agent:status patch=replace mode=append -->",
            {},
            "new\n",
            id="patch-beats-mode",
        ),
        pytest.param(
            "<!-- agent:status -->",
            {"status": ComponentConfig(mode="append")},
            "old\nnew\n",
            id="config-beats-default",
        ),
        pytest.param(
            "<!-- agent:status mode=prepend -->", {}, "new\nold\n", id="inline-prepend"
        ),
    ],
)
def test_mode_precedence(
    tag: str, configs: dict[str, ComponentConfig], expected: str
) -> None:
    doc = f"{tag}\nold\n<!-- /agent:status -->\n"
    out = apply_patches(doc, [PatchBlock("status", "new\n")], "", configs)
    assert content_of(out, "status") == expected


def test_mode_override_beats_inline_attribute() -> None:
    doc = "<!-- agent:exchange mode=append -->\nold\n<!-- /agent:exchange -->\n"
    out = apply_patches(
        doc,
        [PatchBlock("exchange", "new\n")],
        "",
        {},
        mode_overrides={"exchange": "replace"},
    )
    body = BOUNDARY.sub("", content_of(out, "exchange"))
    assert "old" not in body
    assert "new" in body


def test_exchange_appends_by_default() -> None:
    out = apply_patches(
        exchange_doc("old\n"), [PatchBlock("exchange", "new\n")], "", {}
    )
    body = content_of(out, "exchange")
    assert body.index("old") < body.index("new")


def test_invalid_inline_mode_raises_patch_error() -> None:
    doc = "<!-- agent:status patch=bogus -->\nold\n<!-- /agent:status -->\n"
    with pytest.raises(PatchError, match="patch='bogus'"):
        apply_patches(doc, [PatchBlock("status", "new\n")], "", {})


def test_malformed_document_raises_component_error() -> None:
    with pytest.raises(ComponentError, match="unclosed component"):
        apply_patches("<!-- agent:status -->\nx\n", [PatchBlock("status", "y")], "", {})


def test_code_fence_example_is_not_patched() -> None:
    doc = (
        "Example:\n```markdown\n<!-- agent:status -->\nexample\n<!-- /agent:status -->\n"
        "```\n<!-- agent:status -->\nreal old\n<!-- /agent:status -->\n"
    )
    out = apply_patches(doc, [PatchBlock("status", "real new\n")], "", {})
    assert (
        "```markdown\n<!-- agent:status -->\nexample\n<!-- /agent:status -->\n```"
        in out
    )
    assert "real new" in out
    assert "real old" not in out


# -- apply_patches: boundary lifecycle ----------------------------------------------


def test_response_lands_after_prompt_and_old_boundary_is_replaced() -> None:
    doc = exchange_doc("User prompt here.\n<!-- agent:boundary:test-uuid-123 -->\n")
    out = apply_patches(doc, [], "### Re: Response\nDone.", {}, "0123abcd")
    assert "test-uuid-123" not in out
    body = content_of(out, "exchange")
    assert body == (
        "User prompt here.\n\n### Re: Response\nDone.\n"
        "<!-- agent:boundary:0123abcd -->\n"
    )  # a blank line between the person's text and the response heading


def test_a_heading_after_a_blank_line_or_a_marker_gets_no_extra_blank() -> None:
    out = apply_patches(
        exchange_doc("User prompt.\n\n"), [], "### Re: x\nDone.", {}, "0123abcd"
    )
    assert "User prompt.\n\n### Re: x\n" in out


def test_boundary_is_created_and_never_duplicated() -> None:
    doc = exchange_doc("Question?\n")
    block = parse_patch_blocks(
        "<!-- patch:exchange -->Agent response.<!-- /patch:exchange -->"
    )[0]
    first = apply_patches(doc, block, "", {})
    assert len(find_boundaries(first)) == 1
    second = apply_patches(first, [PatchBlock("exchange", "Second.\n")], "", {})
    assert len(find_boundaries(second)) == 1
    body = content_of(second, "exchange")
    assert body.index("Agent response.") < body.index("Second.")
    assert body.rstrip("\n").splitlines()[-1].startswith("<!-- agent:boundary:")


def test_stale_boundary_above_new_user_text_is_moved_after_it() -> None:
    doc = exchange_doc(
        "Previous response.\n<!-- agent:boundary:old-id -->\nUser prompt here.\n"
    )
    out = apply_patches(doc, [PatchBlock("exchange", "Answer.\n")], "", {}, "feedf00d")
    assert "old-id" not in out
    body = content_of(out, "exchange")
    assert body == (
        "Previous response.\nUser prompt here.\nAnswer.\n"
        "<!-- agent:boundary:feedf00d -->\n"
    )


def test_boundaries_outside_exchange_are_cleaned_and_code_ones_kept() -> None:
    doc = (
        "<!-- agent:boundary:stray -->\n```\n<!-- agent:boundary:fake-id -->\n```\n"
        + exchange_doc("Hi\n<!-- agent:boundary:a -->\n<!-- agent:boundary:b -->\n")
    )
    out = apply_patches(doc, [], "Hello.", {}, "abcdef01")
    assert "<!-- agent:boundary:fake-id -->" in out
    assert [b.id for b in find_boundaries(out)] == ["abcdef01"]


def test_boundary_echoed_in_response_is_removed() -> None:
    doc = exchange_doc("Q\n")
    out = apply_patches(
        doc, [PatchBlock("exchange", "A\n<!-- agent:boundary:zzz -->\n")], "", {}
    )
    assert len(find_boundaries(out)) == 1
    assert "zzz" not in out


def test_append_without_boundary_strips_leading_overlap() -> None:
    doc = "<!-- agent:findings -->\nfact one\nfact two\n<!-- /agent:findings -->\n"
    out = apply_patches(doc, [PatchBlock("findings", "fact two\nfact three\n")], "", {})
    assert content_of(out, "findings") == "fact one\nfact two\nfact three\n"


def test_exchange_replace_mode_still_ends_with_one_boundary() -> None:
    doc = "<!-- agent:exchange patch=replace -->\nold\n<!-- /agent:exchange -->\n"
    out = apply_patches(doc, [PatchBlock("exchange", "new\n")], "", {}, "00000000")
    assert content_of(out, "exchange") == "new\n<!-- agent:boundary:00000000 -->\n"


def test_trailing_caret_lines_are_stripped_from_exchange_content() -> None:
    out = apply_patches(
        exchange_doc("Q\n"), [PatchBlock("exchange", "A\n❯\n\n")], "", {}
    )
    assert "❯" not in out


# -- dedup and max_lines ---------------------------------------------------------------


def test_dedup_drops_repeated_adjacent_lines_but_not_blanks_or_code() -> None:
    doc = exchange_doc("a\na\n\n\nb\n\nb\n```\n}\n}\n```\nc\n")
    out = dedup_exchange_adjacent_lines(doc)
    assert content_of(out, "exchange") == "a\n\n\nb\n\n```\n}\n}\n```\nc\n"


def test_apply_dedups_response_repeating_the_prompt_line() -> None:
    out = apply_patches(exchange_doc("Same line\n"), [], "Same line\nNew", {})
    assert content_of(out, "exchange").count("Same line") == 1


@pytest.mark.parametrize(
    ("tag", "configs"),
    [
        pytest.param("<!-- agent:log max_lines=2 -->", {}, id="inline"),
        pytest.param(
            "<!-- agent:log -->", {"log": ComponentConfig(max_lines=2)}, id="config"
        ),
        pytest.param(
            "<!-- agent:log max_lines=2 -->",
            {"log": ComponentConfig(max_lines=10)},
            id="inline-beats-config",
        ),
    ],
)
def test_max_lines_keeps_last_lines(
    tag: str, configs: dict[str, ComponentConfig]
) -> None:
    doc = f"{tag}\none\n<!-- /agent:log -->\n"
    out = apply_patches(doc, [PatchBlock("log", "a\nb\nc\n")], "", configs)
    assert content_of(out, "log") == "b\nc\n"


def test_max_lines_zero_means_unlimited() -> None:
    doc = "<!-- agent:log max_lines=0 -->\n<!-- /agent:log -->\n"
    out = apply_patches(doc, [PatchBlock("log", "a\nb\nc\n")], "", {})
    assert content_of(out, "log") == "a\nb\nc\n"


def test_max_lines_on_exchange_keeps_boundary() -> None:
    doc = "<!-- agent:exchange max_lines=2 -->\nq1\n<!-- /agent:exchange -->\n"
    out = apply_patches(doc, [], "a1\na2\na3", {}, "12345678")
    assert content_of(out, "exchange") == "a2\na3\n<!-- agent:boundary:12345678 -->\n"


# -- helpers ----------------------------------------------------------------------------


def test_strip_leading_overlap_only_removes_repeated_first_line() -> None:
    assert strip_leading_overlap("x\nlast\n\n", "last\nnext\n") == "next\n"
    assert strip_leading_overlap("x\nlast\n", "other\nlast\n") == "other\nlast\n"
    assert strip_leading_overlap("", "a\n") == "a\n"


def test_strip_trailing_caret_lines() -> None:
    assert strip_trailing_caret_lines("answer\n❯\n") == "answer\n"
    assert strip_trailing_caret_lines("answer\n\n") == "answer\n\n"
    assert strip_trailing_caret_lines("❯ keep\n") == "❯ keep\n"


def test_unclosed_fence_in_response_is_closed_so_the_document_stays_valid() -> None:
    out = apply_patches(exchange_doc("Q\n"), [], "Here:\n````py\nx = 1", {})
    assert content_of(out, "exchange").startswith("Q\nHere:\n````py\nx = 1\n````\n")
    status = "<!-- agent:status -->\nold\n<!-- /agent:status -->\n"
    out = apply_patches(status, [PatchBlock("status", "~~~\ncode\n")], "", {})
    assert content_of(out, "status") == "~~~\ncode\n~~~\n"


# -- invariants --------------------------------------------------------------------------

_user_line = st.text(alphabet="abc xyz#-*", min_size=0, max_size=12)
_response_line = st.text(alphabet="abc xyz`~#-*", min_size=0, max_size=12)


@settings(max_examples=60, deadline=None)
@given(
    user_lines=st.lists(_user_line, min_size=1, max_size=6),
    old_boundary_at=st.integers(min_value=-1, max_value=6),
    response=st.lists(_response_line, min_size=1, max_size=4),
    as_block=st.booleans(),
)
def test_invariant_one_boundary_and_response_after_user_text(
    user_lines: list[str], old_boundary_at: int, response: list[str], as_block: bool
) -> None:
    lines = [*user_lines, "LAST USER LINE"]
    if 0 <= old_boundary_at <= len(lines):
        lines.insert(old_boundary_at, "<!-- agent:boundary:0ld0ld00 -->")
    doc = exchange_doc("".join(f"{s}\n" for s in lines))
    text = "\n".join(["RESPONSE START", *response])
    if as_block:
        out = apply_patches(doc, [PatchBlock("exchange", text + "\n")], "", {})
    else:
        out = apply_patches(doc, [], text, {})
    assert len(find_boundaries(out)) == 1
    body = content_of(out, "exchange")
    assert body.index("LAST USER LINE") < body.index("RESPONSE START")
    assert "0ld0ld00" not in out
    twice = apply_patches(out, [], "SECOND", {})
    assert len(find_boundaries(twice)) == 1
    assert twice.count("<!-- agent:exchange -->") == 1


# -- patch command: apply_component_patch and hooks (spec §7.21, case 27) ------------


LOG_DOC = "# Log\n\n<!-- agent:log -->\nentry1\n<!-- /agent:log -->\n"


def test_component_patch_defaults_to_replace_even_for_exchange() -> None:
    assert content_of(apply_component_patch(LOG_DOC, "log", "x", {}), "log") == "x\n"
    doc = exchange_doc("old\n")
    assert content_of(
        apply_component_patch(doc, "exchange", "new\n", {}), "exchange"
    ) == ("new\n")


def test_component_patch_append_and_prepend_from_config() -> None:
    append = {"log": ComponentConfig(mode="append")}
    out = apply_component_patch(LOG_DOC, "log", "entry2\n", append)
    assert content_of(out, "log") == "entry1\nentry2\n"
    prepend = {"log": ComponentConfig(mode="prepend")}
    out = apply_component_patch(LOG_DOC, "log", "entry0\n", prepend)
    assert content_of(out, "log") == "entry0\nentry1\n"


def test_component_patch_inline_attribute_beats_config() -> None:
    doc = "<!-- agent:log patch=append -->\na\n<!-- /agent:log -->\n"
    out = apply_component_patch(
        doc, "log", "b", {"log": ComponentConfig(mode="replace")}
    )
    assert content_of(out, "log") == "a\nb\n"


def test_component_patch_timestamp_prefix_is_utc() -> None:
    config = {"log": ComponentConfig(mode="append", timestamp=True)}
    when = datetime(2026, 2, 25, 22, 24, 46, tzinfo=timezone(timedelta(hours=1)))
    out = apply_component_patch(LOG_DOC, "log", "deployed\n", config, now=when)
    assert content_of(out, "log") == "entry1\n[2026-02-25T21:24:46Z] deployed\n"


def test_a_stamped_component_takes_the_time_from_its_caller() -> None:
    """The document layer reads no clock (architecture.md): the write layer
    gives the time, and only for a component that stamps its entries."""
    configs = {"log": ComponentConfig(timestamp=True)}
    with pytest.raises(PatchError, match="give the time"):
        apply_component_patch(LOG_DOC, "log", "x", configs)
    assert patch_time({"log": ComponentConfig()}, "log") is None
    assert patch_time(configs, "other") is None
    now = patch_time(configs, "log")
    assert now is not None
    assert now.utcoffset() == timedelta(0)
    out = apply_component_patch(LOG_DOC, "log", "x", configs, now=now)
    assert content_of(out, "log") == f"[{now:%Y-%m-%dT%H:%M:%SZ}] x\n"


def test_component_patch_max_entries_keeps_newest_non_empty_lines() -> None:
    doc = "<!-- agent:log -->\nline1\n\nline2\nline3\nline4\n<!-- /agent:log -->\n"
    config = {"log": ComponentConfig(mode="append", max_entries=3)}
    out = apply_component_patch(doc, "log", "line5\n", config)
    assert content_of(out, "log") == "line3\nline4\nline5\n"
    config = {"log": ComponentConfig(mode="prepend", max_entries=2)}
    out = apply_component_patch(doc, "log", "line0\n", config)
    assert content_of(out, "log") == "line0\nline1\n"
    config = {"log": ComponentConfig(max_entries=1)}  # replace: not trimmed
    out = apply_component_patch(doc, "log", "a\nb\n", config)
    assert content_of(out, "log") == "a\nb\n"


def test_trim_entries() -> None:
    text = "line1\nline2\nline3\nline4\nline5\n"
    assert trim_entries(text, 3) == "line3\nline4\nline5\n"
    assert trim_entries(text, 0) == text
    assert trim_entries("a\nb", 1) == "b"


def test_component_patch_max_lines() -> None:
    config = {"log": ComponentConfig(mode="append", max_lines=2)}
    out = apply_component_patch(LOG_DOC, "log", "e2\ne3\n", config)
    assert content_of(out, "log") == "e2\ne3\n"


def test_component_patch_unknown_component_lists_available() -> None:
    doc = LOG_DOC + "<!-- agent:status -->\n<!-- /agent:status -->\n"
    with pytest.raises(ComponentNotFound, match=r"'nope'.*available: log, status"):
        apply_component_patch(doc, "nope", "x", {})


def test_component_patch_append_to_exchange_goes_before_boundary() -> None:
    doc = exchange_doc("Q\n<!-- agent:boundary:aaaa1111 -->\n")
    out = apply_component_patch(
        doc, "exchange", "note\n", {"exchange": ComponentConfig(mode="append")}
    )
    assert (
        content_of(out, "exchange") == "Q\n\nnote\n<!-- agent:boundary:aaaa1111 -->\n"
    )  # a new paragraph


def test_pre_patch_hook_transforms_content_with_env(tmp_path: Path) -> None:
    doc_path = tmp_path / "doc.md"
    result = run_pre_patch(
        'tr a-z A-Z; printf "%s@%s" "$COMPONENT" "$FILE"',
        "hello world\n",
        "log",
        doc_path,
    )
    assert result == f"HELLO WORLD\nlog@{doc_path}"
    out = apply_component_patch(LOG_DOC, "log", result, {})
    assert "HELLO WORLD" in content_of(out, "log")


def test_pre_patch_hook_failure_raises_with_stderr(tmp_path: Path) -> None:
    with pytest.raises(PatchError, match=r"exit 3\): no way"):
        run_pre_patch("echo no way >&2; exit 3", "x", "log", tmp_path / "d.md")


def test_pre_patch_hook_timeout(tmp_path: Path) -> None:
    with pytest.raises(PatchError, match="timed out"):
        run_pre_patch("sleep 5", "x", "log", tmp_path / "d.md", timeout=0.2)


def test_post_patch_hook_runs_detached_with_env(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    start = time.monotonic()
    pid = run_post_patch(
        f'sleep 0.3; printf "%s %s" "$COMPONENT" "$FILE" > {marker}', "log", "/x/doc.md"
    )
    assert pid > 0
    assert time.monotonic() - start < 0.3  # did not wait for the hook
    assert not marker.exists()
    deadline = time.monotonic() + 10
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.05)
    assert marker.read_text() == "log /x/doc.md"


def test_patch_command_flow_from_a_real_components_toml(project: Path) -> None:
    marker = project / "posted"
    (project / ".agent-doc" / "components.toml").write_text(
        f'[log]\nmode = "append"\npre_patch = "tr a-z A-Z"\npost_patch = "touch {marker}"\n',
        encoding="utf-8",
    )
    configs = load_component_configs(project)
    doc_path = project / "doc.md"
    content = run_pre_patch(configs["log"].pre_patch or "", "entry2\n", "log", doc_path)
    out = apply_component_patch(LOG_DOC, "log", content, configs)
    assert content_of(out, "log") == "entry1\nENTRY2\n"
    run_post_patch(configs["log"].post_patch or "", "log", doc_path)
    deadline = time.monotonic() + 10
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists()


def test_apply_never_dedups_the_users_existing_exchange_lines() -> None:
    user = "    }\n    }\nsame\nsame\n"  # e.g. an indented code block, repeated lines
    out = apply_patches(exchange_doc(user), [], "Reply\nReply", {}, "0000aaaa")
    assert content_of(out, "exchange") == (
        user + "Reply\n<!-- agent:boundary:0000aaaa -->\n"
    )


def test_frontmatter_patch_block_sets_fields_only() -> None:
    from agent_doc.document.apply import build_content_ours

    doc = (
        "---\n# keep me\nagent_doc_format: template\nresume: old\n---\n"
        "<!-- agent:exchange -->\nQ?\n<!-- /agent:exchange -->\n"
    )
    response = (
        "Answer.\n\n<!-- patch:frontmatter -->\nresume: new-id\nevil: x\n"
        "<!-- /patch:frontmatter -->\n"
    )
    ours = build_content_ours(doc, response, {})
    assert ours.startswith(
        "---\n# keep me\nagent_doc_format: template\nresume: new-id\n---\n"
    )
    assert "evil" not in ours
    assert "patch:frontmatter" not in ours
    assert ours.index("Q?") < ours.index("Answer.")


def test_frontmatter_patch_only_response_is_not_empty() -> None:
    from agent_doc.document.apply import build_content_ours

    doc = "---\nagent_doc_format: inline\n---\n## User\n\nHi\n"
    block = "<!-- patch:frontmatter -->\nmodel: opus\n<!-- /patch:frontmatter -->\n"
    ours = build_content_ours(doc, block, {})
    assert ours == "---\nagent_doc_format: inline\nmodel: opus\n---\n## User\n\nHi\n"
    with_text = build_content_ours(doc, "Hello back.\n" + block, {})
    assert "## Assistant\n\nHello back." in with_text
    assert "model: opus" in with_text


def test_frontmatter_patch_with_bad_yaml_is_an_error() -> None:
    from agent_doc.document.apply import build_content_ours

    doc = "---\nagent_doc_format: template\n---\nx\n"
    bad = "<!-- patch:frontmatter -->\n: : [\n<!-- /patch:frontmatter -->\n"
    with pytest.raises(PatchError, match="invalid YAML"):
        build_content_ours(doc, bad, {})
