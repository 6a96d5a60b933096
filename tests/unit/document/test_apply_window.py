"""content_ours built on the document's UTF-8 around its markers is exactly the
plain ``build_content_ours`` (random session documents and responses: fences,
comments, code spans, boundaries, line limits, non-ASCII, other line breaks),
and the write path through it leaves the same files as the plain path."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import event
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document import apply_window
from agent_doc.document.apply import build_content_ours
from agent_doc.document.apply_window import block_warnings_utf8
from agent_doc.document.apply_window import ours_utf8
from agent_doc.document.apply_window import stretches
from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.patch_blocks import patch_block_warnings
from agent_doc.errors import AgentDocError
from agent_doc.store.state import StateStore
from agent_doc.write.pipeline import WriteRequest
from agent_doc.write.pipeline import write_response
from bench._long_docs import conversation

HEADS = [
    "", "---\nagent_doc_session: s1\n---\n", "---\nagent_doc_format: inline\n---\n",
    "---\nagent_doc_session: s1\nagent_doc_format: template\n---\n\n# Title\n\n",
]  # fmt: skip
PIECES = [
    "## User\n\n", "Turn 3: what changes — and why?\n", "\n", "\n\n", "\n\n\n",
    "<!-- agent:exchange patch=append -->\n", "<!-- /agent:exchange -->\n",
    "<!-- agent:status patch=replace -->\nidle\n<!-- /agent:status -->\n",
    "<!-- agent:log max_lines=2 -->\na\nb\nc\n<!-- /agent:log -->\n",
    "<!-- agent:output -->\n", "<!-- /agent:output -->\n",
    "<!-- agent:boundary:0a1b2c3d -->\n", "<!-- a note -->\n", "text <!-- tail -->\n",
    "<!-- open\nacross\n\nlines -->\n", "<!--\n", "-->\n", "```python\n", "```\n",
    "~~~\n", "    indented <!-- x -->\n", "`code <!-- agent:status -->` and `` `t` ``\n",
    "- item `a\n", "b` c\n", "# Heading\n", "### Re: the parser\n", "café → 🚀 é\n",
    "para line one\n", "para line one\n", "| a | b |\n", "\u2028sep\n", "\x0cform\n",
    "> quote\n", "`\n", "❯\n", "<!--\nagent:status -->\n", "agent: x\n",
]  # fmt: skip
ANSWERS = [
    "<!-- patch:exchange -->\n### Re: x\n\nA short answer.\n<!-- /patch:exchange -->\n",
    "<!-- patch:status -->\nbusy\n<!-- /patch:status -->\n",
    "<!-- patch:log -->\nd\n<!-- /patch:log -->\n",
    "<!-- patch:output -->\nout\n<!-- /patch:output -->\n",
    "<!-- patch:nowhere -->\nlost\n<!-- /patch:nowhere -->\n",
    "<!-- patch:frontmatter -->\nmodel: opus\n<!-- /patch:frontmatter -->\n",
    "<!-- patch:exchange -->\npara line one\n<!-- /patch:exchange -->\n",
    "<!-- patch:exchange -->\n```\nopen fence\n<!-- /patch:exchange -->\n",
    "<!-- patch:exchange -->\nunclosed\n", "Unmatched text.\n", "# A heading\n",
    "para line one\n", "❯\n", "café 🚀\n",
]  # fmt: skip
CONFIGS: list[dict[str, ComponentConfig]] = [
    {}, {"exchange": ComponentConfig(mode="replace")},
    {"status": ComponentConfig(mode="append")}, {"log": ComponentConfig(max_lines=1)},
    {"exchange": ComponentConfig(mode="prepend")},
]  # fmt: skip

PROSE = [p for p in PIECES if not any(x in p for x in ("agent:", "<!--", "```", "~~"))]
"""Pieces without a marker, drawn more often (a conversation is mostly text)."""
pieces = st.lists(st.sampled_from(PIECES + PROSE * 6), max_size=80).map("".join)
documents = st.one_of(
    st.builds(lambda head, body: head + body, st.sampled_from(HEADS), pieces),
    st.builds(  # a session document: the conversation inside ``exchange``
        lambda head, top, body, end, tail: (
            f"{head}{top}<!-- agent:exchange patch=append -->\n{body}{end}"
            f"<!-- /agent:exchange -->\n{tail}"
        ),
        st.sampled_from(HEADS),
        st.sampled_from(["", PIECES[7], PIECES[8]]),
        pieces,
        st.sampled_from(["", "<!-- agent:boundary:0a1b2c3d -->\n", "Typed.\n"]),
        st.sampled_from(["", "\n", "After.\n"]),
    ),
)
responses = st.lists(st.sampled_from(ANSWERS), min_size=1, max_size=3).map("".join)


def _plain(text: str, response: str, configs: dict[str, ComponentConfig]) -> str | None:
    try:
        return build_content_ours(text, response, configs, boundary_id="feedbeef")
    except AgentDocError:
        return None


@settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    text=documents,
    response=responses,
    configs=st.sampled_from(CONFIGS),
    sizes=st.tuples(st.integers(1, 40), st.integers(0, 24)),
)
def test_window_is_the_plain_content_ours(
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    response: str,
    configs: dict[str, ComponentConfig],
    sizes: tuple[int, int],
) -> None:
    monkeypatch.setattr(apply_window, "WINDOW_FROM", 0)
    monkeypatch.setattr(apply_window, "_STRETCH", sizes[0])
    monkeypatch.setattr(apply_window, "_MARGIN", sizes[1])
    data = text.encode("utf-8")
    plain = _plain(text, response, configs)
    got = ours_utf8(data, response, configs, boundary_id="feedbeef")
    event("window" if got is not None else "plain path")
    if got is not None:
        assert plain is not None  # an error is always the plain path's to raise
        assert got.join() == plain.encode("utf-8")
        assert got.text() == plain
        assert got.head(7) == plain.encode("utf-8")[:7]
    for start, end in stretches(data):  # no marker in a stretch
        assert not re.search(rb"<!--[ \t]*/?agent:", data[start:end])
    assert block_warnings_utf8(response, data) == patch_block_warnings(response, text)


def test_a_document_holding_its_placeholder_takes_the_plain_path() -> None:
    """The placeholder's token is fixed (the document layer draws no random
    numbers): a document that holds one — or any NUL — is left to the plain
    path, which refuses or handles it, never a stretch put back wrongly."""
    text = "".join(conversation(120, "s1"))
    placeholder = "\0agent-doc-stretch-0\0\n\n"
    at = text.index("## User")
    forged = (text[:at] + placeholder + text[at:]).encode("utf-8")
    assert ours_utf8(forged, ANSWERS[0], {}, boundary_id="feedbeef") is None


@pytest.mark.parametrize("turns", [70, 120])
@pytest.mark.parametrize("response", ANSWERS)
def test_long_conversation_takes_the_window(turns: int, response: str) -> None:
    text = "".join(conversation(turns, "s1"))
    data = text.encode("utf-8")
    assert len(data) > apply_window.WINDOW_FROM
    got = ours_utf8(data, response, {}, boundary_id="feedbeef")
    plain = _plain(text, response, {})
    if "patch:frontmatter" in response:  # the plain path's (it may log)
        assert got is None
        return
    assert got is not None
    assert plain is not None
    assert got.join() == plain.encode("utf-8")
    assert len(got.window) < len(text) // 10  # only the text around the markers
    assert block_warnings_utf8(response, data) == patch_block_warnings(response, text)


def _write(
    root: Path, text: str, response: str, window: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[bytes, bytes | None, bytes | None, bool]:
    if not window:
        monkeypatch.setattr(apply_window, "WINDOW_FROM", 1 << 62)
    root.mkdir()
    (root / ".agent-doc").mkdir()
    doc = root / "doc.md"
    doc.write_bytes(text.encode("utf-8"))
    request = WriteRequest(doc, response, force_disk=True, answer_id="feedbeef")
    outcome = write_response(request, None)
    store = StateStore(root)
    assert outcome.content_ours == store.load_snapshot(doc)
    assert outcome.final_text == doc.read_text("utf-8")
    monkeypatch.undo()
    return (
        doc.read_bytes(),
        store.load_snapshot_bytes(doc),
        store.crdt_path(doc).read_bytes(),
        outcome.changed,
    )


@pytest.mark.parametrize("response", ANSWERS[:6])
def test_write_through_the_window_leaves_the_plain_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, response: str
) -> None:
    text = "".join(conversation(80, "s1"))
    plain = _write(tmp_path / "plain", text, response, False, monkeypatch)
    window = _write(tmp_path / "window", text, response, True, monkeypatch)
    assert window == plain


def _write_typed_meanwhile(
    root: Path, text: str, window: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[bytes, bytes | None]:
    """A write during which the person types a line at the end of the exchange
    (after content_ours is built, before the document lock)."""
    from agent_doc.write import pipeline

    root.mkdir()
    (root / ".agent-doc").mkdir()
    doc = root / "doc.md"
    doc.write_bytes(text.encode("utf-8"))

    def typed() -> None:
        now = doc.read_text("utf-8")
        at = now.rindex("<!-- /agent:exchange -->")
        doc.write_text(now[:at] + "Typed meanwhile.\n" + now[at:], "utf-8")

    if window:
        built = pipeline.ours_utf8

        def then_typed(*args: object, **kwargs: object) -> object:
            ours = built(*args, **kwargs)  # type: ignore[arg-type]
            assert ours is not None
            typed()
            return ours

        monkeypatch.setattr(pipeline, "ours_utf8", then_typed)
    else:
        monkeypatch.setattr(apply_window, "WINDOW_FROM", 1 << 62)
        plain = pipeline.build_content_ours

        def plain_then_typed(*args: object, **kwargs: object) -> str:
            ours = plain(*args, **kwargs)  # type: ignore[arg-type]
            typed()
            return ours

        monkeypatch.setattr(pipeline, "build_content_ours", plain_then_typed)
    outcome = write_response(
        WriteRequest(doc, ANSWERS[0], force_disk=True, answer_id="feedbeef"), None
    )
    monkeypatch.undo()
    assert outcome.merged
    assert "Typed meanwhile." in doc.read_text("utf-8")
    return doc.read_bytes(), StateStore(root).load_snapshot_bytes(doc)


def test_a_line_typed_during_the_write_is_merged_as_on_the_plain_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "".join(conversation(80, "s1"))
    plain = _write_typed_meanwhile(tmp_path / "plain", text, False, monkeypatch)
    window = _write_typed_meanwhile(tmp_path / "window", text, True, monkeypatch)
    assert window == plain
