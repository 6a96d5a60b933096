"""What must hold before an agent is called, so a failed turn costs nothing.

``run`` used to call (and pay) the agent, write its answer, and only then find
that the folder is not a git repository, HEAD is detached or git has no
identity; a retry then said "no changes". These checks run first, each failing
with one line that says how to fix it. Nothing is written while checking.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc.errors import DocumentError
from agent_doc.errors import VcsError

NO_GIT_HINT = "or pass --no-git"
"""How to run a turn anyway, without the commit."""


def require_session_document(path: Path) -> None:
    """Raise :class:`DocumentError` unless ``path`` is a readable session document.

    A session document is a UTF-8 regular file whose frontmatter is valid and
    holds ``agent_doc_session``.
    """
    from agent_doc.document.frontmatter import parse_frontmatter
    from agent_doc.store.state import read_document
    from agent_doc.store.state import require_document

    require_document(path)
    front = parse_frontmatter(read_document(path).text)
    if not front.session:
        raise DocumentError(
            f"{path} is not a session document (no agent_doc_session in its "
            f"frontmatter): create one with agent-doc init {path.name}, or add "
            "'agent_doc_session: <uuid>' to its frontmatter"
        )


def require_git_ready(path: Path, *, branch: bool = False) -> None:
    """Raise :class:`VcsError` unless the turn's commit of ``path`` can succeed.

    The document must sit in a git work tree, HEAD must name a branch (unless
    ``branch``: ``-b`` switches to one first), no merge or rebase may be in
    progress, and git must know who commits (``user.name``/``user.email``).
    """
    from agent_doc.cycle import gitcli

    path = Path(path)
    try:
        tree = gitcli.open_work_tree(path)
    except VcsError as exc:
        raise VcsError(
            f"{path} is not in a git repository, and the turn commits its answer: "
            f"run git init in the project folder {NO_GIT_HINT}"
        ) from exc
    except OSError as exc:  # git itself missing or not runnable
        raise VcsError(
            f"cannot run git ({exc.strerror or exc}): install git {NO_GIT_HINT}"
        ) from exc
    gitcli.relative_path(tree, path)  # outside the work tree: its own message
    try:
        gitcli.check_committable(tree.git_dir, detached=tree.detached and not branch)
    except VcsError as exc:
        raise VcsError(f"{exc} ({NO_GIT_HINT})") from exc
    _require_identity(tree.top)


def _require_identity(top: Path) -> None:
    """Raise unless git can name the author and committer (as ``git commit``)."""
    from agent_doc.cycle.gitproc import run_git

    for who in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
        code, _, _ = run_git(top, "var", who)
        if code != 0:
            raise VcsError(
                "git has no identity to commit with: run git config user.name "
                "'Your Name' and git config user.email you@example.com "
                f"(add --global for every repository) {NO_GIT_HINT}"
            )
