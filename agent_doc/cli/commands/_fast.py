"""The bodies of ``write`` and ``diff``, shared by typer and the fast path.

These commands run on every agent cycle, so :mod:`agent_doc.cli.entry` answers
them with a plain parser (:mod:`._argv`) instead of typer (≈85 ms). Both front-ends
call :func:`do_write` / :func:`do_diff` here, so the core call and the output
are defined once. This module must not import typer.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agent_doc.cli.commands._argv import Spec
from agent_doc.cli.commands._argv import Unhandled
from agent_doc.cli.commands._argv import parse
from agent_doc.errors import PatchError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from agent_doc.store.docfile import ReadCache

_ROOM_ENV = "AGENT_DOC_SHARE_URL"
"""Set: ``write`` and ``patch`` go to a shared room (:mod:`agent_doc.share.remote`)."""


def read_stdin() -> str:
    """Read all of stdin as UTF-8 (a BOM and CRLF are normalised)."""
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PatchError("response on stdin is not valid UTF-8") from exc
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def _jsonable(value: Any) -> Any:
    """A record (the write outcome, a patch outcome) or a dataclass as a
    JSON-ready dict."""
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
    room: str | None = None,
    token_file: Path | None = None,
    reads: ReadCache | None = None,
) -> int:
    """``agent-doc write``: the response is read from stdin.

    With ``room`` (or ``$AGENT_DOC_SHARE_URL``) the answer goes into a shared
    room instead (:mod:`._room`). ``reads``: what the command read of FILE.
    """
    from agent_doc.errors import ServerTimeout

    if room is not None or _ROOM_ENV in os.environ:
        from agent_doc.cli.commands._room import room_write

        return room_write(file, read_stdin(), room, token_file, baseline_file, as_json)
    try:
        return _write(file, baseline_file, stream, force_disk, origin, as_json, reads)
    except ServerTimeout as exc:  # the answer is pending: say so, and how to land it
        from agent_doc.write.waiting import kept_pending_message

        raise ServerTimeout(kept_pending_message(str(exc), file)) from None


def _write(
    file: Path,
    baseline_file: Path | None,
    stream: bool,
    force_disk: bool,
    origin: str | None,
    as_json: bool,
    reads: ReadCache | None = None,
) -> int:
    response = read_stdin()
    if not force_disk and baseline_file is None and not as_json:
        from agent_doc.write.handoff import hand_off_write

        handed = hand_off_write(file, response, origin)
        if handed is not None:  # a server owns the document and did it all
            for warning in handed.warnings:
                sys.stderr.write(f"warning: {warning}\n")
            what = "wrote" if handed.changed else "unchanged"
            extra = ", merged with concurrent edits" if handed.merged else ""
            sys.stderr.write(f"agent-doc: {what} {file} (server{extra})\n")
            return 0
    from agent_doc.automation.lifecycle import write_with_hooks

    outcome = write_with_hooks(
        file,
        response,
        baseline_file=baseline_file,
        stream=stream,
        force_disk=force_disk,
        origin=origin,
        reads=reads,
    )
    if as_json:
        import json

        sys.stdout.write(json.dumps(_jsonable(outcome), ensure_ascii=False) + "\n")
    else:
        what = "wrote" if outcome.changed else "unchanged"
        extra = ", merged with concurrent edits" if outcome.merged else ""
        sys.stderr.write(f"agent-doc: {what} {file} ({outcome.target}{extra})\n")
    return 0


def do_diff(file: Path, *, as_json: bool) -> int:
    """``agent-doc diff``: snapshot → document (live buffer when one is open)."""
    from agent_doc.cycle.doc_diff import document_diff
    from agent_doc.write.server_link import ServerLink

    result = document_diff(file, ServerLink())
    if as_json:
        import json

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
    room: str | None = None,
    token_file: Path | None = None,
) -> int:
    """``agent-doc patch``: one component, content from the argument or stdin."""
    text = read_stdin() if content is None else content
    if room is not None or _ROOM_ENV in os.environ:
        from agent_doc.cli.commands._room import room_patch

        return room_patch(file, component, text, room, token_file, as_json)
    changed: bool | None = None
    if not force_disk:
        from agent_doc.write.handoff import hand_off_patch

        changed = hand_off_patch(file, component, text)  # a server owns it
    if changed is not None:
        path, target = file, "server"
    else:
        from agent_doc.write.patch import patch_component
        from agent_doc.write.server_link import ServerLink

        link = None if force_disk else ServerLink()
        outcome = patch_component(file, component, text, force_disk, link=link)
        path, target, changed = outcome.path, outcome.target, outcome.changed
    if as_json:
        import json

        summary = {
            "file": str(path),
            "component": component,
            "target": target,
            "changed": changed,
        }
        sys.stdout.write(json.dumps(summary, ensure_ascii=False) + "\n")
    else:
        what = "patched" if changed else "unchanged"
        sys.stderr.write(f"{what} {component} in {file} ({target})\n")
    return 0


_SPECS = {
    "write": Spec(
        positionals=("file",),
        flags=("stream", "force-disk", "json"),
        options={
            "baseline-file": (Path, None),
            "origin": (str, None),
            "room": (str, None),
            "token-file": (Path, None),
        },
    ),
    "patch": Spec(
        positionals=("file", "component"),
        optional=("content",),
        flags=("force-disk", "json"),
        options={"room": (str, None), "token-file": (Path, None)},
    ),
    "diff": Spec(positionals=("file",), flags=("json",)),
}
"""The command lines of the fast commands (see :mod:`._argv`)."""


def run_fast(args: list[str]) -> int | None:
    """Run ``write``/``diff`` without typer; ``None`` when typer must handle it."""
    command = args[0] if args else ""
    if command not in ("write", "patch", "diff"):
        return None
    try:
        ns = parse(args[1:], _SPECS[command])
    except Unhandled:
        return None
    try:
        from agent_doc.store.docfile import ReadCache
        from agent_doc.store.docfile import require_session_document

        # a write keeps the document's bytes (checked once); the others read anew
        reads = ReadCache() if command == "write" else None
        require_session_document(
            Path(ns["file"]), reads
        )  # as typer's document_argument
        if command == "write":
            return do_write(
                Path(ns["file"]),
                baseline_file=ns["baseline_file"],
                stream=ns["stream"],
                force_disk=ns["force_disk"],
                origin=ns["origin"],
                as_json=ns["json"],
                room=ns["room"],
                token_file=ns["token_file"],
                reads=reads,
            )
        if command == "patch":
            return do_patch(
                Path(ns["file"]),
                ns["component"],
                ns["content"],
                force_disk=ns["force_disk"],
                as_json=ns["json"],
                room=ns["room"],
                token_file=ns["token_file"],
            )
        return do_diff(Path(ns["file"]), as_json=ns["json"])
    except (Exception, KeyboardInterrupt) as exc:
        from agent_doc.cli._errors import report_error

        return report_error(exc)
