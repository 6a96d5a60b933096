"""``preflight``: every pre-agent step in one call, as JSON (spec §7.26, §7.27).

Order: wait for the document to settle (mtime debounce, and the live typing
state when a language server has it open) → recover an orphaned pending
response → commit the previous cycle → save the baseline → read and truncate
``claims.log`` → check linked documents → diff snapshot vs document → the
document itself. While a server has the document open, "the document" is its
live buffer, so the agent sees unsaved edits.
"""

from __future__ import annotations

import time
from pathlib import Path

from agent_doc._runtime.lazy import lazy_logger
from agent_doc._runtime.record import Record
from agent_doc.cycle.commit import commit_and_refresh
from agent_doc.cycle.commit import start_commit
from agent_doc.cycle.preflight_utf8 import diff_of
from agent_doc.cycle.preflight_utf8 import excerpts_of
from agent_doc.cycle.preflight_utf8 import prompt_size
from agent_doc.cycle.preflight_utf8 import read_sides
from agent_doc.cycle.preflight_utf8 import save_baseline
from agent_doc.cycle.prompt import resumed_allowed
from agent_doc.cycle.prompt import utf8_length
from agent_doc.cycle.recovery import recover_pending
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.document.scaffold import nothing_typed
from agent_doc.document.snapshot_scan import SnapshotScan
from agent_doc.errors import AgentDocError
from agent_doc.store.conversation import load_conversation_settings
from agent_doc.store.docfile import ReadCache
from agent_doc.store.docfile import read_frontmatter_text
from agent_doc.store.state import StateStore
from agent_doc.store.state import atomic_write_text
from agent_doc.store.state import project_root_for
from agent_doc.store.state import read_document
from agent_doc.write.backlog import tidy_backlog
from agent_doc.write.outcome import normalize_text

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from agent_doc.cycle.gitcommit import Git
    from agent_doc.cycle.links import LinkedChange
    from agent_doc.write.server_link import ServerLink

logger = lazy_logger(__name__)

DEFAULT_DEBOUNCE_MS = 500
DEFAULT_TYPING_MS = 1500


class PreflightResult(Record):
    """The §7.26 result."""

    __slots__ = (
        "recovered",
        "committed",
        "claims",
        "diff",
        "document",
        "linked_changes",
        "prompt_bytes",
        "prompt_mode",
        "compact_hint",
        "excerpts",
        "backlog",
        "document_data",
    )

    def __init__(
        self,
        recovered: bool,
        committed: bool,
        claims: list[str],
        diff: str | None,
        document: str | None,
        linked_changes: Sequence[LinkedChange] = (),
        prompt_bytes: int = 0,
        prompt_mode: str | None = None,
        compact_hint: str | None = None,
        excerpts: str | None = None,
        backlog: dict[str, Any] | None = None,
        document_data: bytes | None = None,
    ) -> None:
        self.recovered = recovered
        self.committed = committed
        self.claims = claims
        self.diff = diff
        self.document = document
        """The document's text (``None`` when ``excerpts`` stand in for it, or
        when only its UTF-8 was read: ``document_data``)."""
        self.document_data = document_data
        """The document's UTF-8, when its text was not decoded (the JSON's
        ``document`` is decoded from it, or written from it a piece at a time:
        :func:`agent_doc.cli.commands._fast_turn.emit_preflight`)."""
        self.linked_changes = linked_changes
        self.prompt_bytes = prompt_bytes
        """Size of the prompt ``run`` would send now (0 with no changes)."""
        self.prompt_mode = prompt_mode
        """``full`` or ``resumed`` (None with no changes)."""
        self.compact_hint = compact_hint
        """Set when the document is past ``compact_suggest_bytes``: what to run."""
        self.excerpts = excerpts
        """With ``--excerpts`` on a document the agent has seen: the parts it
        needs (as a resumed prompt's ``<excerpts>``) in place of ``document``."""
        self.backlog = backlog
        """The backlog step's report (:func:`agent_doc.write.backlog.tidy_backlog`),
        ``None`` without a backlog or icebox."""

    @property
    def no_changes(self) -> bool:
        """True when the document equals its snapshot (after comment stripping)."""
        return self.diff is None

    def document_text(self) -> str:
        """The document's text (decoded from ``document_data`` if need be)."""
        if self.document is None and self.document_data is not None:
            return self.document_data.decode("utf-8")
        return self.document or ""

    def to_json(self, document: str | None = None) -> dict[str, Any]:
        """Return the exact §7.26 JSON object (``document``: a stand-in for
        the document's text, which a caller then writes itself)."""
        out: dict[str, Any] = {
            "recovered": self.recovered,
            "committed": self.committed,
            "claims": self.claims,
            "diff": self.diff,
            "no_changes": self.no_changes,
        }
        if self.excerpts is None:
            out["document"] = self.document_text() if document is None else document
            out["document_form"] = "full"
        else:
            out["excerpts"] = self.excerpts
            out["document_form"] = "excerpts"
        if self.linked_changes:
            out["linked_changes"] = [c.to_json() for c in self.linked_changes]
        out["prompt_bytes"] = self.prompt_bytes
        out["prompt_tokens_estimate"] = (self.prompt_bytes + 3) // 4
        out["prompt_mode"] = self.prompt_mode
        out["suggest_compact"] = self.compact_hint is not None
        if self.compact_hint is not None:
            out["compact_hint"] = self.compact_hint
        if self.backlog is not None:
            out["backlog"] = self.backlog
        return out


