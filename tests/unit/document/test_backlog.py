"""The backlog's items: the transition matrix, ids, tidy, and merges."""

from __future__ import annotations

import itertools

import pytest

from agent_doc.document.backlog import DONE
from agent_doc.document.backlog import GATED
from agent_doc.document.backlog import OPEN
from agent_doc.document.backlog import item_ids
from agent_doc.document.backlog import parse_item_line
from agent_doc.document.backlog import reordered
from agent_doc.document.backlog import split_items
from agent_doc.document.backlog import tidy_items
from agent_doc.document.backlog_ops import BacklogOp
from agent_doc.document.backlog_ops import apply_op
from agent_doc.document.backlog_ops import apply_to_document
from agent_doc.document.backlog_ops import refuse_item_list_blocks
from agent_doc.document.merge import merge_texts
from agent_doc.errors import ComponentNotFound
from agent_doc.errors import PatchError

# every (op, from state) pair: the state it goes to, or None (refused)
MATRIX = {
    ("done", OPEN): DONE,
    ("done", GATED): DONE,
    ("done", DONE): DONE,
    ("gate", OPEN): GATED,
    ("gate", GATED): GATED,
    ("gate", DONE): None,
    ("ungate", OPEN): None,
    ("ungate", GATED): OPEN,
    ("ungate", DONE): None,
}


def states(content: str) -> dict[str, str | None]:
    return {item.id or "": item.state for item in split_items(content)[1]}


@pytest.mark.parametrize(("op", "state"), sorted(MATRIX))
def test_the_transition_matrix(op: str, state: str) -> None:
    content = f"\n- [{state}] [#t1] the item\n  a detail\n- [ ] [#t2] another\n"
    expected = MATRIX[(op, state)]
    if expected is None:
        with pytest.raises(PatchError, match=f"cannot {op} an item that is"):
            apply_op(content, BacklogOp(op, id="t1"))
        return
    result = apply_op(content, BacklogOp(op, id="t1"))
    assert states(result.content) == {"t1": expected, "t2": OPEN}
    assert result.changed is (expected != state)
    assert "  a detail\n" in result.content  # the item's lines go with it
    if MATRIX[(op, expected)] is None:  # ungate twice: the second is refused
        with pytest.raises(PatchError):
            apply_op(result.content, BacklogOp(op, id="t1"))
    else:  # idempotent by id
        assert apply_op(result.content, BacklogOp(op, id="t1")).changed is False


def test_the_matrix_covers_every_pair() -> None:
    pairs = set(itertools.product(["done", "gate", "ungate"], [OPEN, GATED, DONE]))
    assert set(MATRIX) == pairs


def test_an_unknown_id_is_refused() -> None:
    with pytest.raises(PatchError, match=r"no item \[#nope\]"):
        apply_op("- [ ] [#a1] x\n", BacklogOp("done", id="nope"))


def test_add_goes_on_top_with_a_short_id_and_is_idempotent() -> None:
    content = "\n- [ ] [#a1] first\n"
    added = apply_op(content, BacklogOp("add", text="ship it"))
    assert added.content.splitlines()[1] == f"- [ ] [#{added.id}] ship it"
    assert len(added.id or "") == 4
    again = apply_op(added.content, BacklogOp("add", text="ship it"))
    assert (again.changed, again.id) == (False, added.id)
    named = apply_op(added.content, BacklogOp("add", text="id=rel cut a release"))
    assert named.id == "rel"
    assert "- [ ] [#rel] cut a release\n" in named.content
    with pytest.raises(PatchError, match="already another item"):
        apply_op(named.content, BacklogOp("add", text="id=rel something else"))
    line = apply_op(content, BacklogOp("add", text="- [ ] [#ln] a whole line"))
    assert (line.id, line.content.splitlines()[1]) == ("ln", "- [ ] [#ln] a whole line")
    with pytest.raises(PatchError, match="invalid id"):
        apply_op(content, BacklogOp("add", text="x", id="bad id"))
    with pytest.raises(PatchError, match="one non-empty line"):
        apply_op(content, BacklogOp("add", text="two\nlines"))


