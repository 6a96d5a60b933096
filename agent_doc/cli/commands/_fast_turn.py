"""Bodies of ``outline``, ``status``, ``preflight`` and ``route`` without typer.

An agent or editor runs these every turn, so :mod:`agent_doc.cli.entry` parses
them with a plain parser, :mod:`._argv` (like ``write``/``diff``/``patch`` in
:mod:`agent_doc.cli.commands._fast`) and never imports typer (≈85 ms) for them.
The typer commands call the same ``do_*`` functions, so the core call and the
output are defined once. ``--help`` and anything that parser cannot parse go to
typer. This module must not import typer.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc.cli.commands._argv import Spec
from agent_doc.cli.commands._argv import Unhandled
from agent_doc.cli.commands._argv import parse

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import BinaryIO

    from agent_doc.cycle.preflight import PreflightResult
    from agent_doc.document.snapshot_scan import SnapshotScan
    from agent_doc.tmux.agent_state import AgentStatus

COMMANDS = ("outline", "status", "preflight", "route")
"""The commands this module answers."""


def do_outline(file: Path, *, as_json: bool) -> int:
    """``agent-doc outline``: sections with line and token counts."""
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.document.outline import outline as build_outline
    from agent_doc.document.outline import render_outline_text
    from agent_doc.store.state import read_document

    sections = build_outline(read_document(file).text)
    if as_json:
        emit_json([s.as_dict() for s in sections])
    else:
        emit(render_outline_text(sections))
    return 0


def do_status(root: Path | None, *, as_json: bool) -> int:
    """``agent-doc status``: the project's documents, panes and agent states."""
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.store.state import project_root_for
    from agent_doc.tmux.agent_state import agent_states

    states = agent_states(project_root_for(root or Path.cwd()))
    for warning in unreachable_warnings(states):
        info(f"agent-doc: {warning}")
    if as_json:
        emit_json([s._asdict() for s in states])
        return 0
    if not states:
        info("no document is bound to a pane (agent-doc claim FILE binds one)")
        return 0
    width = max(len(s.file) for s in states)
    for s in states:
        emit(f"{s.file:<{width}}  {s.pane:<5} {describe_state(s)}\n")
    return 0


def unreachable_warnings(states: list[AgentStatus]) -> list[str]:
    """One line per tmux server that did not answer for some of ``states``."""
    from agent_doc.tmux.agent_state import UNKNOWN
    from agent_doc.tmux.servers import unreachable_warning

    counts: dict[str, int] = {}
    for status in states:
        if status.state == UNKNOWN:
            counts[status.server] = counts.get(status.server, 0) + 1
    return [unreachable_warning(server, n) for server, n in counts.items()]


def describe_state(status: AgentStatus) -> str:
    """``running``, ``needs input (permission prompt)``, ``exited (status 3)``,
    ``unknown (server unreachable)``..."""
    if status.state == "unknown":
        return "unknown (server unreachable)"
    text = status.state.replace("_", " ")
    if status.exit_code is not None:
        text += f" (status {status.exit_code})"
    if status.waiting_permission:
        text += " (permission prompt)"
    return text


def do_preflight(
    file: Path,
    *,
    no_wait: bool,
    excerpts: bool = False,
    front_text: str | None = None,
    snapshot: SnapshotScan | None = None,
) -> int:
    """``agent-doc preflight``: every pre-agent step, the §7.26 JSON on stdout
    (with ``excerpts``, the parts the agent needs in place of the document;
    ``front_text`` and ``snapshot``: the frontmatter and the checked snapshot
    the gate read, see :func:`gate_front`)."""
    import contextlib

    from agent_doc.automation.busy import set_status
    from agent_doc.cycle.preflight import run_preflight
    from agent_doc.errors import AgentDocError
    from agent_doc.write.server_link import ServerLink

    result = run_preflight(
        file, ServerLink(), settle=not no_wait, excerpts=excerpts,
        front_text=front_text, snapshot=snapshot,
    )  # fmt: skip
    emit_preflight(result)
    with contextlib.suppress(AgentDocError):  # the busy guard is best effort
        set_status(file, "generating")  # the skill now answers; write resets it
    return 0


_PIECE = 1 << 20
"""Bytes of the document decoded and written at a time by :func:`emit_preflight`."""


def emit_preflight(result: PreflightResult) -> None:
    """Write ``result.to_json()`` as :func:`~agent_doc.cli._output.emit_json`
    writes it; a ``document`` read only as UTF-8 is escaped a piece at a
    time (JSON escapes each character on its own, so the pieces give the
    whole string's text: the output is the same, without the document's text
    and its JSON held whole): on a UTF-8 stdout as bytes, written under the
    text layer (:func:`_escaped`: nothing decoded or encoded again), else
    decoded and escaped by ``json``."""
    import json
    import sys

    from agent_doc.cli._output import emit_json

    data = result.document_data
    if data is None or result.document is not None or result.excerpts is not None:
        emit_json(result.to_json())
        return
    stand_in = "\0agent-doc-document\0"
    text = json.dumps(result.to_json(stand_in), ensure_ascii=False, indent=2)
    key = '\n  "document": ' + json.dumps(stand_in, ensure_ascii=False)
    before, after = text.split(key, 1)  # a string's line breaks are escaped
    out = sys.stdout
    out.write(before + '\n  "document": "')
    raw = _utf8_buffer(out)
    if raw is not None:
        out.flush()  # what the text layer holds goes first
    at = 0
    while at < len(data):
        end = min(at + _PIECE, len(data))
        while end < len(data) and data[end] & 0xC0 == 0x80:  # a character's start
            end += 1
        piece = data[at:end]
        if raw is not None:
            raw.write(_escaped(piece))
        else:
            out.write(json.dumps(piece.decode("utf-8"), ensure_ascii=False)[1:-1])
        at = end
    if raw is not None:
        raw.flush()
    out.write('"' + after + "\n")


