"""Project and document housekeeping: init, reset, diff, mode and recover.

Each public function here is the one core call behind a CLI command. They work
on real files under the project's ``.agent-doc/`` (via :mod:`agent_doc.store.state`)
and reach a running language server through :mod:`agent_doc.write.server_link` when
the live buffer matters (``diff``, ``recover``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_doc.errors import DocumentError
from agent_doc.errors import FrontmatterError

if TYPE_CHECKING:
    from agent_doc.write.pipeline import WriteOutcome
    from agent_doc.write.server_link import ServerLink

SKILL_RELPATH = Path(".claude/skills/agent-doc/SKILL.md")
"""Where project init installs the bundled Claude Code skill."""

FORMATS = ("template", "inline")
SKIP_DIRS = frozenset({".git", ".agent-doc", ".venv", "venv", "node_modules"})


@dataclass(frozen=True, slots=True)
class InitResult:
    """What project init created (empty ``created``: it was already set up)."""

    root: Path
    created: tuple[str, ...] = ()


def _bundled_skill() -> str | None:
    """The bundled SKILL.md (version rendered), or ``None`` if none is packaged."""
    from agent_doc.cycle.skill import bundled_skill

    return bundled_skill()


def init_project(root: Path | None = None) -> InitResult:
    """Create ``.agent-doc/`` (+ ``snapshots/``) and install the bundled skill.

    ``root`` defaults to the project of the current folder (an enclosing
    ``.agent-doc/`` owner, else the git top-level, else the current folder).
    Idempotent: running it again creates nothing.
    """
    from agent_doc.store.state import STATE_DIR
    from agent_doc.store.state import atomic_write_text
    from agent_doc.store.state import project_root_for

    root = Path(root) if root is not None else project_root_for(Path.cwd())
    created: list[str] = []
    for rel in (Path(STATE_DIR), Path(STATE_DIR) / "snapshots"):
        folder = root / rel
        if not folder.is_dir():
            try:
                folder.mkdir(parents=True)
            except OSError as exc:
                raise DocumentError(f"cannot create {folder}: {exc.strerror}") from exc
            created.append(f"{rel}/")
    skill = _bundled_skill()
    target = root / SKILL_RELPATH
    if skill is not None and (not target.is_file() or target.read_text() != skill):
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, skill)
        created.append(str(SKILL_RELPATH))
    return InitResult(root, tuple(created))


@dataclass(frozen=True, slots=True)
class ScaffoldResult:
    """A new session document and the project init it triggered."""

    path: Path
    session: str
    project: InitResult


def scaffold_text(title: str, session: str, agent: str | None = None) -> str:
    """The text of a new template-format session document."""
    import json
    import re

    lines = ["---", f"agent_doc_session: {session}", "agent_doc_format: template"]
    if agent:
        plain = re.fullmatch(r"[A-Za-z][A-Za-z0-9._-]*", agent)
        lines.append(f"agent: {agent if plain else json.dumps(agent)}")
    lines += [
        "---",
        "",
        f"# {title}",
        "",
        "<!-- agent:status patch=replace -->",
        "<!-- /agent:status -->",
        "",
        "<!-- agent:exchange patch=append -->",
        "## User",
        "",
        "<!-- /agent:exchange -->",
        "",
    ]
    return "\n".join(lines)


def scaffold_document(
    path: Path, title: str | None = None, agent: str | None = None
) -> ScaffoldResult:
    """Create a new session document; fail if it exists. Runs project init lazily."""
    from agent_doc.store.state import find_project_root
    from agent_doc.store.state import project_root_for

    path = Path(path)
    if not path.parent.is_dir():
        raise DocumentError(f"{path.parent}: no such folder")
    root = find_project_root(path.parent)
    project = InitResult(root) if root else init_project(project_root_for(path.parent))
    import uuid

    session = str(uuid.uuid4())
    text = scaffold_text(title or path.stem, session, agent)
    try:
        with path.open("x", encoding="utf-8", newline="\n") as out:
            out.write(text)
    except FileExistsError as exc:
        raise DocumentError(f"{path} already exists") from exc
    except OSError as exc:
        raise DocumentError(f"cannot create {path}: {exc.strerror}") from exc
    return ScaffoldResult(path, session, project)


@dataclass(frozen=True, slots=True)
class ResetResult:
    """What ``reset`` cleared."""

    path: Path
    cleared_resume: bool
    deleted: tuple[str, ...]


def reset_document(path: Path, link: ServerLink | None = None) -> ResetResult:
    """Clear the ``resume`` id and delete the snapshot and CRDT state.

    The ``resume`` line is removed through the write path, so a language server
    that has the document open changes its live buffer instead of the file.
    """
    from agent_doc.document.frontmatter import parse_frontmatter
    from agent_doc.document.patch_blocks import frontmatter_patch
    from agent_doc.store.state import StateStore
    from agent_doc.store.state import read_document
    from agent_doc.write.pipeline import WriteRequest
    from agent_doc.write.pipeline import write_response

    path = Path(path)
    store = StateStore.for_document(path)
    owner = link.find_owner(path) if link is not None else None
    text = owner.text if owner is not None else read_document(path).text
    cleared = parse_frontmatter(text).resume is not None
    if cleared:
        request = WriteRequest(
            path, frontmatter_patch({"resume": None}), origin="reset"
        )
        write_response(request, link)
    deleted = [
        kind
        for kind, where in (
            ("snapshot", store.snapshot_path(path)),
            ("crdt", store.crdt_path(path)),
        )
        if where.exists()
    ]
    store.delete_snapshot(path)
    store.delete_crdt(path)
    return ResetResult(path, cleared, tuple(deleted))


@dataclass(frozen=True, slots=True)
class DiffResult:
    """The user's changes since the agent's last write."""

    path: Path
    diff: str | None
    """Unified diff snapshot → document, ``None`` when there is no change."""
    source: str
    """``"buffer"`` (live text from a language server) or ``"file"``."""
    has_snapshot: bool


def document_diff(path: Path, link: ServerLink | None = None) -> DiffResult:
    """Diff the snapshot against the document (the live buffer when one is open)."""
    from agent_doc.document.diff import compute_diff
    from agent_doc.store.state import StateStore
    from agent_doc.store.state import read_document
    from agent_doc.write.pipeline import normalize_text

    path = Path(path)
    disk = read_document(path)
    handle = link.find_owner(path) if link is not None else None
    current = normalize_text(handle.text) if handle is not None else disk.text
    previous = StateStore.for_document(path).load_snapshot(path)
    diff = compute_diff(previous or "", current)
    source = "buffer" if handle is not None else "file"
    return DiffResult(path, diff, source, previous is not None)


@dataclass(frozen=True, slots=True)
class ModeResult:
    """The write mode of a document after ``mode`` (shown or changed)."""

    path: Path
    format: str
    write: str
    changed: bool


def document_mode(
    path: Path, *, format: str | None = None, write: str | None = None
) -> ModeResult:
    """Show, or set with ``format``/``write``, a document's format and write mode.

    Setting changes only the frontmatter (:func:`agent_doc.document.convert.set_mode`);
    the same edit is applied to the snapshot so the next diff does not report it.
    """
    from agent_doc.document.convert import set_mode
    from agent_doc.document.frontmatter import parse_frontmatter

    def edit(text: str) -> str:
        return set_mode(text, format, write)

    text = _rewrite(Path(path), edit if format or write else None, snapshot="edit")
    meta = parse_frontmatter(text.after)
    return ModeResult(Path(path), meta.format, meta.write, text.changed)


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A document before and after a whole-text rewrite."""

    before: str
    after: str

    @property
    def changed(self) -> bool:
        """True when the rewrite changed the text."""
        return self.before != self.after