def test_ids_are_unique_a_longer_one_on_collision() -> None:
    first = apply_op("", BacklogOp("add", text="same"))
    done = apply_op(first.content, BacklogOp("done", id=first.id))
    # the same text again (the first one is done): a new item, a longer id
    second = apply_op(done.content, BacklogOp("add", text="same"))
    assert second.changed
    assert second.id != first.id
    assert (second.id or "").startswith(first.id or "")
    assert len(second.id or "") == 5


def test_ids_stay_across_edit_reorder_and_tidy() -> None:
    content = "".join(
        apply_op("", BacklogOp("add", text="placeholder")).content for _ in range(1)
    )
    for text in ["b", "c", "d"]:
        content = apply_op(content, BacklogOp("add", text=text)).content
    ids = item_ids(content)
    edited = apply_op(content, BacklogOp("edit", id=ids[2], text="renamed"))
    assert item_ids(edited.content) == ids
    assert states(edited.content)[ids[2]] == OPEN
    gated = apply_op(edited.content, BacklogOp("gate", id=ids[2])).content
    kept = apply_op(gated, BacklogOp("edit", id=ids[2], text="renamed again")).content
    assert states(kept)[ids[2]] == GATED  # edit keeps the state
    moved = apply_op(kept, BacklogOp("reorder", ids=(ids[3], ids[1])))
    assert item_ids(moved.content) == [ids[3], ids[1], ids[0], ids[2]]
    assert tidy_items(moved.content).content == moved.content
    assert apply_op(moved.content, BacklogOp("reorder", ids=(ids[3],))).changed is False
    with pytest.raises(PatchError, match="each id once"):
        apply_op(moved.content, BacklogOp("reorder", ids=(ids[0], ids[0])))


def test_clear_removes_done_items_or_every_item() -> None:
    content = "<!-- keep -->\n- [x] [#a] done\n- [/] [#b] gated\n- [ ] [#c] open\n"
    assert apply_op(content, BacklogOp("clear")).content == (
        "<!-- keep -->\n- [/] [#b] gated\n- [ ] [#c] open\n"
    )
    assert apply_op(content, BacklogOp("clear", all=True)).content == "<!-- keep -->\n"


def test_tidy_backfills_ids_and_boxes_and_reaps_only_done() -> None:
    content = (
        "\n- fix the build\n"
        "- [x] [#old1] shipped\n"
        "  with a detail line\n"
        "* [/] [#gate1] waits for the release\n"
        "- [ ] no id yet\n"
        "- id=mine named by the person\n"
        "- [X] [#old2] shipped too\n"
    )
    tidied = tidy_items(content)
    lines = tidied.content.splitlines()
    assert lines[0] == ""
    assert lines[1].startswith("- [ ] [#")
    assert lines[1].endswith("] fix the build")
    assert lines[2] == "- [/] [#gate1] waits for the release"
    assert lines[4] == "- [ ] [#mine] named by the person"
    assert "shipped" not in tidied.content
    assert "detail" not in tidied.content
    assert tidied.reaped == ["old1", "old2"]
    assert len(tidied.backfilled) == 2
    assert (tidied.open, tidied.gated) == (3, 1)
    assert tidy_items(tidied.content).content == tidied.content  # idempotent


def test_a_copied_line_gets_a_new_id() -> None:
    tidied = tidy_items("- [ ] [#a1] one\n- [ ] [#a1] one copied\n")
    assert tidied.order[0] == "a1"
    assert tidied.order[1] != "a1"


def test_both_sides_backfilling_one_bullet_merge_to_one_item_one_id() -> None:
    """The agent's preflight and the person's editor both filled in the same
    new bullet; the CRDT merge keeps each side's insert, the reading picks
    the first id and the next tidy writes one line."""
    base = "\n- [ ] [#a1] old\n- fix the build\n"
    ours = tidy_items(base).content
    theirs = ours  # the same deterministic id on both sides
    merged = merge_texts(base, ours, theirs).text
    items = split_items(merged)[1]
    assert len(items) == 2
    assert tidy_items(merged).content == ours
    # two different ids (a custom one typed by the person): one item, first id
    theirs = base.replace("- fix the build", "- [ ] [#mine] fix the build")
    merged = merge_texts(base, ours, theirs).text
    items = split_items(merged)[1]
    assert [i.text for i in items] == ["old", "fix the build"]
    tidied = tidy_items(merged)
    assert tidied.content.count("fix the build") == 1
    assert tidied.content.count("[#") == 2


