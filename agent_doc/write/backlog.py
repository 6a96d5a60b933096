"""Backlog operations and preflight's tidy, landed through the write seam.

A language server that has the document open gets the change as one merge
(``ServerLink.merge``: the buffer goes from the text read to the changed
text, keeping what was typed since, in one minimal edit); otherwise the file
is rewritten under the document lock. The snapshot follows when the agent
made the change (so the next diff does not show it as the person's), and
only after the document changed: both or neither.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.document.backlog import ITEM_COMPONENTS
from agent_doc.document.backlog import item_ids
from agent_doc.document.backlog import reordered
from agent_doc.document.backlog import tidy_items
from agent_doc.document.backlog_ops import apply_to_document
from agent_doc.document.components import find_component
from agent_doc.document.components import replace_content
from agent_doc.document.components import scan_components
from agent_doc.document.yrs_codec import encode_text_state
from agent_doc.errors import AgentDocError
from agent_doc.store.state import StateStore
from agent_doc.store.state import doc_lock
from agent_doc.store.state import project_root_for
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.write.outcome import normalize_text

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agent_doc.document.backlog_ops import BacklogOp
    from agent_doc.write.server_link import ServerLink


class ItemsOutcome(Record):
    """What one backlog operation did."""

    __slots__ = ("id", "changed", "target")

    def __init__(self, id: str | None, changed: bool, target: str) -> None:
        self.id = id
        """The item's id (add: the new or existing one)."""
        self.changed = changed
        self.target = target
        """``disk`` or ``server`` (an editor's live buffer)."""


def _land(
    path: Path,
    change: Callable[[str], str],
    snapshot_change: Callable[[str], str] | None,
    link: ServerLink | None,
) -> tuple[bool, str]:
    """Apply ``change`` to the document through the seam, then
    ``snapshot_change`` to the snapshot; ``(changed, target)``."""
    path = Path(path)
    root = project_root_for(path)
    store = StateStore(root)
    handle = link.find_owner(path) if link is not None else None
    if handle is not None and link is not None:
        before = normalize_text(handle.text)
        after = change(before)  # may refuse: nothing changed yet
        if after != before:
            link.merge(handle, before, after)
        _follow(store, path, snapshot_change, after != before)
        return after != before, "server"
    with doc_lock(path, root=root):
        current = read_document(path)
        after = change(current.text)
        if after != current.text:
            write_document(path, current, after)
        _follow(store, path, snapshot_change, after != current.text)
    return after != current.text, "disk"


def _follow(
    store: StateStore,
    path: Path,
    snapshot_change: Callable[[str], str] | None,
    changed: bool,
) -> None:
    if snapshot_change is None or not changed:
        return
    snapshot = store.load_snapshot(path)
    if snapshot is None:
        return
    new = snapshot_change(snapshot)
    if new != snapshot:
        store.save_snapshot(path, new)
        store.save_crdt(path, encode_text_state(new))


def _quietly(op: BacklogOp, component: str) -> Callable[[str], str]:
    """``op`` for the snapshot: the snapshot may not hold the item (the person
    added it since); then it stays as it is."""

    def change(text: str) -> str:
        try:
            return apply_to_document(text, op, component).content
        except AgentDocError:
            return text

    return change


def change_items(
    path: Path,
    op: BacklogOp,
    *,
    component: str = "backlog",
    link: ServerLink | None = None,
    by_agent: bool = True,
) -> ItemsOutcome:
    """Apply ``op`` to ``component`` of ``path`` through the write seam.

    ``by_agent`` makes the snapshot follow (the agent's own change is not news
    to it); a change the person makes from the editor leaves it.
    """
    found: list[str | None] = []

    def change(text: str) -> str:
        result = apply_to_document(text, op, component)
        found.append(result.id)
        return result.content

    follow = _quietly(op, component) if by_agent else None
    changed, target = _land(path, change, follow, link)
    return ItemsOutcome(found[-1] if found else None, changed, target)


def _tidy_text(
    text: str,
    report: dict[str, Any] | None = None,
    reaped: dict[str, Any] | None = None,
) -> str:
    """``text`` with each list of items tidied; what was done goes in
    ``report``; items the document's tidy reaped (``reaped``) go too."""
    scan = scan_components(text)
    for name in ITEM_COMPONENTS:
        component = find_component(scan.components, name)
        if component is None:
            continue
        gone = reaped[name].reaped if reaped and name in reaped else ()
        tidied = tidy_items(component.content(text), gone)
        if report is not None:
            report[name] = tidied
        if tidied.content != component.content(text):
            text = replace_content(text, component, tidied.content)
            scan = scan_components(text)
    return text


def tidy_backlog(path: Path, link: ServerLink | None) -> dict[str, Any] | None:
    """Preflight's step: fill in ids and boxes and remove done items, in the
    document and the snapshot; report the counts, a reorder by the person and
    the items the person deleted (gone without being done).

    ``None`` when the document has no backlog or icebox.
    """
    path = Path(path)
    store = StateStore(project_root_for(path))
    report: dict[str, Any] = {}
    order_before: list[str] = []

    def change(text: str) -> str:
        report.clear()
        snapshot = store.load_snapshot(path) or ""
        component = find_component(scan_components(snapshot).components, "backlog")
        order_before[:] = item_ids(component.content(snapshot)) if component else []
        return _tidy_text(text, report)

    _land(path, change, lambda snap: _tidy_text(snap, None, report), link)
    if not report:
        return None
    out: dict[str, Any] = {}
    backlog = report.get("backlog")
    if backlog is not None:
        out.update(
            open=backlog.open,
            gated=backlog.gated,
            order=backlog.order,
            reordered_by_person=reordered(order_before, backlog.order),
            removed_by_person=[
                i
                for i in order_before
                if i not in backlog.order and i not in backlog.reaped
            ],
        )
    out["backfilled"] = [i for t in report.values() for i in t.backfilled]
    out["reaped"] = [i for t in report.values() for i in t.reaped]
    if "icebox" in report:
        out["icebox"] = len(report["icebox"].order)
    return out
