"""Property tests of the CRDT merge: nothing duplicated, nothing the user typed lost.

Every line the agent or the user adds carries a unique token (``A3§``, ``U7§``,
``T2§``), so its occurrences in the merged text can be counted exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.merge import merge_texts

WORDS = st.sampled_from(
    [
        "alpha",
        "beta",
        "é",
        "日本語",
        "😀",
        "👩‍👩‍👧",
        "x",
        "",
        " ",
        "* item",
        "# H",
        "`c`",
    ]
)
PROSE = st.lists(WORDS, min_size=0, max_size=4).map(" ".join)


@dataclass(frozen=True)
class Scenario:
    base: list[str]
    theirs: list[str]
    response: list[str]
    at: int
    trailing: bool


def render(lines: list[str], trailing: bool) -> str:
    if trailing:
        return "".join(line + "\n" for line in lines)
    return "\n".join(lines)


def word_starts(line: str) -> list[int]:
    """Columns where typing cannot split an earlier token."""
    return [0, len(line), *(i for i, ch in enumerate(line) if ch == " ")]


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    size = draw(st.integers(0, 12))
    base = [
        draw(st.just("")) if draw(st.integers(0, 4)) == 0 else f"b{i}§ " + draw(PROSE)
        for i in range(size)
    ]
    theirs = list(base)
    for k in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["insert", "delete", "replace", "type"]))
        if kind == "insert" or not theirs:
            pos = draw(st.integers(0, len(theirs)))
            theirs.insert(pos, f"U{k}§ " + draw(PROSE))
            continue
        pos = draw(st.integers(0, len(theirs) - 1))
        if kind == "delete":
            del theirs[pos]
        elif kind == "replace":
            theirs[pos] = f"U{k}§ " + draw(PROSE)
        else:
            line = theirs[pos]
            col = draw(st.sampled_from(word_starts(line)))
            theirs[pos] = line[:col] + f"T{k}§" + draw(PROSE) + line[col:]
    response = [f"A{j}§ " + draw(PROSE) for j in range(draw(st.integers(1, 4)))]
    return Scenario(
        base=base,
        theirs=theirs,
        response=response,
        at=draw(st.integers(0, len(base))),
        trailing=draw(st.booleans()),
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_merge_is_theirs_plus_the_response_block(case: Scenario) -> None:
    """The result is the user's document with the response inserted once, whole."""
    ours_lines = case.base[: case.at] + case.response + case.base[case.at :]
    base = render(case.base, case.trailing)
    ours = render(ours_lines, case.trailing)
    theirs = render(case.theirs, case.trailing)
    result = merge_texts(base, ours, theirs).text
    block = "\n".join(case.response)
    assert result.count(block) == 1
    for line in case.response:
        assert result.count(line.split(" ")[0]) == 1
    lines = result.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("A0§"))
    assert lines[start : start + len(case.response)] == case.response
    rest = lines[:start] + lines[start + len(case.response) :]
    if case.trailing or case.theirs:
        assert rest == theirs.split("\n")
    else:  # the user emptied the document: the response and line breaks remain
        assert result.replace(block, "", 1).strip("\n") == ""
    for line in case.base:
        if line and line not in case.theirs:
            assert line not in lines


@st.composite
def both_type_in_lines(draw: st.DrawFn) -> tuple[str, str, str, list[str]]:
    base = [f"line{i} " + draw(PROSE) for i in range(draw(st.integers(1, 8)))]
    tokens: list[str] = []
    sides = []
    for who in ("A", "U"):
        lines = list(base)
        for k in range(draw(st.integers(1, 3))):
            pos = draw(st.integers(0, len(lines) - 1))
            line = lines[pos]
            col = draw(st.sampled_from(word_starts(line)))
            token = f"{who}{k}§"
            lines[pos] = line[:col] + token + draw(PROSE) + line[col:]
            tokens.append(token)
        if who == "U" and draw(st.booleans()):
            del lines[draw(st.integers(0, len(lines) - 1))]
            tokens = [t for t in tokens if t.startswith("A") or t in "".join(lines)]
        sides.append(render(lines, True))
    return render(base, True), sides[0], sides[1], tokens


@settings(max_examples=300, deadline=None)
@given(both_type_in_lines())
def test_typing_on_both_sides_keeps_every_token_once(
    case: tuple[str, str, str, list[str]],
) -> None:
    """Edits inside the same or nearby lines: every typed token survives exactly once."""
    base, ours, theirs, tokens = case
    result = merge_texts(base, ours, theirs).text
    for token in tokens:
        assert result.count(token) == 1, (token, result)


@st.composite
def stale_bases(draw: st.DrawFn) -> tuple[str, str, str, list[str]]:
    base = [f"b{i}§ " + draw(PROSE) for i in range(draw(st.integers(0, 8)))]
    typed = [f"S{k}§ " + draw(PROSE) for k in range(draw(st.integers(1, 3)))]
    at = draw(st.integers(0, len(base)))
    seen = base[:at] + typed + base[at:]
    response = [f"A{j}§ " + draw(PROSE) for j in range(draw(st.integers(1, 3)))]
    cut = draw(st.integers(0, len(seen)))
    ours = seen[:cut] + response + seen[cut:]
    theirs = list(seen)
    more = [f"U{k}§ " + draw(PROSE) for k in range(draw(st.integers(0, 3)))]
    for line in more:
        theirs.insert(draw(st.integers(0, len(theirs))), line)
    tokens = [line.split(" ")[0] for line in typed + response + more]
    return render(base, True), render(ours, True), render(theirs, True), tokens


@settings(max_examples=300, deadline=None)
@given(stale_bases())
def test_text_in_both_sides_but_not_in_base_appears_once(
    case: tuple[str, str, str, list[str]],
) -> None:
    """Upstream case 18 generalised: the agent's baseline already held the user's text."""
    base, ours, theirs, tokens = case
    result = merge_texts(base, ours, theirs).text
    for token in tokens:
        assert result.count(token) == 1, (token, result)
