"""Project and document housekeeping: init, scaffold, reset, mode, convert, dedupe.

Each public function here is the one core call behind a CLI command. They work
on real files under the project's ``.agent-doc/`` (via :mod:`agent_doc.store.state`)
and reach a running language server through :mod:`agent_doc.write.server_link` when
the live buffer matters. ``diff`` and ``recover`` run every turn and live in
their own small modules (:mod:`agent_doc.cycle.doc_diff`,
:mod:`agent_doc.cycle.recovery`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_doc.cycle.gitproc import run_git
from agent_doc.cycle.skill import bundled_skill
from agent_doc.document.convert import convert_to_inline
from agent_doc.document.convert import convert_to_template
from agent_doc.document.convert import inline_losses
from agent_doc.document.convert import set_mode
from agent_doc.document.dedupe import dedupe_responses
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.document.patch_blocks import frontmatter_patch
from agent_doc.errors import AgentDocError
from agent_doc.errors import DocumentError
from agent_doc.errors import FrontmatterError
from agent_doc.store.gitignore import SHARED_SETTINGS
from agent_doc.store.gitignore import ensure_state_ignored
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import StateStore
from agent_doc.store.state import atomic_write_text
from agent_doc.store.state import doc_lock
from agent_doc.store.state import find_project_root
from agent_doc.store.state import project_root_for
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.write.pipeline import WriteRequest
from agent_doc.write.pipeline import write_response

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.write.server_link import ServerLink

SKILL_RELPATH = Path(".claude/skills/agent-doc/SKILL.md")
"""Where project init installs the bundled Claude Code skill."""

FORMATS = ("template", "inline")


@dataclass(frozen=True, slots=True)
class InitResult:
    """What project init created (empty ``created``: it was already set up)."""

    root: Path
    created: tuple[str, ...] = ()
    tracked_state: tuple[str, ...] = ()
    """Runtime state under ``.agent-doc/`` that git already tracks (the
    ``.gitignore`` does not untrack it)."""


def _bundled_skill() -> str | None:
    """The bundled SKILL.md (version rendered), or ``None`` if none is packaged."""
    return bundled_skill()


def init_project(root: Path | None = None) -> InitResult:
    """Create ``.agent-doc/`` (+ ``snapshots/``, ``.gitignore``) and install the
    bundled skill.

    ``root`` defaults to the project of the current folder (an enclosing
    ``.agent-doc/`` owner, else the git top-level, else the current folder).
    Idempotent: running it again creates nothing.
    """
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
    if ensure_state_ignored(root / STATE_DIR):
        created.append(f"{STATE_DIR}/.gitignore")
    skill = _bundled_skill()
    target = root / SKILL_RELPATH
    if skill is not None and (not target.is_file() or target.read_text() != skill):
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, skill)
        created.append(str(SKILL_RELPATH))
    return InitResult(root, tuple(created), tracked_state(root))


def tracked_state(root: Path) -> tuple[str, ...]:
    """Files under ``root/.agent-doc/`` git tracks that are not shared settings
    (empty outside a repository or without git)."""
    try:
        code, out, _ = run_git(root, "ls-files", "-z", "--full-name", "--", STATE_DIR)
    except OSError:  # no git, or root is gone
        return ()
    if code != 0:
        return ()
    shared = {".gitignore", *SHARED_SETTINGS}
    names = out.decode("utf-8", "surrogateescape").split("\0")
    return tuple(n for n in names if n and n.rsplit("/", 1)[-1] not in shared)


@dataclass(frozen=True, slots=True)
class ScaffoldResult:
    """A new session document and the project init it triggered."""

    path: Path
    session: str
    project: InitResult


def scaffold_text(title: str, session: str, agent: str | None = None) -> str:
    """The text of a new template-format session document."""
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

    ``snapshot="edit"`` applies the same edit to an existing snapshot (one the
    edit refuses is kept as it is: the next diff then shows more, never less);
    ``"result"`` stores the new document as the snapshot (when it changed).
    """
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
                try:
                    edited = edit(old)
                except AgentDocError:
                    edited = old
                if edited != old:
                    store.save_snapshot(path, edited)
    return Rewrite(doc.text, after)


def convert_document(
    path: Path, to: str = "template", *, force: bool = False
) -> Rewrite:
    """Convert a document to ``template`` or ``inline`` format.

    The snapshot is converted the same way (not replaced by the result), so
    the conversion itself is no change but what was typed since the last turn
    (an unanswered last question) still is; without a snapshot the whole
    document stays new. Converting to inline would drop what converting back
    cannot restore (:func:`inline_losses`): refused, naming it, unless ``force``.
    """
    if to not in FORMATS:
        raise FrontmatterError(f"invalid format '{to}' (expected inline or template)")
    if to == "inline" and not force:
        lost = inline_losses(read_document(Path(path)).text)
        if lost:
            raise DocumentError(
                f"converting {path} to inline drops {' and '.join(lost)}; "
                "converting back does not restore them (it adds a ## Exchange "
                "heading): pass --force to convert anyway"
            )
    edit = convert_to_template if to == "template" else convert_to_inline
    return _rewrite(Path(path), edit, snapshot="edit")


def dedupe_document(path: Path) -> tuple[Rewrite, int]:
    """Remove consecutive duplicate ``### Re:`` blocks; return how many went."""
    removed = 0

    def edit(text: str) -> str:
        nonlocal removed
        text, removed = dedupe_responses(text)
        return text

    return _rewrite(Path(path), edit, snapshot="result"), removed
