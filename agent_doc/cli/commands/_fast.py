"""The bodies of ``write`` and ``diff``, shared by typer and the fast path.

These two commands run on every agent cycle, so :mod:`agent_doc.cli.entry`
answers them with argparse (≈5 ms) instead of typer (≈85 ms). Both front-ends
call :func:`do_write` / :func:`do_diff` here, so the core call and the output
are defined once. This module must not import typer.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any
from typing import NoReturn

from agent_doc.errors import PatchError


def read_stdin() -> str:
    """Read all of stdin as UTF-8 (a BOM and CRLF are normalised)."""
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PatchError("response on stdin is not valid UTF-8") from exc
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def _jsonable(value: Any) -> Any:
    """A NamedTuple (the write outcome) or a dataclass as a JSON-ready dict."""
    if not hasattr(value, "_asdict"):
        from dataclasses import asdict  # only the dataclass results need it

        value = asdict(value)
    data = value if isinstance(value, dict) else value._asdict()
    return {k: str(v) if isinstance(v, Path) else v for k, v in data.items()}


def do_write(
    file: Path,
    *,
    baseline_file: Path | None,
    stream: bool,
    force_disk: bool,
    origin: str | None,
    as_json: bool,
) -> int:
    """``agent-doc write``: the response is read from stdin."""
    from agent_doc.automation.lifecycle import write_with_hooks

    outcome = write_with_hooks(
        file,
        read_stdin(),
        baseline_file=baseline_file,
        stream=stream,
        force_disk=force_disk,
        origin=origin,
    )
    if as_json:
        sys.stdout.write(json.dumps(_jsonable(outcome), ensure_ascii=False) + "\n")
    else:
        what = "wrote" if outcome.changed else "unchanged"
        extra = ", merged with concurrent edits" if outcome.merged else ""
        sys.stderr.write(f"agent-doc: {what} {file} ({outcome.target}{extra})\n")
    return 0


def do_diff(file: Path, *, as_json: bool) -> int:
    """``agent-doc diff``: snapshot → document (live buffer when one is open)."""
    from agent_doc.cycle.project import document_diff
    from agent_doc.write.server_link import ServerLink

    result = document_diff(file, ServerLink())
    if as_json:
        sys.stdout.write(json.dumps(_jsonable(result), ensure_ascii=False) + "\n")
    elif result.diff is None:
        sys.stderr.write("no changes\n")
    else:
        end = "" if result.diff.endswith("\n") else "\n"
        sys.stdout.write(result.diff + end)
    return 0


def do_patch(
    file: Path,
    component: str,
    content: str | None,
    *,
    force_disk: bool,
    as_json: bool,
) -> int:
    """``agent-doc patch``: one component, content from the argument or stdin."""
    from agent_doc.write.pipeline import patch_component
    from agent_doc.write.server_link import ServerLink

    text = read_stdin() if content is None else content
    link = None if force_disk else ServerLink()
    outcome = patch_component(file, component, text, force_disk, link=link)
    if as_json:
        summary = {
            "file": str(outcome.path),
            "component": outcome.component,
            "target": outcome.target,
            "changed": outcome.changed,
        }
        sys.stdout.write(json.dumps(summary, ensure_ascii=False) + "\n")
    else:
        what = "patched" if outcome.changed else "unchanged"
        sys.stderr.write(f"{what} {component} in {file} ({outcome.target})\n")
    return 0


class _UnhandledError(Exception):
    """The fast parser cannot handle these arguments; typer takes over."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UnhandledError(message)


def _parser(command: str) -> _Parser:
    """The parser of one fast command (building all three costs more)."""
    parser = _Parser(prog=f"agent-doc {command}", add_help=False)
    parser.add_argument("file", type=Path)
    if command == "write":
        parser.add_argument("--baseline-file", type=Path, default=None)
        parser.add_argument("--stream", action="store_true")
        parser.add_argument("--origin", default=None)
    elif command == "patch":
        parser.add_argument("component")
        parser.add_argument("content", nargs="?", default=None)
    if command in ("write", "patch"):
        parser.add_argument("--force-disk", action="store_true")
    parser.add_argument("--json", action="store_true")
    return parser


def run_fast(args: list[str]) -> int | None:
    """Run ``write``/``diff`` without typer; ``None`` when typer must handle it."""
    if any(a in ("-h", "--help") for a in args):
        return None
    command = args[0] if args else ""
    if command not in ("write", "patch", "diff"):
        return None
    try:
        ns = _parser(command).parse_args(args[1:])
    except _UnhandledError:
        return None
    try:
        if command == "write":
            return do_write(
                ns.file,
                baseline_file=ns.baseline_file,
                stream=ns.stream,
                force_disk=ns.force_disk,
                origin=ns.origin,
                as_json=ns.json,
            )
        if command == "patch":
            return do_patch(
                ns.file,
                ns.component,
                ns.content,
                force_disk=ns.force_disk,
                as_json=ns.json,
            )
        return do_diff(ns.file, as_json=ns.json)
    except (Exception, KeyboardInterrupt) as exc:
        from agent_doc.cli._errors import report_error

        return report_error(exc)