_CONTROLS = bytes(c for c in range(0x20) if c != 0x0A)
"""The bytes JSON escapes besides ``\\n``, ``"`` and ``\\``."""


def _utf8_buffer(out: object) -> BinaryIO | None:
    """The byte stream under the text stream ``out`` when ``out`` writes
    text as UTF-8 (then the document's UTF-8 can go straight to it)."""
    import codecs

    encoding = getattr(out, "encoding", None)
    raw = getattr(out, "buffer", None)
    if not isinstance(encoding, str) or raw is None:
        return None
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return None
    return raw if utf8 else None


def _escaped(piece: bytes) -> bytes:
    """``json.dumps(piece.decode(), ensure_ascii=False)[1:-1]`` as UTF-8
    (``piece``: whole characters): JSON escapes ``"``, ``\\`` and the
    characters below U+0020 one at a time, and no byte of a multi-byte
    character is below 0x80, so the bytes are escaped in place; a piece with
    a control character other than ``\\n`` takes ``json.dumps``."""
    if len(piece.translate(None, _CONTROLS)) != len(piece):
        import json

        text = json.dumps(piece.decode("utf-8"), ensure_ascii=False)[1:-1]
        return text.encode("utf-8")
    return piece.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n")


def gate_front(file: Path, snapshot: SnapshotScan | None = None) -> str:
    """:func:`~agent_doc.store.docfile.require_session_document` (the same
    checks and errors), answering the frontmatter text it read: ``preflight``
    then reads the document once more, after its commit, and never holds it
    across the commit. ``snapshot``: filled with the document's snapshot when
    it is valid UTF-8 (:func:`~agent_doc.cycle.commit.read_checked_snapshot`,
    never an error here); the document is then checked past the prefix the
    two share only, and the commit takes it while its file is the same."""
    from agent_doc.document.frontmatter import parse_frontmatter
    from agent_doc.errors import FrontmatterError
    from agent_doc.store.docfile import read_frontmatter_text
    from agent_doc.store.regular_file import require_document

    require_document(file)
    if snapshot is not None:
        from agent_doc.cycle.commit import read_checked_snapshot

        read_checked_snapshot(file, snapshot)
    text = read_frontmatter_text(file, like=None if snapshot is None else snapshot.data)
    try:
        parse_frontmatter(text)
    except FrontmatterError as exc:
        raise FrontmatterError(f"{file}: {exc}") from exc
    return text


def do_route(
    file: Path,
    *,
    pane: str | None,
    debounce: int | None,
    as_json: bool,
    prompt_timeout: float = 30.0,
) -> int:
    """``agent-doc route``: send ``/agent-doc FILE`` to the document's pane.

    A started agent that shows no prompt in time exits 75 (try again later).
    """
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.tmux.route import route as core_route

    result = core_route(
        file, pane=pane, debounce_ms=debounce, prompt_timeout_s=prompt_timeout
    )
    if as_json:
        emit_json(result._asdict())
        return 0
    info(f"{result.file}: {result.status} (pane {result.pane or '-'})")
    return 0


def _seconds(text: str) -> float:
    """A number of seconds, zero or more (typer's ``min=0``)."""
    value = float(text)
    if not value >= 0:
        raise ValueError(f"{text} is not a number of seconds >= 0")
    return value


_SPECS = {
    "outline": Spec(positionals=("file",), flags=("json",)),
    "status": Spec(flags=("json",), options={"root": (Path, None)}),
    "preflight": Spec(positionals=("file",), flags=("no-wait", "excerpts")),
    "route": Spec(
        positionals=("file",),
        flags=("json",),
        options={
            "pane": (str, None),
            "debounce": (int, None),
            "prompt-timeout": (_seconds, 30.0),
        },
    ),
}
"""The command lines of :data:`COMMANDS` (see :mod:`._argv`)."""


def run_turn_command(args: list[str]) -> int | None:
    """Run one of :data:`COMMANDS`; ``None`` when typer must handle the arguments."""
    command = args[0] if args else ""
    if command not in COMMANDS:
        return None
    try:
        ns = parse(args[1:], _SPECS[command])
    except Unhandled:
        return None
    try:
        if command == "status":
            return do_status(ns["root"], as_json=ns["json"])
        from agent_doc.store.docfile import require_session_document

        file = Path(ns["file"])
        if command == "preflight":
            from agent_doc.document.snapshot_scan import SnapshotScan

            snapshot = SnapshotScan()
            return do_preflight(
                file, no_wait=ns["no_wait"], excerpts=ns["excerpts"],
                front_text=gate_front(file, snapshot), snapshot=snapshot,
            )  # fmt: skip
        require_session_document(file)  # as typer's document_argument
        if command == "outline":
            return do_outline(file, as_json=ns["json"])
        return do_route(
            file, pane=ns["pane"], debounce=ns["debounce"], as_json=ns["json"],
            prompt_timeout=ns["prompt_timeout"],
        )  # fmt: skip
    except (Exception, KeyboardInterrupt) as exc:
        from agent_doc.cli._errors import report_error

        return report_error(exc)
