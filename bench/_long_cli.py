"""The per-turn commands of the long-conversation bench, as whole processes.

Every sample runs in a fresh copy (at the same path: agent-doc keys its state
by the document's path) of the repository :func:`_long_docs.
make_repository` made (so each command sees the state a person has after the
agent's last answer plus one typed line), and is timed from the start of the
process; its peak memory is the ``ru_maxrss`` of ``os.wait4`` (the process and
the children it waited for), read by a small launcher process (:class:`Launcher`).

* ``run``: the stand-in agent is ``/bin/sh`` writing the wall clock (ns) to a
  file as its first command, then answering from the resumed session; the time
  is process start → that stamp (everything before the agent call). The whole
  ``run`` (answer written, committed) is kept too.
* ``write``: an answer merged with a concurrent edit (``--baseline-file`` = the
  document the agent saw, one line typed since, ``--force-disk``).
* ``diff`` and ``preflight --no-wait``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench._long_docs import SESSION_ID
from bench._long_docs import type_line

CLI = str(Path(sys.executable).with_name("agent-doc"))
STAMP_ENV = "AGENT_DOC_BENCH_STAMP"
AGENT_SCRIPT = 'date +%s%N > "$AGENT_DOC_BENCH_STAMP"; cat > /dev/null; printf %s "$AGENT_DOC_BENCH_REPLY"'  # fmt: skip
REPLY = "### Re: the typed question\n\nA short answer.\n"
CONCURRENT = "A second line, typed while the agent worked."


def configure_agent(config_home: Path) -> None:
    """``[agents.bench]``: the stand-in agent in the private config."""
    path = config_home / "agent-doc" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    args = json.dumps(["-c", AGENT_SCRIPT, "bench-agent"])
    path.write_text(f'[agents.bench]\ncommand = "/bin/sh"\nargs = {args}\n')
    os.environ["AGENT_DOC_BENCH_REPLY"] = json.dumps(
        {"type": "result", "result": REPLY, "session_id": SESSION_ID,
         "is_error": False}
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Sample:
    """One process: wall ms from its start, peak RSS in MB, exit status."""

    ms: float
    rss_mb: float
    status: int
    started_ns: int


LAUNCHER = """
import json, os, subprocess, sys, time
for line in sys.stdin:
    job = json.loads(line)
    with open(job["stdin"], "rb") as inp, open(job["out"], "wb") as out:
        started_ns = time.time_ns()
        start = time.perf_counter()
        proc = subprocess.Popen(job["argv"], cwd=job["cwd"], stdin=inp, stdout=out,
                                stderr=subprocess.STDOUT, env=job["env"])
        _pid, status, usage = os.wait4(proc.pid, 0)
        took = (time.perf_counter() - start) * 1000
        proc.returncode = os.waitstatus_to_exitcode(status)
    print(json.dumps([took, usage.ru_maxrss, proc.returncode, started_ns]), flush=True)
"""
"""Starts the measured processes: a child's peak RSS (``ru_maxrss``) counts the
pages of the process it was forked from, so they are forked from this small
process, not from the bench (which holds the documents)."""


class Launcher:
    """A small process that runs commands and reports their time and memory."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)  # fmt: skip
        self.folder = Path(tempfile.mkdtemp(prefix="ad-launch-"))

    def measure(self, argv: list[str], cwd: Path, stdin: bytes = b"") -> Sample:
        """Run ``argv`` in ``cwd``; its wall ms from its start and peak RSS."""
        (self.folder / "in").write_bytes(stdin)
        job = {"argv": argv, "cwd": str(cwd), "stdin": str(self.folder / "in"),
               "out": str(self.folder / "out"), "env": dict(os.environ)}  # fmt: skip
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        took, rss_kb, status, started_ns = json.loads(self.proc.stdout.readline())
        if status != 0:
            output = (self.folder / "out").read_bytes().decode()[-600:]
            raise RuntimeError(f"{argv[1:3]} exited {status}: {output}")
        return Sample(took, rss_kb / 1024, status, started_ns)

    def close(self) -> None:
        """Stop the launcher."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


LAUNCH: list[Launcher] = []


def measure(argv: list[str], cwd: Path, stdin: bytes = b"") -> Sample:
    """:meth:`Launcher.measure` through the one launcher (started on first use)."""
    if not LAUNCH:
        LAUNCH.append(Launcher())
    return LAUNCH[0].measure(argv, cwd, stdin)


def fresh_copy(pristine: Path, work: Path) -> Path:
    """``work`` as a copy of ``pristine`` (history, snapshot, CRDT state)."""
    shutil.rmtree(work, ignore_errors=True)
    subprocess.run(["cp", "-a", str(pristine), str(work)], check=True)
    return work


def one_round(pristine: Path, work: Path) -> dict[str, Sample]:
    """One sample of every command (each in a fresh copy), keyed by column."""
    name = "doc.md"
    text = (pristine / name).read_text("utf-8")
    typed = type_line(text)
    got: dict[str, Sample] = {"version": measure([CLI, "--version"], pristine)}
    for command in ("diff", "preflight", "run", "write"):
        root = fresh_copy(pristine, work)
        doc = root / name
        if command == "write":
            (root / "baseline.md").write_text(typed, "utf-8")
            doc.write_text(type_line(typed, CONCURRENT), "utf-8")
            argv = [CLI, "write", name, "--baseline-file", "baseline.md",
                    "--force-disk"]  # fmt: skip
            got["write"] = measure(argv, root, REPLY.encode())
            merged = doc.read_text("utf-8")
            if CONCURRENT not in merged or "A short answer." not in merged:
                raise RuntimeError("write lost the answer or the concurrent edit")
            continue
        doc.write_text(typed, "utf-8")
        if command == "diff":
            got["diff"] = measure([CLI, "diff", name], root)
        elif command == "preflight":
            got["preflight"] = measure([CLI, "preflight", name, "--no-wait"], root)
        else:
            stamp = root.parent / "agent-called"
            stamp.unlink(missing_ok=True)
            os.environ[STAMP_ENV] = str(stamp)
            whole = measure([CLI, "run", name], root)
            called = int(stamp.read_text().strip())
            to_agent = (called - whole.started_ns) / 1e6
            got["run"] = Sample(to_agent, whole.rss_mb, 0, whole.started_ns)
            got["run whole"] = whole
            if "A short answer." not in doc.read_text("utf-8"):
                raise RuntimeError("run did not write the answer")
    return got
