"""History you can name: a document's commits, numbered, with their tags.

``compact`` tags the last commit of a document before it moves turns out
(``agent-doc/<doc>/pre-compact-N``, local tags only: nothing pushes them);
``log`` lists the document's versions with the tags beside them; ``show``
prints one version; ``diff --from`` compares two. A version is named by
:func:`resolve_ref`: ``N`` (its number in ``log``, oldest 1), ``~N`` (N
versions back, ``~0`` the last committed), a tag (full, or short as
``pre-compact-1``) or any git revision. Runs rarely: gitpython is used.
"""

from __future__ import annotations

import re
from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.cycle.vcs import has_head
from agent_doc.cycle.vcs import open_repo
from agent_doc.cycle.vcs import relative_path
from agent_doc.errors import VcsError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Collection

    from git import Commit
    from git import Repo

PRE_COMPACT = "pre-compact-"
_BAD_REF_CHARS = re.compile(r"[^A-Za-z0-9._/-]+|\.\.|/\.|\.lock(?=/|$)")


class LogEntry(Record):
    """One committed version of a document."""

    __slots__ = ("number", "sha", "when", "message", "tags")

    def __init__(
        self, number: int, sha: str, when: str, message: str, tags: list[str]
    ) -> None:
        self.number = number
        """Its number: 1 for the oldest version, counting up."""
        self.sha = sha
        self.when = when
        """The commit time, ISO 8601."""
        self.message = message
        """The first line of the commit message."""
        self.tags = tags
        """Tags pointing at this commit, sorted."""


def tag_namespace(rel: str) -> str:
    """``agent-doc/<doc>/``: where the tags of the document at ``rel`` live.

    ``<doc>`` is its path in the repository without ``.md``, with characters
    git refuses in a ref name replaced by ``-``.
    """
    stem = rel[:-3] if rel.endswith(".md") else rel
    return f"agent-doc/{_BAD_REF_CHARS.sub('-', stem).strip('/.') or 'doc'}/"


def _commits(repo: Repo, rel: str) -> list[Commit]:
    """The commits touching ``rel``, oldest first."""
    if not has_head(repo):
        return []
    return list(reversed(list(repo.iter_commits("HEAD", paths=rel))))


def _tags_by_commit(repo: Repo) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for tag in repo.tags:
        try:
            sha = tag.commit.hexsha
        except ValueError:  # a tag of something that is not a commit
            continue
        found.setdefault(sha, []).append(tag.name)
    return {sha: sorted(names) for sha, names in found.items()}


def document_log(path: Path) -> list[LogEntry]:
    """The committed versions of ``path``, newest first, with their tags."""
    repo = open_repo(path)
    commits = _commits(repo, relative_path(repo, path))
    tags = _tags_by_commit(repo)
    entries = [
        LogEntry(
            number,
            commit.hexsha,
            commit.committed_datetime.isoformat(),
            str(commit.message).splitlines()[0] if commit.message else "",
            tags.get(commit.hexsha, []),
        )
        for number, commit in enumerate(commits, start=1)
    ]
    return entries[::-1]


def tag_before_compact(path: Path, name: str | None = None) -> str | None:
    """Tag the last commit of ``path`` before ``compact`` changes it.

    ``name`` is the tag to create (refused when it names another commit);
    without it, the next ``agent-doc/<doc>/pre-compact-N``, or the one that
    already points at that commit (a compaction retried). ``None`` when the
    document is not in git or has no commit yet.
    """
    try:
        repo = open_repo(path)
        rel = relative_path(repo, path)
    except VcsError:  # not in git: nothing to tag (the commit says so)
        return None
    commits = _commits(repo, rel)
    if not commits:
        return None
    last = commits[-1].hexsha
    existing = {tag.name: tag for tag in repo.tags}
    if name is not None:
        return _create_tag(repo, name, last, existing)
    prefix = tag_namespace(rel) + PRE_COMPACT
    numbers = []
    for tag_name, tag in existing.items():
        suffix = tag_name.removeprefix(prefix)
        if tag_name.startswith(prefix) and suffix.isdigit():
            if tag.commit.hexsha == last:
                return tag_name
            numbers.append(int(suffix))
    return _create_tag(repo, f"{prefix}{max(numbers, default=0) + 1}", last, existing)


