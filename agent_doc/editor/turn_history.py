"""The commit that wrote an agent answer, and its diff (adapter: runs git).

``agent-doc commit`` commits the snapshot after each turn, so the commit that
wrote an answer is the first commit of the document in which that answer (its
heading, counted by occurrence as in :mod:`agent_doc.editor.turns`) exists.
The history is walked oldest first, reading each version's blob once. An
answer of an archive document (``agent-doc compact``) is looked up in the
history of the document it came from: the archive keeps the older turns in
order, so an answer's occurrence there is its occurrence in that history.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_doc.cycle.compact import source_document
from agent_doc.cycle.vcs import has_head
from agent_doc.cycle.vcs import open_repo
from agent_doc.cycle.vcs import relative_path
from agent_doc.editor.turns import count_answers
from agent_doc.editor.turns import find_answer
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


def _first_holding(
    path: Path, heading: str, occurrence: int
) -> tuple[Any, Any, str] | None:
    """``(repo, commit, text)`` of the oldest commit of ``path`` holding the
    answer, or ``None``. Raises :class:`VcsError` outside a git repository."""
    path = source_document(path) or path
    repo = open_repo(path)
    rel = relative_path(repo, path)
    if not has_head(repo):
        return None
    commits = repo.iter_commits("HEAD", paths=rel, max_count=MAX_COMMITS, reverse=True)
    for commit in commits:
        try:
            data = (commit.tree / rel).data_stream.read()
        except KeyError:
            continue
        text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
        if count_answers(text, heading) > occurrence:
            return repo, commit, text
    return None


def answer_as_written(path: Path, heading: str, occurrence: int) -> str | None:
    """The answer block as the agent wrote it: its text in the first commit
    that holds it (``agent-doc commit`` commits the snapshot right after the
    turn, before anything was typed under it). ``None`` when no commit holds
    it or the document is not in a git repository."""
    try:
        found = _first_holding(path, heading, occurrence)
    except VcsError:
        return None
    if found is None:
        return None
    answer = find_answer(found[2], heading, occurrence)
    return None if answer is None else found[2][answer.start : answer.end]


def turn_commit(path: Path, heading: str, occurrence: int) -> TurnDiff:
    """The commit of ``path`` that added the answer, with its diff.

    Raises :class:`VcsError` when the document has no commit holding it (the
    turn was never committed, or the document is not in a git repository).
    """
    import git

    found = _first_holding(path, heading, occurrence)
    if found is None:
        raise VcsError(
            f"{path.name}: no commit holds {heading!r} yet; run agent-doc commit"
        )
    repo, commit, _text = found
    path = source_document(path) or path
    try:
        shown = repo.git.show(
            commit.hexsha,
            "--format=commit %H%nDate:   %cI%n%n    %s%n",
            "--",
            relative_path(repo, path),
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
