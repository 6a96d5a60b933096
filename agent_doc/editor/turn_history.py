"""The commit that wrote an agent answer, and its diff (adapter: runs git).

``agent-doc commit`` commits the snapshot after each turn, so the commit that
wrote an answer is the first commit of the document in which that answer (its
heading, counted by occurrence as in :mod:`agent_doc.editor.turns`) exists.
The history is walked oldest first, reading each version's blob once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_doc.editor.turns import count_answers
from agent_doc.errors import VcsError

MAX_COMMITS = 2000
"""History depth searched for the commit of an answer."""


@dataclass(frozen=True, slots=True)
class TurnDiff:
    """The git diff of the commit that wrote one answer."""

    sha: str
    """Full commit id."""
    when: str
    """ISO-8601 commit time."""
    message: str
    """First line of the commit message."""
    diff: str
    """``git show`` of that commit, limited to the document."""


def turn_commit(path: Path, heading: str, occurrence: int) -> TurnDiff:
    """The commit of ``path`` that added the answer, with its diff.

    Raises :class:`VcsError` when the document has no commit holding it (the
    turn was never committed, or the document is not in a git repository).
    """
    import git

    from agent_doc.cycle.vcs import has_head
    from agent_doc.cycle.vcs import open_repo
    from agent_doc.cycle.vcs import relative_path

    repo = open_repo(path)
    rel = relative_path(repo, path)
    if has_head(repo):
        commits = repo.iter_commits(
            "HEAD", paths=rel, max_count=MAX_COMMITS, reverse=True
        )
        for commit in commits:
            try:
                data = (commit.tree / rel).data_stream.read()
            except KeyError:
                continue
            text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
            if count_answers(text, heading) > occurrence:
                try:
                    shown = repo.git.show(
                        commit.hexsha,
                        "--format=commit %H%nDate:   %cI%n%n    %s%n",
                        "--",
                        rel,
                    )
                except git.GitCommandError as exc:
                    raise VcsError(f"git show {commit.hexsha[:12]}: {exc}") from exc
                message = str(commit.message).splitlines()
                return TurnDiff(
                    sha=commit.hexsha,
                    when=commit.committed_datetime.isoformat(),
                    message=message[0] if message else "",
                    diff=shown + "\n",
                )
    raise VcsError(
        f"{path.name}: no commit holds {heading!r} yet; run agent-doc commit"
    )
