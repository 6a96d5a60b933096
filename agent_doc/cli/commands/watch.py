"""``agent-doc watch``: the auto-submit daemon and its control (§7.23)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument

NOT_RUNNING = 3
"""Exit code of ``watch --status`` when no daemon runs (LSB ``status``: 3)."""


def watch(
    files: Annotated[
        list[Path] | None,
        document_argument(
            "Extra documents to watch (besides sessions.json).", frontmatter=False
        ),
    ] = None,
    stop: Annotated[
        bool, typer.Option("--stop", help="Stop the running daemon (SIGTERM).")
    ] = False,
    status: Annotated[
        bool, typer.Option("--status", help="Report whether the daemon runs.")
    ] = False,
    debounce: Annotated[
        int, typer.Option("--debounce", min=0, help="Quiet time before a cycle, ms.")
    ] = 500,
    max_cycles: Annotated[
        int,
        typer.Option("--max-cycles", min=1, help="Cycles allowed per human change."),
    ] = 3,
    agent: Annotated[str | None, typer.Option(help="Agent backend name.")] = None,
    no_git: Annotated[
        bool, typer.Option("--no-git", help="Do not commit cycles.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="JSON output (--status/--stop).")
    ] = False,
) -> None:
    """Watch session documents and run an agent cycle when one is saved.

    Runs in the foreground until SIGTERM/SIGINT/SIGHUP (or `agent-doc watch
    --stop`); a cycle under way then stops its agent (the whole process group).
    --status prints "running (pid N)" or "not running" on stdout and exits 0
    or 3 (--json alike).
    State lives at the project root: .agent-doc/watch.pid, watch.lock and
    logs/watch.jsonl.
    """
    from agent_doc.automation.watch_daemon import stop_watch
    from agent_doc.automation.watch_daemon import watch_status
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.store.state import project_root_for

    root = project_root_for(Path.cwd())
    if status:
        result = watch_status(root)
        if as_json:
            emit_json(result.to_json())
        else:
            emit(f"running (pid {result.pid})\n" if result.running else "not running\n")
        if not result.running:
            raise typer.Exit(NOT_RUNNING)
        return
    if stop:
        result = stop_watch(root)
        if as_json:
            emit_json(result.to_json())
        else:
            done = f"stopped watch (pid {result.pid})"
            stale = " (stale pid file removed)" if result.stale_pid_removed else ""
            emit((done if result.running else "not running") + stale + "\n")
        return
    _run_daemon(root, files or [], debounce, max_cycles, agent, no_git)


def _run_daemon(
    root: Path,
    files: list[Path],
    debounce: int,
    max_cycles: int,
    agent: str | None,
    no_git: bool,
) -> None:
    import signal
    import threading
    from typing import Any

    from agent_doc.automation.watch import Watcher
    from agent_doc.automation.watch import WatchOptions
    from agent_doc.automation.watch import in_git_repo
    from agent_doc.automation.watch_daemon import DaemonLock
    from agent_doc.cli._output import info
    from agent_doc.cli.commands._room import served_room_of
    from agent_doc.write.server_link import ServerLink

    lock = DaemonLock(root)
    stop = threading.Event()

    def _on_signal(_signum: int, _frame: object) -> None:
        stop.set()

    def _report(item: dict[str, Any]) -> None:
        name = Path(item["file"]).name if "file" in item else ""
        extra = item.get("error") or item.get("status") or ""
        info(f"watch: {item['event']} {name} {extra}".rstrip())

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _on_signal)  # a cycle under way is cancelled too
    options = WatchOptions(
        debounce_ms=debounce,
        max_cycles=max_cycles,
        agent=agent,
        no_git=no_git or not in_git_repo(root),
        files=tuple(f.resolve() for f in files),
    )
    try:
        watcher = Watcher(root, options, ServerLink(), _report, served_room_of)
        watcher.run(stop, lock.still_owned)
    finally:
        lock.release()


def register(app: typer.Typer) -> None:
    """Add ``watch`` to the app."""
    app.command("watch")(watch)