def test_concurrent_adds_from_both_sides_keep_both_items_and_ids() -> None:
    base = "\n- [ ] [#a1] old\n"
    ours = apply_op(base, BacklogOp("add", text="the agent's")).content
    theirs = apply_op(base, BacklogOp("add", text="the person's")).content
    merged = merge_texts(base, ours, theirs).text
    tidied = tidy_items(merged)
    assert sorted(i.text for i in split_items(tidied.content)[1]) == [
        "old",
        "the agent's",
        "the person's",
    ]
    assert set(item_ids(ours)) | set(item_ids(theirs)) == set(tidied.order)


def test_repeated_tokens_collapse_first_wins() -> None:
    assert parse_item_line("- [ ] [ ] [#a] [#b] text\n") == (OPEN, "a", "text")
    assert parse_item_line("- [/] [x] [#a] text") == (GATED, "a", "text")
    assert parse_item_line("not a bullet") is None
    assert parse_item_line("  - indented") is None


def test_reorder_detection() -> None:
    assert reordered(["a", "b", "c"], ["b", "a", "c"])
    assert not reordered(["a", "b", "c"], ["new", "a", "c"])  # b done, new added
    assert not reordered([], ["a"])


DOC = "# T\n\n<!-- agent:backlog -->\n- [ ] [#a1] x\n<!-- /agent:backlog -->\n"


def test_document_level_and_the_missing_component() -> None:
    result = apply_to_document(DOC, BacklogOp("done", id="a1"))
    assert "- [x] [#a1] x\n<!-- /agent:backlog -->" in result.content
    with pytest.raises(ComponentNotFound, match="no agent:icebox component"):
        apply_to_document(DOC, BacklogOp("add", text="y"), "icebox")
    with pytest.raises(PatchError, match="not a list of items"):
        apply_to_document(DOC, BacklogOp("add", text="y"), "exchange")


def test_a_whole_list_patch_block_is_refused_with_a_reason() -> None:
    with pytest.raises(PatchError, match="changed item by item, never replaced whole"):
        refuse_item_list_blocks(
            "<!-- patch:backlog -->\n- a\n<!-- /patch:backlog -->\n"
        )
    with pytest.raises(PatchError, match="icebox"):
        refuse_item_list_blocks("<!-- patch:icebox -->\n- a\n<!-- /patch:icebox -->\n")
    refuse_item_list_blocks("<!-- patch:status -->\nok\n<!-- /patch:status -->\n")
    refuse_item_list_blocks("a text that mentions patch:backlog in passing")


def test_two_yjs_peers_backfilling_one_bullet_end_with_one_item() -> None:
    """Two peers of a shared room (real pycrdt documents) fill in the same
    bullet at once: Yjs keeps both inserts; the reading picks one id and the
    next tidy writes the bullet once, on both peers alike."""
    import pycrdt

    base = "\n- [ ] [#a1] old\n- fix the build\n"
    filled = tidy_items(base).content
    token = filled.split("\n")[2].removesuffix("fix the build").removeprefix("- ")
    first = pycrdt.Doc()
    text_a = first.get("t", type=pycrdt.Text)
    text_a += base
    second = pycrdt.Doc()
    second.apply_update(first.get_update())
    text_b = second.get("t", type=pycrdt.Text)
    at = base.index("fix the build")
    text_a.insert(at, token)
    text_b.insert(at, token)
    update_a, update_b = first.get_update(), second.get_update()
    first.apply_update(update_b)
    second.apply_update(update_a)
    merged = str(text_a)
    assert merged == str(text_b)
    assert merged.count(token) == 2  # Yjs kept both inserts
    assert [(i.state, i.id, i.text) for i in split_items(merged)[1]] == [
        (OPEN, "a1", "old"),
        (OPEN, item_ids(filled)[1], "fix the build"),
    ]
    assert tidy_items(merged).content == filled
