"""The commit's "nothing to commit" check on the snapshot's and HEAD's bytes
gives what the check on their texts gives (HEAD with CRLF, a BOM, bad bytes,
``(HEAD)`` and boundary markers, fences; random edits)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.cycle.commit import _same_answer
from agent_doc.cycle.commit import _same_answer_data
from agent_doc.cycle.gitcommit import head_text_of

PIECES = [
    b"## User\n\n", b"Turn 3: caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x9a\x80\n", b"\n\n",
    b"<!-- agent:exchange patch=append -->\n", b"<!-- /agent:exchange -->\n",
    b"<!-- agent:boundary:0a1b2c3d -->\n", b"<!-- agent:boundary:99 -->\n",
    b"### Re: x (HEAD)\n", b"### Re: x\n", b"```\n", b"<!--\n", b"-->\n",
    b"para\n", b"\r\n", b"\xef\xbb\xbf", b"\xff", b"\xe2\x80\xa8\n", b"`code`\n",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=40).map(b"".join)


@settings(max_examples=1500, deadline=None)
@given(snapshot=texts, head=texts, edits=st.lists(st.sampled_from(PIECES), max_size=3))
def test_bytes_check_is_the_text_check(
    snapshot: bytes, head: bytes, edits: list[bytes]
) -> None:
    snapshot = snapshot.decode("utf-8", "replace").encode(
        "utf-8"
    )  # the snapshot is valid
    for other in (head, snapshot + b"".join(edits), b"".join(edits) + snapshot):
        expected = _same_answer(snapshot.decode("utf-8"), head_text_of(other))
        assert _same_answer_data(snapshot, other) is expected


def test_markers_only_is_nothing_to_commit() -> None:
    snap = b"# T\n\n### Re: x (HEAD)\n\nbody\n<!-- agent:boundary:ab -->\n" * 3000
    head = b"# T\n\n### Re: x\n\nbody\n" * 3000
    assert _same_answer_data(snap, head) is True
    assert _same_answer_data(snap + b"more\n", head) is False
