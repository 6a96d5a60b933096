"""What must hold before an agent is called, so a failed turn costs nothing.

``run`` used to call (and pay) the agent, write its answer, and only then find
that the folder is not a git repository, HEAD is detached or git has no
identity; a retry then said "no changes". These checks run first, each failing
with one line that says how to fix it. Nothing is written while checking.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_doc.cycle import gitcli
from agent_doc.cycle.gitproc import run_git
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import VcsError
from agent_doc.store.docfile import read_frontmatter_text
from agent_doc.store.state import require_document

NO_GIT_HINT = "or pass --no-git"
"""How to run a turn anyway, without the commit."""


def require_runnable_document(path: Path) -> None:
    """Raise :class:`DocumentError` unless ``path`` is a document a turn can run on.

    Any markdown file will do (spec §7.1): a UTF-8 regular file whose
    frontmatter, if it has one, is valid. ``agent_doc_session`` is not needed —
    it routes a document to a tmux pane (``claim``/``route`` assign it lazily);
    a turn runs without it.
    """
    require_document(path)
    parse_frontmatter(read_frontmatter_text(path))  # a large file never decoded


def require_git_ready(path: Path, *, branch: bool = False) -> None:
    """Raise :class:`VcsError` unless the turn's commit of ``path`` can succeed.

    The document must sit in a git work tree, HEAD must name a branch (unless
    ``branch``: ``-b`` switches to one first), no merge or rebase may be in
    progress, and git must know who commits (``user.name``/``user.email``).
    """
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
        hint = NO_GIT_HINT
        if tree.detached and not branch:  # -b makes the branch and commits there
            hint = "or pass -b to commit on branch agent-doc/<stem>, " + hint
        raise VcsError(f"{exc} ({hint})") from exc
    _require_identity(tree.top)


def _require_identity(top: Path) -> None:
    """Raise unless git knows who commits from its config or environment.

    Like ``git commit``, a strict identity must resolve (``git var``); unlike
    it, a guessed one (``root@hostname``, which git only warns about) is not
    enough: every turn's commit would carry it.
    """

    _, out, _ = run_git(top, "config", "--get-regexp", r"^user\.(name|email)$")
    keys = {line.split(" ", 1)[0] for line in out.decode(errors="replace").splitlines()}
    has_name = "user.name" in keys or bool(
        os.environ.get("GIT_AUTHOR_NAME") and os.environ.get("GIT_COMMITTER_NAME")
    )
    has_email = "user.email" in keys or bool(
        os.environ.get("EMAIL")
        or (
            os.environ.get("GIT_AUTHOR_EMAIL") and os.environ.get("GIT_COMMITTER_EMAIL")
        )
    )
    strict = all(
        run_git(top, "var", who)[0] == 0
        for who in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT")
    )
    if not (has_name and has_email and strict):
        raise VcsError(
            "git has no identity to commit with: run git config user.name "
            "'Your Name' and git config user.email you@example.com "
            f"(add --global for every repository) {NO_GIT_HINT}"
        )
