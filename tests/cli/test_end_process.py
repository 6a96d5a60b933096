"""The ``agent-doc`` program ends a fast command without the interpreter's
teardown: its output, files and atexit handlers must all still be there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

Done = subprocess.CompletedProcess[str]

BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
"""The environment with stdout buffered, as a user's shell has it: the
output is then still in Python's buffer when the command ends."""


def _python(*argv: str, stdin: str = "", cwd: Path | None = None) -> Done:
    return subprocess.run(
        [sys.executable, *argv],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
        cwd=cwd,
        env=BUFFERED,
    )


def test_large_json_output_and_written_file_survive_the_fast_exit(
    tmp_path: Path,
) -> None:
    body = "".join(f"line {i} é 😀\n" for i in range(20_000))
    doc = tmp_path / "doc.md"
    doc.write_text(f"<!-- agent:exchange -->\n{body}<!-- /agent:exchange -->\n")
    done = _python(
        "-m", "agent_doc.cli.entry", "write", "doc.md", "--force-disk", "--json",
        stdin="the answer\n", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)  # every byte of ~600 KB arrived
    assert outcome["content_ours"].endswith("<!-- /agent:exchange -->\n")
    assert doc.read_text(encoding="utf-8") == outcome["content_ours"]
    assert "the answer\n" in doc.read_text(encoding="utf-8")


def test_exit_code_stdout_and_atexit_handlers() -> None:
    done = _python(
        "-c",
        "import atexit, sys\n"
        "from agent_doc._runtime.fast_exit import end_process\n"
        "atexit.register(lambda: sys.stdout.write(' and the handler'))\n"
        "sys.stdout.write('output')\n"
        "sys.stderr.write('errors')\n"
        "end_process(3)\n",
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        3,
        "output and the handler",
        "errors",
    )


def test_a_running_thread_is_waited_for() -> None:
    done = _python(
        "-c",
        "import sys, threading\n"
        "from agent_doc._runtime.fast_exit import end_process\n"
        "go = threading.Event()\n"
        "def work():\n"
        "    go.wait(30)\n"
        "    sys.stdout.write('thread finished')\n"
        "threading.Thread(target=work).start()\n"
        "threading.Timer(0.05, go.set).start()\n"
        "end_process(4)\n",
    )
    assert (done.returncode, done.stdout) == (4, "thread finished")


def test_a_closed_stdout_is_a_failure_as_in_python() -> None:
    done = _python(
        "-c",
        "import os, sys\n"
        "from agent_doc._runtime.fast_exit import end_process\n"
        "sys.stdout.write('lost')\n"
        "os.close(1)\n"
        "end_process(0)\n",
    )
    assert done.returncode == 120


def test_the_console_script_is_the_fast_exit_entry() -> None:
    import importlib.metadata

    scripts = importlib.metadata.entry_points(group="console_scripts")
    (script,) = [
        s
        for s in scripts
        if s.name == "agent-doc"
        and s.dist is not None
        and s.dist.name == "agent-doc-lsp"
    ]
    assert script.value == "agent_doc.cli.entry:console"
