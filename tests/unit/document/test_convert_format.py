"""``convert`` and ``mode``: switching inline ⇄ template format (case 29)."""

from __future__ import annotations

import pytest

from agent_doc.document.apply import build_content_ours
from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.components import parse_components
from agent_doc.document.convert import convert_to_inline
from agent_doc.document.convert import convert_to_template
from agent_doc.document.convert import set_mode
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import ComponentError
from agent_doc.errors import DocumentError
from agent_doc.errors import FrontmatterError
from agent_doc.errors import PatchError

WRAPPED = "\n## Exchange\n\n<!-- agent:exchange -->\n## User\n\nHi\n<!-- /agent:exchange -->\n"


def test_convert_inline_body_to_template() -> None:
    out = convert_to_template("## User\n\nHi\n")
    assert out == f"---\nagent_doc_format: template\n---\n{WRAPPED}"
    assert parse_frontmatter(out).format == "template"
    assert [c.name for c in parse_components(out)] == ["exchange"]


def test_convert_keeps_other_frontmatter_and_preamble() -> None:
    text = "---\nagent_doc_session: s1\nagent_doc_format: inline\n---\n# Plan\n\n## User\n\nHi"
    out = convert_to_template(text)
    assert out == (
        "---\nagent_doc_session: s1\nagent_doc_format: template\n---\n# Plan\n"
        f"{WRAPPED}"
    )


def test_convert_ignores_conversation_headings_in_code() -> None:
    text = "Intro\n```\n## User\n```\n\n## User\n\nHi\n"
    out = convert_to_template(text)
    assert out.endswith("Intro\n```\n## User\n```\n" + WRAPPED)


def test_convert_migrates_deprecated_mode() -> None:
    out = convert_to_template(
        "---\nagent_doc_mode: append\nagent: claude\n---\n## User\n\nHi\n"
    )
    assert "agent_doc_mode" not in out
    assert out.startswith("---\nagent: claude\nagent_doc_format: template\n---\n")


def test_convert_template_with_components_is_an_error() -> None:
    text = "<!-- agent:status -->\nok\n<!-- /agent:status -->\n"
    with pytest.raises(DocumentError, match="already has components"):
        convert_to_template(text)


def test_convert_malformed_markers_is_a_component_error() -> None:
    with pytest.raises(ComponentError, match="unclosed"):
        convert_to_template("<!-- agent:status -->\n")


@pytest.mark.parametrize(
    "original",
    [
        pytest.param("---\nagent_doc_format: inline\n---\n## User\n\nHi\n", id="fm"),
        pytest.param(
            "---\nagent_doc_format: inline\n---\n# T\n\n## User\n\nQ\n\n## Assistant\n\nA\n",
            id="preamble",
        ),
    ],
)
def test_convert_round_trip_restores_inline_document(original: str) -> None:
    template = convert_to_template(original)
    assert convert_to_inline(template) == original


def test_convert_to_inline_strips_markers_heading_and_boundary() -> None:
    text = (
        "---\nagent_doc_format: template\n---\n# T\n\n<!-- agent:status -->\nok\n"
        "<!-- /agent:status -->\n\n## Exchange\n\n<!-- agent:exchange -->\nQ\n"
        "<!-- agent:boundary:1234abcd -->\n<!-- /agent:exchange -->\n"
        "```\n<!-- agent:boundary:keep -->\n```\n"
    )
    out = convert_to_inline(text)
    assert out == (
        "---\nagent_doc_format: inline\n---\n# T\n\nok\n\nQ\n"
        "```\n<!-- agent:boundary:keep -->\n```\n"
    )


def test_convert_to_inline_keeps_unrelated_exchange_heading() -> None:
    text = (
        "## Exchange\n\nrates\n\n<!-- agent:exchange -->\nQ\n<!-- /agent:exchange -->\n"
    )
    out = convert_to_inline(text)
    assert "## Exchange\n\nrates\n\nQ\n" in out


