"""Order over second and later cycles, disk path (issue 12, decision 6).

Property: after any number of cycles, a follow-up the person types *after*
their prompt while the agent works lands *after* the agent's answer to that
prompt — "answer first, then the person's newer text" — and every prompt,
answer and follow-up is present exactly once, in conversation order.

Each cycle runs the real write path (``write_response`` to disk, the snapshot
and CRDT state of the previous cycle in ``.agent-doc/``) with the baseline the
agent saw; the follow-up is typed into the file between the baseline and the
write. Hypothesis chooses where the person puts their prompt relative to the
boundary marker, blank lines, whether the answer starts with a ``### Re:``
heading and how the follow-up is typed.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.write.pipeline import WriteRequest
from agent_doc.write.pipeline import write_response
from tests.reliability._util import make_project
from tests.reliability._util import template_doc

CLOSE = "<!-- /agent:exchange -->"

PROMPT_PLACES = st.sampled_from(["before-close", "before-boundary", "blank-before"])
FOLLOW_UPS = st.sampled_from(["next-line", "blank-line", "two-lines", "after-close"])


def _add_prompt(text: str, prompt: str, place: str) -> str:
    """The person types ``prompt`` below the last answer."""
    lines = text.split("\n")
    close = lines.index(CLOSE)
    at = close
    if place == "before-boundary" and lines[close - 1].startswith(
        "<!-- agent:boundary"
    ):
        at = close - 1
    new = [prompt] if place != "blank-before" else ["", prompt]
    return "\n".join(lines[:at] + new + lines[at:])


def _add_follow_up(text: str, prompt: str, follow: str, how: str) -> str:
    """The person types ``follow`` after ``prompt`` while the agent works."""
    lines = text.split("\n")
    at = lines.index(prompt) + 1
    if how == "after-close":  # at the end of the exchange, whatever is there
        at = lines.index(CLOSE)
    new = {
        "next-line": [follow],
        "blank-line": ["", follow],
        "two-lines": [follow, follow + "-more"],
        "after-close": [follow],
    }[how]
    return "\n".join(lines[:at] + new + lines[at:])


@st.composite
def cycles(draw: st.DrawFn) -> list[tuple[str, str, bool]]:
    count = draw(st.integers(min_value=2, max_value=4))
    return [
        (draw(PROMPT_PLACES), draw(FOLLOW_UPS), draw(st.booleans()))
        for _ in range(count)
    ]


def _answer(n: int, heading: bool) -> str:
    body = f"### Re: question {n}\n\nANSWER-{n}\n" if heading else f"ANSWER-{n}\n"
    return f"<!-- patch:exchange -->\n{body}<!-- /patch:exchange -->\n"


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(cycles())
def test_follow_up_after_the_prompt_lands_after_the_answer(
    plan: list[tuple[str, str, bool]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp))
        doc = project / "doc.md"
        doc.write_text(template_doc("PROMPT-0"))
        expected = ["PROMPT-0"]
        # cycle 0: a plain first answer
        write_response(WriteRequest(doc, _answer(0, True), doc.read_text()))
        expected.append("ANSWER-0")
        for n, (place, how, heading) in enumerate(plan, start=1):
            prompt, follow = f"PROMPT-{n}", f"FOLLOW-{n}"
            doc.write_text(_add_prompt(doc.read_text(), prompt, place))
            baseline = doc.read_text()  # what the agent saw
            doc.write_text(_add_follow_up(baseline, prompt, follow, how))
            write_response(WriteRequest(doc, _answer(n, heading), baseline))
            expected += [prompt, f"ANSWER-{n}", follow]
            text = doc.read_text()
            positions = [text.find(token + "\n") for token in expected]
            assert all(p >= 0 for p in positions), (expected, text)
            for token in expected:
                assert text.count(token + "\n") == 1, (token, text)
            assert positions == sorted(positions), (plan[:n], text)
            assert text.count("<!-- agent:boundary:") == 1, text
