"""agent_doc.cycle.cancel: process groups stopped for real, signals routed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from types import FrameType

import pytest

from agent_doc.cycle import cancel

IGNORE_TERM = (
    "import signal, subprocess, time;"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN);"
    "subprocess.Popen(['sleep', '60']);"
    "time.sleep(60)"
)


def _group(code: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    deadline = time.monotonic() + 10
    while len(cancel.group_members(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)  # the child is started by the leader: wait for it
    assert len(cancel.group_members(proc.pid)) == 2
    return proc


def test_stop_group_kills_what_ignores_sigterm_after_the_grace() -> None:
    proc = _group(IGNORE_TERM)
    started = time.monotonic()
    cancel.stop_group(proc.pid, grace=0.5, reap=proc.poll)
    took = time.monotonic() - started
    assert cancel.group_members(proc.pid) == []
    assert proc.returncode == -signal.SIGKILL
    assert 0.5 <= took < 5


def test_stop_group_hurries_on_a_second_signal() -> None:
    proc = _group(IGNORE_TERM)
    started = time.monotonic()
    cancel.stop_group(proc.pid, grace=30, reap=proc.poll, hurry=lambda: True)
    assert cancel.group_members(proc.pid) == []
    assert time.monotonic() - started < 5


def test_stop_group_ends_at_once_when_sigterm_is_obeyed() -> None:
    proc = _group(
        "import subprocess, time; subprocess.Popen(['sleep', '60']); time.sleep(60)"
    )
    started = time.monotonic()
    cancel.stop_group(proc.pid, grace=30, reap=proc.poll)
    assert cancel.group_members(proc.pid) == []
    assert proc.returncode == -signal.SIGTERM
    assert time.monotonic() - started < 5


def test_routing_chains_a_plain_handler_but_not_an_enclosing_routing() -> None:
    seen: list[str] = []

    def plain(_signum: int, _frame: FrameType | None) -> None:
        seen.append("plain")

    before = signal.signal(signal.SIGHUP, plain)
    try:
        with cancel.signals_routed(lambda _s: seen.append("outer")):
            with cancel.signals_routed(lambda _s: seen.append("inner")):
                os.kill(os.getpid(), signal.SIGHUP)
            os.kill(os.getpid(), signal.SIGHUP)
        assert signal.getsignal(signal.SIGHUP) is plain
    finally:
        signal.signal(signal.SIGHUP, before)
    assert seen == ["inner", "plain", "outer"]


@pytest.mark.parametrize(
    ("raw", "expected"), [("0.5", 0.5), ("abc", 3.0), ("-1", 3.0), ("", 3.0)]
)
def test_grace_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: float
) -> None:
    monkeypatch.setenv("AGENT_DOC_CANCEL_GRACE_S", raw)
    assert cancel._grace_from_env() == expected
