"""The agent-cycle commands: run, preflight, commit, clean, history, instructions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import RoomOption
from agent_doc.cli._params import TokenFileOption
from agent_doc.cli._params import document_argument
from agent_doc.cycle.turn_lock import TurnRecord

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.cycle.cost_guard import CostGuard
    from agent_doc.cycle.cost_guard import PromptCost
    from agent_doc.cycle.room_turn import RoomSide
    from agent_doc.cycle.run import RunOutcome

FileArg = Annotated[Path, document_argument()]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
BranchOpt = Annotated[
    bool, typer.Option("-b", "--branch", help="Work on branch agent-doc/<stem>.")
]
AgentOpt = Annotated[str | None, typer.Option(help="Agent backend name.")]
ModelOpt = Annotated[str | None, typer.Option(help="Model override.")]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Print the prompt; send nothing.")
]
NoGitOpt = Annotated[bool, typer.Option("--no-git", help="Do not commit.")]
TimeoutOpt = Annotated[
    float, typer.Option(min=1, help="Seconds to wait for the agent (>= 1).")
]
WaitOpt = Annotated[
    bool,
    typer.Option(
        "--wait",
        help="When another turn runs on FILE, wait for it (up to --timeout) "
        "instead of refusing.",
    ),
]
VerboseOpt = Annotated[
    bool,
    typer.Option(
        "-v",
        "--verbose",
        help="Print the prompt's size (bytes, estimated tokens) and form.",
    ),
]
YesOpt = Annotated[
    bool,
    typer.Option(
        "-y",
        "--yes",
        help="Send a prompt above prompt_limit_bytes (default 200 KB) without asking.",
    ),
]


def run(
    file: FileArg,
    branch: BranchOpt = False,
    agent: AgentOpt = None,
    model: ModelOpt = None,
    dry_run: DryRunOpt = False,
    no_git: NoGitOpt = False,
    timeout: TimeoutOpt = 600.0,
    wait: WaitOpt = False,
    verbose: VerboseOpt = False,
    room: RoomOption = None,
    token_file: TokenFileOption = None,
    yes: YesOpt = False,
) -> None:
    """Send FILE's changes to the agent and write its response back.

    One turn per document at a time: while another ``run``, ``watch`` or the
    language server answers FILE, this is refused at once (or waits, --wait).
    A resumed agent session gets the diff and excerpts, not the whole document.
    With --room the document is a shared room: its text is read from the room
    (refused before the agent is called when the room cannot be reached), the
    answer written into it (streamed, for an ACP agent), and FILE and its
    snapshot then follow the room.
    A prompt above prompt_limit_bytes (a first turn, a lost session) is sent
    only after you agree: asked on a terminal, else refused unless --yes.
    """
    from agent_doc.automation.turns import run_cycle_tracked as run_cycle
    from agent_doc.cli._output import info
    from agent_doc.cli.commands._room import served_room_of
    from agent_doc.cycle.cancel import interrupt_on_signal
    from agent_doc.cycle.cancel import signals_routed
    from agent_doc.write.server_link import ServerLink

    def waiting(holder: TurnRecord) -> None:
        info(
            f"agent-doc: {file} has a turn running ({holder.describe()}); "
            f"waiting up to {timeout:g} s for it to end"
        )

    shared = room_turn(file, room, token_file)
    with signals_routed(interrupt_on_signal):  # SIGTERM/SIGHUP unwind like Ctrl-C
        outcome = run_cycle(
            file,
            wait_s=timeout if wait else 0.0,
            on_wait=waiting,
            progress=not dry_run,
            agent=agent,
            model=model,
            branch=branch,
            dry_run=dry_run,
            no_git=no_git,
            link=ServerLink(),
            timeout=timeout,
            room=shared,
            served=None if shared or dry_run else served_room_of(file),
            guard=None if dry_run else cost_guard(file, yes=yes),
        )
    report_run(file, outcome, dry_run=dry_run, verbose=verbose)


def report_run(
    file: Path, outcome: RunOutcome, *, dry_run: bool, verbose: bool
) -> None:
    """Say what ``run`` did (the prompt itself for a dry run, on stdout);
    a cancelled turn exits 128 + the signal once its partial answer is in."""
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import info

    if verbose and outcome.prompt:
        info(f"agent-doc: {describe_prompt(outcome)}")
    if outcome.cancelled is not None:  # the partial answer is written, marked
        raise outcome.cancelled
    if outcome.no_changes:
        info(
            f"agent-doc: nothing to send: nothing typed in {file} since the last answer"
        )
    elif dry_run:
        emit(outcome.prompt)
    elif outcome.write is not None:
        where = f"room {outcome.room}" if outcome.room else outcome.write.target
        extra = ", committed" if outcome.committed else ""
        info(f"{outcome.agent} answered; wrote {file} ({where}{extra})")


def cost_guard(file: Path, *, yes: bool) -> CostGuard:
    """The turn's cost guard: asks on a terminal, refuses without one."""
    import sys

    from agent_doc.cli._output import info
    from agent_doc.cycle.cost_guard import cost_guard_for

    terminal = sys.stdin.isatty() and sys.stderr.isatty()
    return cost_guard_for(
        file, approved=yes, ask=ask_on_terminal if terminal else None, announce=info
    )


