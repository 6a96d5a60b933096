"""The prompt's two forms, its size, and the excerpts of a resumed turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.cycle.prompt import turn_prompt
from agent_doc.cycle.prompt import turn_prompt_size
from agent_doc.cycle.prompt import utf8_length
from agent_doc.document import excerpt
from agent_doc.document.excerpt import common_prefix
from agent_doc.document.excerpt import resumed_context
from agent_doc.document.frontmatter import parse_frontmatter

DOC = (
    "---\nagent_doc_format: template\nresume: s1\n---\n# Plan\n\n"
    "<!-- agent:status patch=replace -->\nidle\n<!-- /agent:status -->\n\n"
    "<!-- agent:notes patch=replace -->\nkeep\n<!-- /agent:notes -->\n\n"
    "<!-- agent:exchange patch=append -->\n## User\n\nOldest question?\n"
    "### Re: old\n\nOld answer.\nNewer question?\n### Re: newer\n\nNewer answer.\n"
    "<!-- /agent:exchange -->\n"
)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(DOC, id="template"),
        pytest.param(DOC.replace("Old answer.", "Olé — ünïcode ✓"), id="non-ascii"),
        pytest.param(DOC + "\n\n\n", id="trailing-newlines"),
        pytest.param(DOC.replace("resume: s1\n", ""), id="first-turn"),
    ],
)
@pytest.mark.parametrize("snapshot", [None, DOC])
@pytest.mark.parametrize("resumed_ok", [False, True])
def test_prompt_size_is_the_built_prompt_size(
    tmp_path: Path, text: str, snapshot: str | None, resumed_ok: bool
) -> None:
    front = parse_frontmatter(text)
    doc = tmp_path / "plan.md"
    built, mode, _ = turn_prompt(
        doc, tmp_path, text, snapshot, "-a\n+b", front=front, resumed_ok=resumed_ok
    )
    size, size_mode = turn_prompt_size(
        doc, tmp_path, text, snapshot, "-a\n+b", front=front, resumed_ok=resumed_ok
    )
    assert (size, size_mode) == (utf8_length(built), mode)
    resumed = resumed_ok and snapshot is not None and front.resume is not None
    assert mode == ("resumed" if resumed else "full")
    assert ("<document>" in built) is not resumed


def test_common_prefix_across_chunks() -> None:
    a = "x" * 200_000 + "a" + "tail"
    assert common_prefix(a, "x" * 200_000 + "b") == 200_000
    assert common_prefix(a, a) == len(a)
    assert common_prefix("", a) == 0


def test_excerpts_hold_touched_components_and_the_exchange_tail() -> None:
    now = DOC.replace("idle", "busy").replace(
        "<!-- /agent:exchange -->", "Latest question?\n<!-- /agent:exchange -->"
    )
    found = resumed_context(DOC, now)
    assert '<excerpt component="status"' in found
    assert "busy" in found
    assert "notes" not in found  # untouched
    assert "### Re: newer" in found  # the answer above the change
    assert "Latest question?" in found
    assert "Oldest question?" not in found
    assert "### Re: old" not in found
    first = now.count("\n", 0, now.index("### Re: newer")) + 1
    assert f'component="exchange" lines="{first}-' in found


def test_a_long_tail_is_cut_in_the_middle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(excerpt, "TAIL_LIMIT", 200)
    monkeypatch.setattr(excerpt, "BEFORE_CHANGE", 10_000)
    body = "".join(f"line {i}\n" for i in range(500))
    old = DOC.replace("Newer answer.\n", "Newer answer.\n" + body)
    now = old.replace("line 3\n", "line 3 edited\n")
    found = resumed_context(old, now)
    assert "line 3 edited" in found
    assert "characters you already have are not repeated" in found
    assert "line 499" in found  # the end, where the answer lands
    assert "line 250" not in found
