"""The outline reuses the entries of unchanged components (issue 17).

Every outline built with reuse equals the one built afresh, through sequences of
random edits of every kind; unchanged components keep their symbol object
(callers cache by identity), edited ones get a new one.
"""

from __future__ import annotations

import random

import pytest

from agent_doc.document.component_config import ComponentConfig
from agent_doc.editor import outline
from agent_doc.editor import outline_parts
from bench._fixtures import structured_document

INSERTS = [
    "x",
    "\n",
    "#",
    "## typed\n",
    "```\n",
    "<!-- agent:part3 -->\n",
    "<!-- /agent:part3 -->",
    "😀",
    "\n<!-- agent:new -->\n# new\n<!-- /agent:new -->\n",
    " patch=append ",
    " #",
    "`",
]


@pytest.mark.parametrize("seed", range(6))
def test_outline_with_reuse_equals_a_fresh_outline_through_random_edits(
    seed: int,
) -> None:
    rnd = random.Random(seed)
    configs = {"part1": ComponentConfig(mode="append")}
    text = structured_document(8, 6_000)
    for _ in range(60):
        pos = rnd.randrange(len(text) + 1)
        if rnd.random() < 0.3:
            text = text[:pos] + text[min(len(text), pos + rnd.randint(1, 40)) :]
        else:
            text = text[:pos] + rnd.choice(INSERTS) + text[pos:]
        chosen = configs if rnd.random() < 0.5 else {}
        assert outline(text, chosen) == outline(text, chosen, reuse=False)


def test_unchanged_components_keep_their_symbol_object() -> None:
    text = structured_document(6, 6_000)
    before = outline_parts(text)
    edited = text.replace("### Heading 2.3", "### Heading 2.3 typed")
    after = outline_parts(edited)
    names = [p.symbol.name for p in after]
    assert names == [p.symbol.name for p in before]
    same = [a.symbol is b.symbol for a, b in zip(after, before, strict=True)]
    # the frontmatter is rebuilt each time; part2 changed; the rest are reused
    assert same == [False, True, True, False, True, True, True]
    assert after[3].base == before[3].base
    assert after[4].base == before[4].base + len(" typed")


def test_a_config_change_rebuilds_the_component_detail() -> None:
    text = structured_document(3, 3_000)
    plain = outline(text)
    configured = outline(text, {"part1": ComponentConfig(mode="append")})
    assert [s.detail for s in plain[1:]] == ["replace", "replace", "replace"]
    assert [s.detail for s in configured[1:]] == ["replace", "append", "replace"]


def test_identical_components_at_two_places_both_appear() -> None:
    block = "<!-- agent:twin -->\n## Same\n<!-- /agent:twin -->\n"
    text = block + "between\n" + block
    symbols = outline(text)
    assert [(s.name, s.start) for s in symbols] == [
        ("twin", 0),
        ("twin", len(block) + len("between\n")),
    ]
    assert symbols == outline(text, reuse=False)