def wait_until_settled(
    path: Path,
    link: ServerLink | None,
    *,
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    typing_ms: int = DEFAULT_TYPING_MS,
) -> float:
    """Wait (bounded by 10× the window) until the user stopped editing.

    Returns the seconds waited. The live typing time comes from a language
    server that has the document open; the file's mtime covers the rest.
    """
    started = time.monotonic()
    deadline = started + 10 * max(debounce_ms, typing_ms) / 1000
    while time.monotonic() < deadline:
        now_ms = time.time() * 1000
        quiet_for = now_ms - path.stat().st_mtime * 1000
        wait_ms = max(0.0, debounce_ms - quiet_for)
        typed = link.typing(path) if link is not None else None
        if typed is not None:
            wait_ms = max(wait_ms, typing_ms - (now_ms - typed))
        if wait_ms <= 0:
            break
        time.sleep(min(wait_ms, 250) / 1000)
    return time.monotonic() - started


def read_claims(root: Path) -> list[str]:
    """Return the lines of ``claims.log`` and truncate it."""
    log = root / ".agent-doc" / "claims.log"
    if not log.exists():
        return []
    text = log.read_text("utf-8", errors="replace")
    if text:  # an empty log stays as it is (no write, no fsync every turn)
        atomic_write_text(log, "")
    return [ln for ln in text.splitlines() if ln]


def _start_commit(path: Path) -> Git | None:
    """git's processes for the commit, started now (``None``: the commit says why)."""
    try:
        return start_commit(path)
    except AgentDocError:
        return None


def _recover_and_commit(
    path: Path, link: ServerLink | None, scan: SnapshotScan
) -> tuple[bool, bool]:
    """Recover an orphaned pending response, then commit the previous cycle:
    ``(recovered, committed)``."""
    git = _start_commit(path)  # git starts up during the recovery
    try:
        recoveries = recover_pending(path, link)
        for item in recoveries:
            if item.status == "dropped":
                note = "preflight: dropped an empty pending response of %s"
                logger.warning(note, path)
        recovered = any(r.status in ("written", "completed") for r in recoveries)
        return recovered, _commit_previous(path, link, git, scan)
    finally:
        if git is not None:
            git.close()


def _commit_previous(
    path: Path, link: ServerLink | None, git: Git | None, scan: SnapshotScan
) -> bool:
    try:
        committed, _ = commit_and_refresh(path, link, git=git, scan=scan)
    except AgentDocError as exc:
        logger.warning("preflight: commit skipped: %s", exc)
        return False
    return committed