def _rewrite(
    path: Path, edit: Callable[[str], str] | None, *, snapshot: str
) -> Rewrite:
    """Apply ``edit`` to the document under its lock; keep the snapshot in step.

    ``snapshot="edit"`` applies the same edit to an existing snapshot;
    ``"result"`` stores the new document as the snapshot (when it changed).
    """
    from agent_doc.store.state import StateStore
    from agent_doc.store.state import doc_lock
    from agent_doc.store.state import read_document
    from agent_doc.store.state import write_document

    store = StateStore.for_document(path)
    with doc_lock(path, root=store.root):
        doc = read_document(path)
        after = doc.text if edit is None else edit(doc.text)
        if after != doc.text:
            write_document(path, doc, after)
            old = store.load_snapshot(path)
            if snapshot == "result":
                store.save_snapshot(path, after)
            elif old is not None and edit is not None:
                store.save_snapshot(path, edit(old))
    return Rewrite(doc.text, after)


def convert_document(path: Path, to: str = "template") -> Rewrite:
    """Convert a document to ``template`` or ``inline`` format; snapshot follows."""
    from agent_doc.document.convert import convert_to_inline
    from agent_doc.document.convert import convert_to_template

    if to not in FORMATS:
        raise FrontmatterError(f"invalid format '{to}' (expected inline or template)")
    edit = convert_to_template if to == "template" else convert_to_inline
    return _rewrite(Path(path), edit, snapshot="result")


