"""Console-script entry point of ``agent-doc``: fast paths first, typer after.

``agent-doc --version`` must not pay for typer (≈85 ms) or anything else it does
not use, so it is answered here before the typer app is imported. ``write``,
``patch`` and ``diff`` run on every agent cycle; a plain parser
(:mod:`agent_doc.cli.commands._argv`) reads them for
:mod:`agent_doc.cli.commands._fast`, which the typer commands call too (one
definition of the work); so are ``outline``, ``status``, ``preflight`` and
``route`` (:mod:`agent_doc.cli.commands._fast_turn`). ``--help`` and anything
that parser cannot parse go to typer, so usage errors and help look the same as
for every other command.

A command answered on a fast path ends the process without the interpreter's
teardown (:func:`agent_doc._runtime.fast_exit.end_process`): freeing every
module and object one by one costs a per-turn command a few milliseconds after
its work is done. On the typer path, library log lines and tracebacks are kept
off the terminal (:mod:`agent_doc.cli._logs`).
"""

from __future__ import annotations

import sys

from agent_doc import __version__
from agent_doc._runtime.fast_exit import end_process


def run_fast_path(args: list[str]) -> int | None:
    """Run ``args`` when a fast path answers them; ``None`` when typer must."""
    if args in (["--version"], ["-V"]):
        sys.stdout.write(f"agent-doc {__version__}\n")
        return 0
    if args and args[0] in ("write", "diff", "patch"):
        from agent_doc.cli.commands._fast import run_fast

        return run_fast(args)
    if args and args[0] in ("outline", "status", "preflight", "route"):
        from agent_doc.cli.commands._fast_turn import run_turn_command

        return run_turn_command(args)
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the ``agent-doc`` command line and return its exit code."""
    args = sys.argv[1:] if argv is None else argv
    code = run_fast_path(args)
    if code is not None:
        return code
    from agent_doc.cli.app import run_app

    return run_app(args, prog_name="agent-doc")


def console() -> None:
    """The ``agent-doc`` program: run the command line, then exit with its code."""
    args = sys.argv[1:]
    code = run_fast_path(args)
    if code is None:
        from agent_doc.cli._logs import quiet_library_logs
        from agent_doc.cli.app import run_app

        quiet_library_logs()
        sys.exit(run_app(args, prog_name="agent-doc"))

    end_process(code)


if __name__ == "__main__":
    console()