def current_text(
    path: Path, link: ServerLink | None, reads: ReadCache | None = None
) -> str:
    """The document as the user sees it: the live buffer if open, else the
    file; in the core's form either way (``\\n`` line endings, no BOM: an
    editor may hold a CRLF buffer, whose frontmatter and diff must read as
    the file's do). ``reads`` keeps the file's bytes (``reads.utf8_of``)."""
    owner = link.find_owner(path) if link is not None else None
    if owner is not None:
        return normalize_text(owner.text)
    return read_document(path, reads).text


def run_preflight(
    path: Path,
    link: ServerLink | None = None,
    *,
    settle: bool = True,
    allow_network: bool = True,
    excerpts: bool = False,
    front_text: str | None = None,
    snapshot: SnapshotScan | None = None,
) -> PreflightResult:
    """Run the pre-agent steps for ``path`` and return their result.

    ``allow_network=False`` (a language server on an untrusted workspace) lists
    URL links unfetched (see :func:`agent_doc.cycle.links.check_links`).
    ``excerpts`` (the caller's conversation has seen the document) puts the
    resumed prompt's excerpts in place of the whole document — when a snapshot
    says what it saw and the config's ``prompt`` is not ``"full"``; otherwise,
    and on a first turn, the whole document as always. ``front_text``: the
    document's frontmatter text, when the caller's gate has just read it;
    ``snapshot``: the snapshot it read and checked (the commit takes it while
    its file is the same).

    The document is read (and checked) again after the commit, as bytes, and
    not held across the commit, which holds the snapshot and HEAD's blob.
    """
    path = Path(path)
    if front_text is None:
        front_text = read_frontmatter_text(path)
    front = parse_frontmatter(front_text)
    if settle:
        wait_until_settled(
            path,
            link,
            debounce_ms=front.debounce_ms or DEFAULT_DEBOUNCE_MS,
            typing_ms=front.typing_indicator_ms or DEFAULT_TYPING_MS,
        )
    root = project_root_for(path)
    store = StateStore(root)
    scan = snapshot if snapshot is not None else SnapshotScan()  # and its blocks
    recovered, committed = _recover_and_commit(path, link, scan)
    reads = ReadCache()  # the file's bytes, read once from here on
    checked = scan if scan.data is not None else None  # as the commit read it
    sides = read_sides(path, link, reads, checked)  # bytes when plain UTF-8
    backlog = None
    if sides.names_item_lists():
        backlog = tidy_backlog(path, link)
        if backlog is not None:
            sides = read_sides(path, link, reads, checked)
    save_baseline(store, path, sides)
    claims = read_claims(root)
    linked: list[LinkedChange] = []
    if front.links:
        from agent_doc.cycle.links import check_links

        linked = check_links(root, path, front.links, allow_network=allow_network)
    sides.load_snapshot(store, path, scan)
    if sides.snapshot is None and nothing_typed(sides.text()):
        diff = None  # a fresh document: only what ``init`` wrote (as ``run``)
    else:  # the window only, on the bytes read
        diff = diff_of(sides)
    settings = load_conversation_settings(root)
    resumes = resumed_allowed(settings.prompt)
    parts = None
    if excerpts and resumes and sides.snapshot is not None and diff is not None:
        parts = excerpts_of(sides)
    size, mode = 0, None
    if diff is not None:
        size, mode = prompt_size(
            path, root, sides, diff, resumed_ok=resumes, excerpts=parts
        )
    text = sides.decoded()  # the full form's document, decoded only if it was
    return PreflightResult(
        recovered, committed, claims, diff, text if parts is None else None,
        linked, size, mode, compact_hint(path, root, sides.size()), parts, backlog,
        sides.data if parts is None and text is None else None,
    )  # fmt: skip


def compact_hint(path: Path, root: Path, document: str | int) -> str | None:
    """The suggestion to compact ``path``, when it is past the configured size
    (``document``: its text, or its size in UTF-8 bytes)."""
    settings = load_conversation_settings(root)
    size = document if isinstance(document, int) else utf8_length(document)
    if settings.suggest_bytes == 0 or size <= settings.suggest_bytes:
        return None
    return (
        f"{path.name} is {size / 1e6:.1f} MB: 'agent-doc compact {path.name}' "
        f"moves all but the last {settings.keep_turns} turns to an archive"
    )