def _create_tag(repo: Repo, name: str, sha: str, existing: Collection[str]) -> str:
    import git

    if name in existing:
        tagged = repo.tags[name].commit.hexsha
        if tagged == sha:
            return name
        raise VcsError(f"tag {name} already names another commit ({tagged[:10]})")
    try:
        repo.git.check_ref_format(f"refs/tags/{name}")
    except git.GitCommandError:
        raise VcsError(f"{name!r} is not a valid tag name") from None
    repo.create_tag(name, ref=sha)
    return name


def resolve_ref(path: Path, ref: str) -> str:
    """The commit ``ref`` names for ``path`` (see the module's docstring)."""
    import git

    repo = open_repo(path)
    rel = relative_path(repo, path)
    if (ref.isdigit() and len(ref) < 7) or (ref.startswith("~") and ref[1:].isdigit()):
        commits = _commits(repo, rel)
        index = int(ref) - 1 if ref[0] != "~" else len(commits) - 1 - int(ref[1:])
        if not 0 <= index < len(commits):
            raise VcsError(
                f"{path.name} has {len(commits)} committed versions; "
                f"there is no {ref} (agent-doc log {path.name} lists them)"
            )
        return commits[index].hexsha
    names = {tag.name: tag for tag in repo.tags}
    short = tag_namespace(rel) + ref
    if ref not in names and short in names:
        return names[short].commit.hexsha
    try:
        return repo.commit(ref).hexsha
    except (git.BadName, git.BadObject, ValueError, git.GitCommandError):
        raise VcsError(f"no version {ref!r} of {path.name} in git") from None


def text_at(path: Path, sha: str) -> str:
    """The document as committed at ``sha`` (``\\n`` line endings)."""
    repo = open_repo(path)
    rel = relative_path(repo, path)
    try:
        blob = repo.commit(sha).tree / rel
    except KeyError:
        raise VcsError(f"{path.name} is not in commit {sha[:10]}") from None
    data: bytes = blob.data_stream.read()
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n")


def version_sha(
    path: Path,
    *,
    back: int | None = None,
    at: int | None = None,
    tag: str | None = None,
) -> str:
    """The commit of the version ``show`` asks for: exactly one of ``back``
    (versions back from the last committed), ``at`` (its number) or ``tag``."""
    given = [v for v in (back, at, tag) if v is not None]
    if len(given) != 1:
        raise VcsError("give exactly one of --back N, --at N or --tag NAME")
    if back is not None:
        return resolve_ref(path, f"~{back}")
    if at is not None:
        return resolve_ref(path, str(at))
    assert tag is not None
    repo = open_repo(path)
    rel = relative_path(repo, path)
    for name in (tag, tag_namespace(rel) + tag):
        if name in {t.name for t in repo.tags}:
            return str(repo.tags[name].commit.hexsha)
    raise VcsError(
        f"no tag {tag!r} for {path.name} (agent-doc log {path.name} lists them)"
    )


def history_diff(path: Path, from_ref: str, to_ref: str | None, now: str) -> str | None:
    """Unified diff of ``path`` from version ``from_ref`` to ``to_ref`` (to
    ``now``, the document as it is, when ``to_ref`` is ``None``); ``None``
    when they are equal."""
    import difflib

    old_sha = resolve_ref(path, from_ref)
    old = text_at(path, old_sha)
    if to_ref is None:
        new, new_label = now.replace("\r\n", "\n"), f"{path.name} (now)"
    else:
        new_sha = resolve_ref(path, to_ref)
        new, new_label = text_at(path, new_sha), f"{path.name}@{new_sha[:10]}"
    if old == new:
        return None
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        f"{path.name}@{old_sha[:10]}",
        new_label,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