def ask_on_terminal(cost: PromptCost) -> bool:
    """Ask on the terminal whether a big prompt may be sent (``[y/N]``)."""
    import sys

    sys.stderr.write(f"agent-doc: {cost.describe()}. Send it? [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def room_turn(file: Path, room: str | None, token_file: Path | None) -> RoomSide | None:
    """The shared room ``run`` works in (--room, else $AGENT_DOC_SHARE_URL).

    The room is joined once here, before the turn is taken: a wrong token or
    an unreachable server stops ``run`` before anything local is written (the
    turn reads the room again once it holds the turn).
    """
    import os

    if not room and not os.environ.get("AGENT_DOC_SHARE_URL"):
        return None  # a local run does not load the share package
    from agent_doc.share.remote import room_target
    from agent_doc.share.room_run import RoomTurn

    target = room_target(file, room, token_file)
    if target is None:
        return None
    shared = RoomTurn(target, file)
    shared.read_text()  # refused or unreachable: stop before any local state
    return shared


def describe_prompt(outcome: RunOutcome) -> str:
    """``prompt: 1234 bytes (~309 tokens), resumed: diff and excerpts``."""
    from agent_doc.cycle.prompt import prompt_size

    size, tokens = prompt_size(outcome.prompt)
    form = {
        "resumed": "resumed: diff and excerpts",
        "full": "full: diff and the whole document",
    }[outcome.prompt_mode]
    if outcome.full_because == "no-load":
        form = "full: the agent cannot load sessions, a new one gets the whole document"
    elif outcome.resent_full:
        form = "full: the session was lost, sent again with the whole document"
    return f"prompt: {size} bytes (~{tokens} tokens), {form}"


def preflight(
    file: FileArg,
    no_wait: Annotated[
        bool, typer.Option("--no-wait", help="Skip the edit-settling debounce.")
    ] = False,
    excerpts: Annotated[
        bool,
        typer.Option(
            "--excerpts",
            help="Your conversation has seen FILE before: print the parts you "
            "need (excerpts) instead of the whole document.",
        ),
    ] = False,
) -> None:
    """Run every pre-agent step and print their outcome as JSON on stdout.

    With --excerpts (and a snapshot of what the agent saw, and prompt not
    "full") the JSON carries "excerpts" — the changed components and the
    exchange's tail — in place of "document"; "document_form" says which.
    """
    from agent_doc.cli.commands._fast_turn import do_preflight

    do_preflight(file, no_wait=no_wait, excerpts=excerpts)


def commit(file: FileArg, as_json: JsonOpt = False) -> None:
    """Commit FILE's snapshot (the agent's response) with (HEAD) markers."""
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.commit import commit_and_refresh
    from agent_doc.write.server_link import ServerLink

    committed, message = commit_and_refresh(file, ServerLink())
    if as_json:
        emit_json({"committed": committed, "message": message})
    else:
        info(message if committed else f"{file}: {message}")


def clean(file: FileArg, as_json: JsonOpt = False) -> None:
    """Squash FILE's consecutive agent-doc commits at HEAD into one."""
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.commit import squash_document_commits

    squashed, message = squash_document_commits(file)
    if as_json:
        emit_json({"squashed": squashed, "message": message})
    else:
        info(message)


def history(
    file: FileArg,
    restore: Annotated[
        str | None, typer.Option(help="Prepend the exchange of this commit.")
    ] = None,
    archived: Annotated[
        bool,
        typer.Option(
            "--archived", help="List the answers `compact` moved to FILE's archive."
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """List FILE's exchange versions in git, or restore one with --restore.

    With --archived, list the answers in FILE's archive document instead.
    """
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.commit import document_history
    from agent_doc.cycle.commit import restored_exchange
    from agent_doc.cycle.preflight import current_text
    from agent_doc.write.patch import patch_component
    from agent_doc.write.server_link import ServerLink

    if restore is not None:
        link = ServerLink()
        content = restored_exchange(file, restore, current_text(file, link))
        patch_component(file, "exchange", content, mode="replace")
        info(f"restored the exchange of {restore} above the current one in {file}")
        return
    if archived:
        show_archived(file, as_json=as_json)
        return
    entries = document_history(file)
    if as_json:
        emit_json(
            [
                {
                    "sha": e.sha,
                    "when": e.when,
                    "message": e.message,
                    "exchange": e.exchange,
                }
                for e in entries
            ]
        )
        return
    for entry in entries:
        emit(f"{entry.sha[:10]}  {entry.when}  {entry.preview()}\n")
    archive = archive_of(file)
    if archive is not None:
        info(
            f"older turns are archived in {archive}: "
            f"agent-doc history {file} --archived lists them"
        )


def archive_of(file: Path) -> Path | None:
    """FILE's archive document, when ``compact`` made one."""
    from agent_doc.cycle.compact import archive_path
    from agent_doc.store.conversation import load_conversation_settings
    from agent_doc.store.state import project_root_for

    root = project_root_for(file)
    found = archive_path(Path(file), root, load_conversation_settings(root))
    return found if found.is_file() else None


def show_archived(file: Path, *, as_json: bool) -> None:
    """Print the answers of FILE's archive (``history --archived``)."""
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.compact import archived_answers

    archive = archive_of(file)
    found = archived_answers(archive) if archive is not None else []
    if as_json:
        emit_json(
            [
                {"heading": a.heading, "line": a.line, "archive": str(archive)}
                for a in found
            ]
        )
        return
    if archive is None:
        info(f"{file} has no archive: nothing was compacted")
        return
    for answer in found:
        emit(f"{archive}:{answer.line}  {answer.heading}\n")
    _pre_compact_hint(file)


def _pre_compact_hint(file: Path) -> None:
    """Name the tags ``compact`` left, where the archived turns are in place."""
    from agent_doc.cli._output import info
    from agent_doc.cycle.named_history import PRE_COMPACT
    from agent_doc.cycle.named_history import document_log

    tags = [t for e in document_log(file) for t in e.tags if PRE_COMPACT in t]
    if tags:
        info(
            f"before each compaction: {', '.join(tags)} "
            f"(agent-doc show {file} --tag NAME prints one)"
        )


def instructions(file: FileArg, as_json: JsonOpt = False) -> None:
    """Show which AGENTS.md applies to FILE and whether it is inherited."""
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cycle.instructions import resolve_instructions
    from agent_doc.store.state import project_root_for

    found = resolve_instructions(file, project_root_for(file))
    if as_json:
        emit_json(
            None
            if found is None
            else {
                "path": str(found.path),
                "inherited": found.inherited,
                "chars": len(found.content),
                "drafts_skipped": [str(p) for p in found.drafts_skipped],
            }
        )
    elif found is None:
        emit("no active AGENTS.md applies\n")
    else:
        how = "inherited" if found.inherited else "in the document's folder"
        emit(f"{found.path} ({how}, {len(found.content)} chars)\n")


def register(app: typer.Typer) -> None:
    """Add the agent-cycle commands to the app."""
    app.command("run")(run)
    app.command("preflight")(preflight)
    app.command("commit")(commit)
    app.command("clean")(clean)
    app.command("history")(history)
    app.command("instructions")(instructions)
