"""``write`` and ``patch`` into a shared room (``--room`` / ``$AGENT_DOC_SHARE_URL``).

The answer becomes a Yjs transaction in the room of an ``agent-doc serve`` on
any host (:mod:`agent_doc.share.remote`); FILE, the writer's own copy of the
document, only names the room and holds the component configuration, and is
not written. This module must not import typer.
"""

from __future__ import annotations

import sys
from pathlib import Path


def room_write(
    file: Path,
    response: str,
    room: str | None,
    token_file: Path | None,
    baseline_file: Path | None,
    as_json: bool,
) -> int:
    """``agent-doc write --room``: ``response`` goes into the room; the
    host's snapshot follows the room's (the next ``run --room`` from this
    host does not send the answered question again)."""
    from agent_doc.cycle.room_turn import follow_room
    from agent_doc.share.remote import room_target
    from agent_doc.share.remote import write_to_room
    from agent_doc.write.pipeline import read_baseline_file

    target = room_target(file, room, token_file)
    assert target is not None  # a room was given, or the variable is set
    baseline = read_baseline_file(baseline_file) if baseline_file else None
    outcome = write_to_room(target, file, response, baseline)
    if outcome.ours is not None:
        follow_room(file, outcome.ours)
    verb = "already landed:" if outcome.already else "wrote"
    _report(verb, file, outcome.url, outcome.edits or outcome.already, as_json)
    return 0


def room_patch(
    file: Path,
    component: str,
    content: str,
    room: str | None,
    token_file: Path | None,
    as_json: bool,
) -> int:
    """``agent-doc patch --room``: one component of the room's document."""
    from agent_doc.share.remote import patch_in_room
    from agent_doc.share.remote import room_target

    target = room_target(file, room, token_file)
    assert target is not None
    outcome = patch_in_room(target, file, component, content)
    _report(f"patched {component} in", file, outcome.url, outcome.edits, as_json)
    return 0


def _report(verb: str, file: Path, url: str, edits: int | bool, as_json: bool) -> None:
    if as_json:
        import json

        summary = {
            "file": str(file),
            "target": "room",
            "room": url,
            "changed": bool(edits),
        }
        sys.stdout.write(json.dumps(summary) + "\n")
        return
    what = verb if edits else "unchanged:"
    sys.stderr.write(f"agent-doc: {what} {file} (room {url})\n")


def served_room_of(file: Path) -> object | None:
    """The room of ``file`` when this host's ``agent-doc serve`` shares it (a
    local turn holds its turn too), else ``None``."""
    from agent_doc.store.state import find_project_root

    root = find_project_root(Path(file).resolve().parent)
    if root is None or not (root / ".agent-doc" / "share" / "serving.json").exists():
        return None  # nothing served: a local run does not load the share package
    from agent_doc.share.served import served_room

    return served_room(file)
