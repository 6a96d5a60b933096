"""Unit tests for agent_doc.write.pause (when a live write may land)."""

from __future__ import annotations

import pytest

from agent_doc.write.pause import DEFAULT_QUIET_MS
from agent_doc.write.pause import pause_policy
from agent_doc.write.pause import quiet_ms_of
from agent_doc.write.pause import wait_before_landing

DOC = "---\nagent_doc_format: template\n---\nbody\n"


def test_quiet_time_comes_from_the_document_or_defaults() -> None:
    assert quiet_ms_of(DOC) == DEFAULT_QUIET_MS
    custom = DOC.replace("---\nbody", "agent_doc_debounce_ms: 1200\n---\nbody")
    assert quiet_ms_of(custom) == 1200
    broken = DOC.replace("---\nbody", "agent_doc_debounce_ms: [\n---\nbody")
    assert quiet_ms_of(broken) == DEFAULT_QUIET_MS


def test_never_typed_or_paused_lands_now() -> None:
    policy = pause_policy(DOC, started=100.0, pause_budget_s=10, deadline=120.0)
    assert wait_before_landing(policy, now=100.0, last_change=None) == 0.0
    assert wait_before_landing(policy, now=100.0, last_change=99.5) == 0.0


def test_typing_waits_for_the_pause() -> None:
    policy = pause_policy(DOC, started=100.0, pause_budget_s=10, deadline=120.0)
    assert wait_before_landing(policy, now=100.0, last_change=99.9) == pytest.approx(
        0.4
    )


def test_past_the_pause_budget_the_write_lands_anyway() -> None:
    policy = pause_policy(DOC, started=100.0, pause_budget_s=10, deadline=120.0)
    assert policy.land_by == 110.0
    assert wait_before_landing(policy, now=109.8, last_change=109.7) == pytest.approx(
        0.2
    )
    assert wait_before_landing(policy, now=110.0, last_change=109.99) == 0.0


def test_a_short_deadline_keeps_time_to_land() -> None:
    policy = pause_policy(DOC, started=0.0, pause_budget_s=10, deadline=0.9)
    assert policy.land_by == pytest.approx(0.6)
