"""A disk write merges the files' UTF-8 as it is, and lands what the text merge would.

``agent-doc write --baseline-file B`` on a large document the user edited since
``B`` merges the bytes of ``B``, content_ours and the file
(:mod:`agent_doc.document.merge_utf8`). These tests compare the file, the
snapshot, the CRDT state and the ``post_write`` event with what the same write
gives through the ``str`` merge (a baseline passed as text takes that path).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_doc.automation.lifecycle import write_with_hooks
from agent_doc.document import merge as merge_module
from agent_doc.document.frontmatter_text import frontmatter_end_utf8
from agent_doc.document.frontmatter_text import split_frontmatter
from agent_doc.document.merge_utf8 import MergedUTF8
from agent_doc.errors import DocumentError
from agent_doc.errors import FrontmatterError
from agent_doc.store import docfile
from agent_doc.store.state import StateStore
from agent_doc.write.outcome import WriteOutcome
from agent_doc.write.pipeline import WriteRequest
from agent_doc.write.pipeline import run_write
from agent_doc.write.pipeline import write_response

HEAD = "---\nagent_doc_session: s-utf8\n---\n# Big\n\n<!-- agent:exchange -->\n"
ANSWER = "### Re: the question\n\nThe answer, with é and 😀.\n"


def big_session(turns: int = 2000) -> str:
    """A ~110 KB template session whose exchange holds emoji on every line."""
    body = "".join(
        f"### Re: q{i}\n\nTurn {i}: prose é and 😀 here.\n\n" for i in range(turns)
    )
    return HEAD + body + "Last question?\n<!-- /agent:exchange -->\n"


def user_edited(text: str) -> str:
    """The user typed in three places far apart since the baseline."""
    out = text.replace("Turn 10: prose", "Turn 10: user typed 😀 prose")
    out = out.replace("Turn 500: prose", "Turn 500: user edit")
    return out.replace("Last question?\n", "Last question?\nand a follow-up é\n")


def write_both_ways(
    project: Path, baseline: str, current: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Path]:
    """The same write through the UTF-8 merge (``--baseline-file``) and through
    the text merge (the baseline as a string): the two documents."""
    import agent_doc.write.pipeline as pipeline

    # the same marker: an answer lands with its id as the boundary's
    monkeypatch.setattr(pipeline, "new_answer_id", lambda: "b0b0b0b0")
    docs = []
    for name, by_file in (("bytes.md", True), ("text.md", False)):
        doc = project / name
        doc.write_text(current, "utf-8")
        (project / "baseline.md").write_text(baseline, "utf-8")
        if by_file:
            run_write(doc, ANSWER, baseline_file=project / "baseline.md",
                      force_disk=True)  # fmt: skip
        else:
            write_response(WriteRequest(doc, ANSWER, baseline, force_disk=True))
        docs.append(doc)
    return docs[0], docs[1]


def test_utf8_merge_writes_what_the_text_merge_writes(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    baseline = big_session()
    assert len(baseline) >= merge_module.WINDOWS_FROM
    current = user_edited(baseline)
    by_bytes, by_text = write_both_ways(project, baseline, current, monkeypatch)
    merged = by_bytes.read_text("utf-8")
    assert by_bytes.read_bytes() == by_text.read_bytes()
    for kept in ("user typed 😀", "user edit", "and a follow-up é", "with é and 😀"):
        assert merged.count(kept) == 1, kept
    store = StateStore(project)
    assert store.load_crdt(by_bytes) == merge_module.encode_text_state(merged)
    assert store.load_snapshot(by_bytes) == store.load_snapshot(by_text)
    assert "user edit" not in (store.load_snapshot(by_bytes) or "")
    assert store.load_pending(by_bytes) is None


def test_the_outcome_decodes_the_merged_bytes_only_when_read(project: Path) -> None:
    baseline = big_session()
    doc = project / "doc.md"
    doc.write_text(user_edited(baseline), "utf-8")
    (project / "baseline.md").write_text(baseline, "utf-8")
    out = run_write(doc, ANSWER, baseline_file=project / "baseline.md", force_disk=True)
    assert out.merged
    assert out.changed
    assert not isinstance(out._final, str)  # still UTF-8 (the merge's parts)
    assert out.final_start() == HEAD[: HEAD.index("# Big")]
    assert out.final_text == doc.read_text("utf-8")
    assert out._asdict()["final_text"] == out.final_text
    assert out == WriteOutcome(**out._asdict())  # type: ignore[arg-type]


def test_post_write_event_names_the_session_of_the_merged_file(project: Path) -> None:
    baseline = big_session()
    doc = project / "doc.md"
    doc.write_text(user_edited(baseline), "utf-8")
    (project / "baseline.md").write_text(baseline, "utf-8")
    write_with_hooks(doc, ANSWER, baseline_file=project / "baseline.md",
                     force_disk=True)  # fmt: skip
    events = list((project / ".agent-doc" / "hooks" / "post_write").glob("*.json"))
    assert [json.loads(e.read_text())["session"] for e in events] == ["s-utf8"]


def test_a_stale_boundary_in_the_file_still_leaves_one_marker(project: Path) -> None:
    baseline = big_session()
    stale = "<!-- agent:boundary:0ld0ld00 -->\n"
    current = user_edited(baseline).replace(
        "Last question?\n", stale + "Last question?\n"
    )
    doc = project / "doc.md"
    doc.write_text(current, "utf-8")
    (project / "baseline.md").write_text(baseline, "utf-8")
    run_write(doc, ANSWER, baseline_file=project / "baseline.md", force_disk=True)
    text = doc.read_text("utf-8")
    assert text.count("<!-- agent:boundary:") == 1
    assert "0ld0ld00" not in text
    assert "user edit" in text


@pytest.mark.parametrize(
    "text",
    [
        "no frontmatter\n---\nx\n",
        "---\na: 1\n---\nbody é\n",
        "---\na: é😀\n---\n",
        "---\nunclosed: 1\n",
        "---\na: 1\n---",
    ],
)
def test_frontmatter_end_in_utf8_matches_the_text_split(text: str) -> None:
    data = text.encode()
    end = frontmatter_end_utf8(data)
    try:
        block = split_frontmatter(text)
    except FrontmatterError:  # unclosed: all of the text is read
        assert end == len(data)
        return
    if block is None:
        assert end == 0
    else:
        assert data[:end].decode() == text[: block.end] or end == len(data)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (b"\xff\xfe broken\n", "not valid UTF-8 \\(line 3\\)"),
        (b"nul \x00 here\n", "NUL byte on line 3"),
    ],
    ids=["not-utf8", "nul"],
)
def test_a_damaged_file_is_refused_before_any_state(
    project: Path, damage: bytes, message: str
) -> None:
    baseline = big_session()
    lines = user_edited(baseline).encode().split(b"\n")
    data = b"\n".join([*lines[:2], damage.rstrip(b"\n"), *lines[2:]])
    doc = project / "doc.md"
    doc.write_bytes(data)
    (project / "baseline.md").write_text(baseline, "utf-8")
    with pytest.raises(DocumentError, match=message):
        run_write(doc, ANSWER, baseline_file=project / "baseline.md", force_disk=True)
    assert doc.read_bytes() == data
    store = StateStore(project)
    assert store.load_pending(doc) is None
    assert store.load_snapshot(doc) is None


def test_a_character_across_the_check_chunks_is_valid(project: Path) -> None:
    before = len(HEAD[: HEAD.index("# Big\n") + 6].encode())
    filler = "x" * (docfile._CHECK_CHUNK - 2 - before) + "😀\n"
    baseline = big_session().replace("# Big\n", "# Big\n" + filler)
    at = baseline.encode().index("😀".encode())
    assert at < docfile._CHECK_CHUNK < at + 4  # the emoji straddles two chunks
    doc = project / "doc.md"
    doc.write_text(user_edited(baseline), "utf-8")
    (project / "baseline.md").write_text(baseline, "utf-8")
    out = run_write(doc, ANSWER, baseline_file=project / "baseline.md", force_disk=True)
    assert out.merged
    assert not isinstance(out._final, str)  # the UTF-8 path took it
    assert filler in doc.read_text("utf-8")


def test_a_crlf_file_merges_on_the_text_and_stays_crlf(project: Path) -> None:
    baseline = big_session()
    doc = project / "doc.md"
    doc.write_bytes(user_edited(baseline).replace("\n", "\r\n").encode())
    (project / "baseline.md").write_text(baseline, "utf-8")
    out = run_write(doc, ANSWER, baseline_file=project / "baseline.md", force_disk=True)
    data = doc.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n")
    assert out.final_text == data.decode().replace("\r\n", "\n")
    assert "user edit" in out.final_text
    assert "with é and 😀" in out.final_text


def test_final_start_reads_a_frontmatter_across_the_merge_s_parts() -> None:
    body = "".join(f"line {i} 😀\n" for i in range(5000)).encode()
    base = b"---\nsession: old\nagent_doc_format: template\n---\n" + body
    at = base.index(b"agent_doc_format")
    parts: list[bytes | range] = [b"---\nsession: new\n", range(at, len(base))]
    final = MergedUTF8(base, parts)
    out = WriteOutcome(Path("d.md"), "", final, "disk", changed=True, merged=True)
    assert out.final_start() == "---\nsession: new\nagent_doc_format: template\n---\n"
    assert out.final_text == b"".join(final.pieces()).decode()
    none = WriteOutcome(
        Path("d.md"), "", MergedUTF8(body, [range(len(body))]), "disk", True
    )
    assert none.final_start() == ""
