"""``apply_patches`` takes two short cuts; both give what the full steps give.

* a response without blocks lands at the end of ``exchange`` with one copy of
  the document (``_answer_at_end``) instead of a boundary put there first;
* it returns early when its last steps would change nothing (``_already_final``).

The oracle is the same call with both disabled: it puts the boundary at the
end of ``exchange``, routes the text there, removes the boundaries,
de-duplicates, trims and puts the boundary back every time (as before issue 17).
"""

from __future__ import annotations

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document import apply as apply_module
from agent_doc.document.apply import PatchBlock
from agent_doc.document.apply import apply_patches
from agent_doc.document.boundary import reposition_boundary_to_end
from agent_doc.document.component_config import ComponentConfig
from agent_doc.errors import AgentDocError

LINE = st.sampled_from(
    [
        "a",
        "a",
        "b",
        "",
        "",
        " ",
        "```",
        "~~~",
        "`x",
        "y`",
        "<!-- c -->",
        "<!--",
        "-->",
        "# H",
        "<!-- agent:boundary:0ld0ld00 -->",
        "\u2028",
        "❯",
    ]
)
LINES = st.lists(LINE, max_size=6).map(lambda xs: "".join(x + "\n" for x in xs))


@st.composite
def cases(
    draw: st.DrawFn,
) -> tuple[str, list[PatchBlock], str, dict[str, ComponentConfig]]:
    head = draw(
        st.sampled_from(
            [
                "",
                "# T\n",
                "<!-- agent:status -->\nidle\n<!-- /agent:status -->\n",
                "<!-- agent:output -->\nout\n<!-- /agent:output -->\n",
                "---\nagent_doc_format: template\n---\n```\nopen fence\n",
            ]
        )
    )
    opener = draw(
        st.sampled_from(
            [
                "<!-- agent:exchange -->",
                "<!-- agent:exchange max_lines=3 -->",
                "<!-- agent:exch -->",
            ]
        )
    )
    body = draw(LINES) + draw(st.sampled_from(["", "\n", "\n\n"]))
    tail = draw(
        st.sampled_from(
            [
                "",
                "after\n",
                "<!-- agent:log -->\nx\n<!-- /agent:log -->\n",
                "<!-- agent:output -->\n<!-- /agent:output -->\n",
                "<!-- /agent:stray -->\n",
            ]
        )
    )
    closer = "<!-- /agent:exch -->" if "exch " in opener else "<!-- /agent:exchange -->"
    doc = f"{head}{opener}\n{body}{closer}\n{tail}"
    blocks = [
        PatchBlock(name, draw(LINES))
        for name in draw(
            st.lists(st.sampled_from(["exchange", "status", "log", "nope"]), max_size=2)
        )
    ]
    unmatched = draw(LINES).strip("\n")
    configs = draw(st.sampled_from([{}, {"log": ComponentConfig(max_lines=1)}]))
    return doc, blocks, unmatched, configs


def _outcome(
    doc: str,
    blocks: list[PatchBlock],
    unmatched: str,
    configs: dict[str, ComponentConfig],
) -> str:
    try:
        return apply_patches(doc, blocks, unmatched, configs, "b0b0b0b0")
    except AgentDocError as exc:
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=600, deadline=None)
@given(cases())
@example(  # a U+2028 in the person's lines: the full steps protected the wrong line
    ("<!-- agent:exchange -->\na\n\u2028\na\n<!-- /agent:exchange -->\n", [], "a", {})
)
def test_early_return_gives_what_the_full_steps_give(
    case: tuple[str, list[PatchBlock], str, dict[str, ComponentConfig]],
) -> None:
    fast = _outcome(*case)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(apply_module, "_already_final", lambda *args: False)
        patch.setattr(apply_module, "_answer_at_end", lambda *args: None)
        full = _outcome(*case)
    assert fast == full


def test_a_plain_answer_takes_the_early_return() -> None:
    doc = "<!-- agent:exchange -->\nQ?\n<!-- /agent:exchange -->\n"
    out = apply_patches(doc, [], "A.", {}, "b0b0b0b0")
    assert out == (
        "<!-- agent:exchange -->\nQ?\nA.\n<!-- agent:boundary:b0b0b0b0 -->\n"
        "<!-- /agent:exchange -->\n"
    )
    assert apply_module._already_final(out, {}, "b0b0b0b0", apply_module._Protected(1))


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            "Q?\n\n<!-- agent:boundary:b0b0b0b0 -->\n", id="blank-line-before"
        ),
        pytest.param("<!-- agent:boundary:b0b0b0b0 -->\nQ?\n", id="not-last"),
        pytest.param("Q?\n<!-- agent:boundary:other -->\n", id="other-id"),
        pytest.param("Q?\n  <!-- agent:boundary:b0b0b0b0 -->\n", id="indented"),
    ],
)
def test_a_boundary_off_its_place_is_not_final(body: str) -> None:
    doc = f"<!-- agent:exchange -->\n{body}<!-- /agent:exchange -->\n"
    assert not apply_module._already_final(
        doc, {}, "b0b0b0b0", apply_module._Protected(0)
    )
    assert reposition_boundary_to_end(doc, "b0b0b0b0") != doc


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("Q?\n", id="after-text"),
        pytest.param("Q?\n\n\n", id="after-blank-lines"),
        pytest.param("", id="empty-exchange"),
        pytest.param("<!-- note -->\n", id="after-comment"),
    ],
)
def test_a_heading_answer_is_separated_as_by_the_full_steps(body: str) -> None:
    doc = f"# T\n<!-- agent:exchange -->\n{body}<!-- /agent:exchange -->\n"
    case = (doc, [], "### Re: Q\n\nA.", {})
    fast = _outcome(*case)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(apply_module, "_already_final", lambda *args: False)
        patch.setattr(apply_module, "_answer_at_end", lambda *args: None)
        full = _outcome(*case)
    assert fast == full
    assert "### Re: Q" in fast
