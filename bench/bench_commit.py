"""The per-turn commit in-process, beside ``git commit`` of the same change.

``commit_document`` on a 100 KB session document whose snapshot gained one
answer, in three repositories: a plain one (the fast path: objects written
in-process), one with a ``post-commit`` hook, and one with ``commit.gpgSign``
and a stand-in ``gpg.program`` (both go through git: temporary index,
``commit-tree``, the hook). Each sample is paired with
``git commit --no-verify -q -- <file>`` of a same-sized change in the same
repository, run right before it; the ratio is the median of the per-pair
ratios. CPU time (user + system of this process and the git processes it
waited for) is printed beside wall time: on a loaded machine it moves far
less. ``git commit`` does less than the per-turn commit (no snapshot, no
``(HEAD)`` markers, the working file instead of a blob) and more (it refreshes
the whole index), so the ratio says what a turn's commit costs next to what a
person's commit costs.

Run: ``.venv/bin/python bench/bench_commit.py [--runs N]``
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FAKE_GPG = (
    "import sys\nsys.stdin.buffer.read()\n"
    "sys.stderr.write('[GNUPG:] SIG_CREATED D 1 8 00 1700000000 F\\n')\n"
    "sys.stdout.write('-----BEGIN PGP SIGNATURE-----\\n\\nZmFrZQ==\\n"
    "-----END PGP SIGNATURE-----\\n')\n"
)


def _document(size: int) -> str:
    parts = ["---\nagent_doc_format: template\n---\n\n# Bench\n\n"]
    parts.append("<!-- agent:exchange -->\n")
    i = 0
    while sum(map(len, parts)) < size:
        parts.append(f"### Re: question {i}\n\nSome answer text, line {i}.\n\n")
        i += 1
    parts.append("## User\n\nnext question\n<!-- /agent:exchange -->\n")
    return "".join(parts)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _repo(root: Path, kind: str) -> Path:
    root.mkdir(parents=True)
    _git(root, "init", "-q")
    _git(root, "config", "user.email", "b@example.invalid")
    _git(root, "config", "user.name", "bench")
    (root / ".agent-doc").mkdir()
    doc = root / "doc.md"
    doc.write_text(_document(100_000))
    (root / "person.md").write_text(_document(100_000))
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    if kind == "post-commit hook":
        hook = root / ".git" / "hooks" / "post-commit"
        hook.write_text("#!/bin/sh\nexit 0\n")
        hook.chmod(0o755)
    elif kind == "signed":
        program = root.parent / f"gpg-{root.name}"
        program.write_text(f"#!{sys.executable}\n{FAKE_GPG}")
        program.chmod(0o755)
        _git(root, "config", "commit.gpgSign", "true")
        _git(root, "config", "gpg.program", str(program))
    return doc


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return (usage.ru_utime + usage.ru_stime) * 1000


def _pair(doc: Path, i: int) -> tuple[float, float, float, float]:
    """``(git commit ms, per-turn commit ms)``, wall then CPU, for turn ``i``."""
    from agent_doc.cycle.commit import commit_document
    from agent_doc.store.state import StateStore

    root = doc.parent
    person = root / "person.md"
    with person.open("a") as out:
        out.write(f"asked {i}\n")
    start, cpu = time.perf_counter(), _cpu(resource.RUSAGE_CHILDREN)
    _git(root, "commit", "--no-verify", "-q", "-m", f"person {i}", "--", "person.md")
    theirs = (time.perf_counter() - start) * 1000
    theirs_cpu = _cpu(resource.RUSAGE_CHILDREN) - cpu
    text = doc.read_text().replace(
        "## User", f"### Re: turn {i}\n\nanswer {i}\n\n## User"
    )
    doc.write_text(text)
    StateStore.for_document(doc).save_snapshot(doc, text)
    both = resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN
    start, cpu = time.perf_counter(), sum(map(_cpu, both))
    committed, message = commit_document(doc)
    ours = (time.perf_counter() - start) * 1000
    ours_cpu = sum(map(_cpu, both)) - cpu
    if not committed:
        raise SystemExit(f"turn {i} was not committed: {message}")
    return theirs, ours, theirs_cpu, ours_cpu


def main(runs: int) -> None:
    """Measure and print the table."""
    kinds = ("fast path", "post-commit hook", "signed")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"100 KB document, {runs} paired turns per repository, median ms")
    print(f"{'':18} {'--------- wall ---------':>30} {'---------- CPU ---------':>30}")
    head = f"{'agent-doc':>10} {'git commit':>11} {'ratio':>7}"
    print(f"{'repository':18} {head} {head}")
    with tempfile.TemporaryDirectory(prefix="ad-bench-commit-") as tmp:
        docs = {kind: _repo(Path(tmp) / f"r{n}", kind) for n, kind in enumerate(kinds)}
        for kind, doc in docs.items():
            pairs = [_pair(doc, i) for i in range(runs + 1)][1:]  # first warms up
            cells = []
            for theirs_at, ours_at in ((0, 1), (2, 3)):
                ours = statistics.median(p[ours_at] for p in pairs)
                theirs = statistics.median(p[theirs_at] for p in pairs)
                ratio = statistics.median(p[ours_at] / p[theirs_at] for p in pairs)
                cells.append(f"{ours:10.1f} {theirs:11.1f} {ratio:7.2f}")
            print(f"{kind:18} {' '.join(cells)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    main(max(parser.parse_args().runs, 3))