def dedupe_document(path: Path) -> tuple[Rewrite, int]:
    """Remove consecutive duplicate ``### Re:`` blocks; return how many went."""
    from agent_doc.document.dedupe import dedupe_responses

    removed = 0

    def edit(text: str) -> str:
        nonlocal removed
        text, removed = dedupe_responses(text)
        return text

    return _rewrite(Path(path), edit, snapshot="result"), removed


@dataclass(frozen=True, slots=True)
class Recovered:
    """One orphaned pending response and what ``recover`` did with it."""

    pending: Path
    path: Path | None
    status: str
    """``written``, ``completed`` (the interrupted write had already landed; only
    its bookkeeping was finished, the response is not added again), ``dropped``
    (an empty response: nothing to write, so the file is removed instead of
    failing every later ``recover`` and preflight) or ``failed`` (the pending
    file is then kept)."""
    error: str | None = None
    outcome: WriteOutcome | None = field(default=None, compare=False)


def _documents_by_hash(root: Path) -> dict[str, Path]:
    from agent_doc.store.state import doc_hash

    found: dict[str, Path] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            if name.endswith(".md"):
                doc = Path(folder) / name
                found[doc_hash(doc)] = doc
    return found


def _drop_pending(pending: Path) -> None:
    """Remove a pending response and its ``.expect`` digest."""
    for path in (pending, pending.with_suffix(".expect")):
        path.unlink(missing_ok=True)


def recover_pending(
    path: Path | None = None, link: ServerLink | None = None
) -> list[Recovered]:
    """Re-apply orphaned pending responses through the write path.

    With ``path``: that document's pending response; otherwise every pending
    response of the current folder's project (documents found by hash). A
    response that fails again stays pending, so it is never lost.
    """
    from agent_doc.errors import AgentDocError
    from agent_doc.store.state import StateStore
    from agent_doc.write.pipeline import WriteRequest
    from agent_doc.write.pipeline import finish_interrupted
    from agent_doc.write.pipeline import normalize_text
    from agent_doc.write.pipeline import write_response

    if path is not None:
        store = StateStore.for_document(Path(path))
        pending = store.pending_path(Path(path))
        todo: list[tuple[Path, Path | None]] = (
            [(pending, Path(path))] if pending.is_file() else []
        )
    else:
        store = StateStore.for_document(Path.cwd())
        docs = _documents_by_hash(store.root) if store.list_pending() else {}
        todo = [(p, docs.get(p.stem)) for p in store.list_pending()]
    results: list[Recovered] = []
    for pending, doc in todo:
        try:
            response = pending.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            results.append(Recovered(pending, doc, "failed", f"unreadable: {exc}"))
            continue
        if not response.strip():
            _drop_pending(pending)
            results.append(Recovered(pending, doc, "dropped", "empty response"))
            continue
        if doc is None:
            results.append(Recovered(pending, None, "failed", "document not found"))
            continue
        try:
            handle = link.find_owner(doc) if link is not None else None
            live = normalize_text(handle.text) if handle is not None else None
            done = finish_interrupted(doc, live)
            if done is not None:
                results.append(Recovered(pending, doc, "completed", outcome=done))
                continue
            request = WriteRequest(doc, response, origin="recover")
            outcome = write_response(request, link)
        except AgentDocError as exc:
            results.append(Recovered(pending, doc, "failed", str(exc)))
            continue
        results.append(Recovered(pending, doc, "written", outcome=outcome))
    return results