@pytest.mark.parametrize(
    ("before", "kwargs", "fields"),
    [
        pytest.param(
            "", {"format": "inline"}, {"agent_doc_format": "inline"}, id="new"
        ),
        pytest.param(
            "---\nagent_doc_format: inline\n---\nbody\n",
            {"format": "append"},
            {"agent_doc_format": "inline"},
            id="append-alias",
        ),
        pytest.param(
            "---\nagent_doc_mode: stream\n---\nbody\n",
            {},
            {"agent_doc_format": "template", "agent_doc_write": "crdt"},
            id="migrate-stream",
        ),
        pytest.param(
            "---\nresponse_mode: append\n---\nbody\n",
            {"write": "merge"},
            {"agent_doc_format": "inline", "agent_doc_write": "merge"},
            id="migrate-alias-and-set-write",
        ),
        pytest.param(
            "---\nagent_doc_mode: append\nagent_doc_format: template\n---\nbody\n",
            {},
            {"agent_doc_format": "template"},
            id="explicit-wins-over-deprecated",
        ),
    ],
)
def test_set_mode(before: str, kwargs: dict[str, str], fields: dict[str, str]) -> None:
    out = set_mode(before, **kwargs)
    raw = parse_frontmatter(out).raw
    assert {k: v for k, v in raw.items() if k.startswith("agent_doc_")} == fields
    assert not {"agent_doc_mode", "mode", "response_mode"} & set(raw)
    if before:
        assert out.endswith("---\nbody\n")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"format": "stream"}, "invalid format 'stream'", id="format"),
        pytest.param({"write": "git"}, "invalid write strategy 'git'", id="write"),
    ],
)
def test_set_mode_rejects_unknown_values(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(FrontmatterError, match=message):
        set_mode("body\n", **kwargs)


# -- build_content_ours picks the write form from the baseline's frontmatter -----------


def test_build_content_ours_inline_document() -> None:
    base = "---\nagent_doc_format: inline\n---\n## User\n\nHello\n"
    assert (
        build_content_ours(base, "Hi!", {})
        == base + "## Assistant\n\nHi!\n\n## User\n\n"
    )


def test_build_content_ours_template_document() -> None:
    base = (
        "<!-- agent:status -->\nold\n<!-- /agent:status -->\n"
        "<!-- agent:exchange -->\nQ\n<!-- /agent:exchange -->\n"
    )
    response = "<!-- patch:status -->\nnew\n<!-- /patch:status -->\nAnswer."
    out = build_content_ours(
        base,
        response,
        {"status": ComponentConfig(mode="append")},
        boundary_id="abcd0123",
    )
    assert out == (
        "<!-- agent:status -->\nold\nnew\n<!-- /agent:status -->\n"
        "<!-- agent:exchange -->\nQ\nAnswer.\n<!-- agent:boundary:abcd0123 -->\n"
        "<!-- /agent:exchange -->\n"
    )


def test_build_content_ours_deprecated_append_mode_is_inline() -> None:
    base = "---\nagent_doc_mode: append\n---\n## User\n\nHello\n"
    assert build_content_ours(base, "<!-- patch:x -->y<!-- /patch:x -->", {}).endswith(
        "## Assistant\n\n<!-- patch:x -->y<!-- /patch:x -->\n\n## User\n\n"
    )


@pytest.mark.parametrize(
    ("base", "response"),
    [
        pytest.param(
            "<!-- agent:exchange -->\n<!-- /agent:exchange -->\n", "  \n", id="blank"
        ),
        pytest.param(
            "<!-- agent:exchange -->\n<!-- /agent:exchange -->\n",
            "<!-- patch:x -->\n",
            id="unclosed-opener-only",
        ),
        pytest.param("---\nagent_doc_format: inline\n---\n", "\n\n", id="inline-blank"),
    ],
)
def test_build_content_ours_empty_response(base: str, response: str) -> None:
    with pytest.raises(PatchError, match="empty response — nothing to write"):
        build_content_ours(base, response, {})
