"""The per-turn commit keeps what ``git commit`` would keep (issue 27, Deliver 4).

Real repositories: an executable document stays 100755, a symlinked document
stays a symlink (its target committed as git would), ``commit.gpgSign`` signs
the commit (a stand-in ``gpg.program``), and the hooks ``git commit
--no-verify`` runs (spec §7.15: ``prepare-commit-msg``, ``post-commit``) run,
while ``pre-commit`` and ``commit-msg`` do not.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_doc.cycle.commit import commit_document
from agent_doc.errors import VcsError
from agent_doc.store.state import StateStore

DOC = """---
agent_doc_format: template
---
# Plan

<!-- agent:exchange patch=append -->
## User

Question one?
<!-- /agent:exchange -->
"""

FAKE_GPG = """\
import sys
# git runs: <program> --status-fd=2 -bsau <key>; payload on stdin
payload = sys.stdin.buffer.read()
with open(sys.argv[0] + ".log", "ab") as log:
    log.write(repr(sys.argv[1:]).encode() + b"\\n")
sys.stderr.write("[GNUPG:] SIG_CREATED D 1 8 00 1700000000 FAKEFINGERPRINT\\n")
sys.stdout.write(
    "-----BEGIN PGP SIGNATURE-----\\n\\nZmFrZSBzaWduYXR1cmU=\\n=abcd\\n"
    "-----END PGP SIGNATURE-----\\n"
)
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def entry_mode(root: Path, rel: str) -> str:
    return git(root, "ls-tree", "HEAD", "--", rel).split()[0]


@pytest.fixture
def repo(project: Path) -> Path:
    """A repository with one commit of the document."""
    (project / "plan.md").write_text(DOC)
    git(project, "add", "plan.md")
    git(project, "commit", "-qm", "init")
    return project


def _answer(doc: Path, text: str) -> None:
    """An agent's answer landed: the snapshot has it (as a write leaves it)."""
    answered = DOC.replace(
        "<!-- /agent:exchange -->", f"{text}\n<!-- /agent:exchange -->"
    )
    StateStore.for_document(doc).save_snapshot(doc, answered)


def test_an_executable_document_stays_executable(repo: Path) -> None:
    doc = repo / "plan.md"
    doc.chmod(0o755)
    git(repo, "update-index", "--chmod=+x", "plan.md")
    git(repo, "commit", "-qm", "executable")
    _answer(doc, "### Re: one\n\nanswer")
    assert commit_document(doc)[0]
    assert entry_mode(repo, "plan.md") == "100755"
    assert "answer" in git(repo, "show", "HEAD:plan.md")
    git(repo, "diff", "--cached", "--exit-code")  # the index agrees with HEAD


def test_a_new_executable_document_is_committed_executable(project: Path) -> None:
    doc = project / "run.md"
    doc.write_text(DOC)
    doc.chmod(0o755)
    (project / "other").write_text("x\n")
    git(project, "add", "other")
    git(project, "commit", "-qm", "init")
    assert commit_document(doc)[0]
    assert entry_mode(project, "run.md") == "100755"


def test_core_filemode_false_keeps_heads_mode(repo: Path) -> None:
    doc = repo / "plan.md"
    git(repo, "update-index", "--chmod=+x", "plan.md")
    git(repo, "commit", "-qm", "executable in git only")
    git(repo, "config", "core.fileMode", "false")
    _answer(doc, "more")
    assert commit_document(doc)[0]
    assert entry_mode(repo, "plan.md") == "100755"


def test_a_symlinked_document_stays_a_symlink(project: Path) -> None:
    (project / "docs").mkdir()
    target = project / "docs" / "plan.md"
    target.write_text(DOC)
    link = project / "plan.md"
    link.symlink_to("docs/plan.md")
    (project / "other").write_text("x\n")
    git(project, "add", "other")
    git(project, "commit", "-qm", "init")
    _answer(link, "### Re: one\n\nvia the link")
    assert commit_document(link)[0]
    assert entry_mode(project, "plan.md") == "120000"
    assert git(project, "show", "HEAD:plan.md") == "docs/plan.md"
    assert entry_mode(project, "docs/plan.md") == "100644"
    assert "via the link" in git(project, "show", "HEAD:docs/plan.md")
    assert link.is_symlink()
    # The next turn: the link is in HEAD already, only the target changes.
    _answer(link, "### Re: two\n\nagain")
    assert commit_document(link)[0]
    assert entry_mode(project, "plan.md") == "120000"
    assert "again" in git(project, "show", "HEAD:docs/plan.md")
    git(project, "fsck", "--strict")


@pytest.fixture
def signing(repo: Path, tmp_path: Path) -> Path:
    """``commit.gpgSign = true`` with a stand-in ``gpg.program``; its call log."""
    program = tmp_path / "fake-gpg"
    program.write_text(f"#!{sys.executable}\n{FAKE_GPG}")
    program.chmod(0o755)
    git(repo, "config", "commit.gpgSign", "true")
    git(repo, "config", "gpg.program", str(program))
    git(repo, "config", "user.signingKey", "TESTKEY")
    return tmp_path / "fake-gpg.log"


def test_a_signing_repository_gets_signed_commits(repo: Path, signing: Path) -> None:
    doc = repo / "plan.md"
    _answer(doc, "### Re: one\n\nsigned answer")
    committed, _ = commit_document(doc)
    assert committed
    raw = git(repo, "cat-file", "-p", "HEAD")
    assert "gpgsig -----BEGIN PGP SIGNATURE-----" in raw
    calls = signing.read_text()
    assert "-bsau" in calls
    assert "TESTKEY" in calls
    assert "signed answer" in git(repo, "show", "HEAD:plan.md")
    git(repo, "diff", "--cached", "--exit-code")


def test_a_signature_that_fails_fails_the_commit(repo: Path, tmp_path: Path) -> None:
    failing = tmp_path / "no-gpg"
    failing.write_text("#!/bin/sh\necho 'no secret key' >&2\nexit 2\n")
    failing.chmod(0o755)
    git(repo, "config", "commit.gpgSign", "true")
    git(repo, "config", "gpg.program", str(failing))
    before = git(repo, "rev-parse", "HEAD")
    doc = repo / "plan.md"
    _answer(doc, "unsigned would be a lie")
    with pytest.raises(VcsError, match="sign"):
        commit_document(doc)
    assert git(repo, "rev-parse", "HEAD") == before  # no unsigned commit


def _hook(repo: Path, name: str, body: str) -> None:
    hook = repo / ".git" / "hooks" / name
    hook.write_text(f"#!/bin/sh\n{body}\n")
    hook.chmod(0o755)


def test_the_hooks_git_commit_no_verify_runs_run(repo: Path) -> None:
    ran = repo / ".git" / "ran"
    _hook(repo, "prepare-commit-msg", f'echo "prepare $2" >> {ran}\n'
          'printf "\\nTicket: AD-27\\n" >> "$1"')  # fmt: skip
    _hook(repo, "post-commit", f"echo post >> {ran}")
    _hook(repo, "pre-commit", f"echo pre-commit >> {ran}; exit 1")
    _hook(repo, "commit-msg", f"echo commit-msg >> {ran}; exit 1")
    doc = repo / "plan.md"
    _answer(doc, "hooked")
    assert commit_document(doc)[0]
    assert ran.read_text().splitlines() == ["prepare message", "post"]
    message = git(repo, "log", "-1", "--format=%B")
    assert message.startswith("agent-doc(plan): ")
    assert "Ticket: AD-27" in message
    assert "hooked" in git(repo, "show", "HEAD:plan.md")


def test_a_refusing_prepare_commit_msg_hook_stops_the_commit(repo: Path) -> None:
    _hook(repo, "prepare-commit-msg", "echo 'no ticket' >&2; exit 1")
    before = git(repo, "rev-parse", "HEAD")
    doc = repo / "plan.md"
    _answer(doc, "refused")
    with pytest.raises(VcsError, match="no ticket"):
        commit_document(doc)
    assert git(repo, "rev-parse", "HEAD") == before


def test_a_first_commit_with_a_hook_runs_it(project: Path) -> None:
    ran = project / ".git" / "ran"
    _hook(project, "post-commit", f"echo post >> {ran}")
    doc = project / "plan.md"
    doc.write_text(DOC)
    assert commit_document(doc)[0]
    assert ran.read_text() == "post\n"
    assert git(project, "rev-list", "--count", "HEAD") == "1\n"
    assert commit_document(doc) == (False, "nothing to commit")


def test_a_sha256_repository_commits_the_document_with_head_markers(
    tmp_path: Path,
) -> None:
    root = tmp_path / "sha256"
    subprocess.run(
        ["git", "init", "-q", "--object-format=sha256", str(root)], check=True
    )
    git(root, "config", "user.email", "t@example.invalid")
    git(root, "config", "user.name", "Test")
    doc = root / "plan.md"
    doc.write_text(DOC)
    assert commit_document(doc)[0]
    _answer(doc, "### Re: one\n\nanswer")
    assert commit_document(doc)[0]  # HEAD's trees are read with 32-byte ids
    assert "### Re: one (HEAD)" in git(root, "show", "HEAD:plan.md")
    assert commit_document(doc) == (False, "nothing to commit")


def test_hooks_in_core_hooks_path_run(repo: Path) -> None:
    ran = repo / ".git" / "ran"
    hooks = repo / ".githooks"
    hooks.mkdir()
    (hooks / "post-commit").write_text(f"#!/bin/sh\necho shared-hook >> {ran}\n")
    (hooks / "post-commit").chmod(0o755)
    git(repo, "config", "core.hooksPath", ".githooks")
    doc = repo / "plan.md"
    _answer(doc, "through the shared hooks folder")
    assert commit_document(doc)[0]
    assert ran.read_text() == "shared-hook\n"


def test_a_pre_commit_hook_alone_keeps_the_fast_path_and_does_not_run(
    repo: Path,
) -> None:
    ran = repo / ".git" / "ran"
    _hook(repo, "pre-commit", f"echo pre-commit >> {ran}; exit 1")
    doc = repo / "plan.md"
    _answer(doc, "no verify")
    assert commit_document(doc)[0]
    assert not ran.exists()


FAKE_SSH_KEYGEN = """\
import sys
# git runs: <program> -Y sign -n git -f <key file> [-U] <payload file>
with open(sys.argv[0] + ".log", "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
with open(sys.argv[-1] + ".sig", "w") as sig:
    sig.write("-----BEGIN SSH SIGNATURE-----\\nZmFrZQ==\\n-----END SSH SIGNATURE-----\\n")
"""


def test_gpg_format_ssh_signs_through_the_ssh_program(
    repo: Path, tmp_path: Path
) -> None:
    program = tmp_path / "fake-ssh-keygen"
    program.write_text(f"#!{sys.executable}\n{FAKE_SSH_KEYGEN}")
    program.chmod(0o755)
    git(repo, "config", "commit.gpgSign", "true")
    git(repo, "config", "gpg.format", "ssh")
    git(repo, "config", "gpg.ssh.program", str(program))
    git(
        repo,
        "config",
        "user.signingKey",
        "key::ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFAKE",
    )
    doc = repo / "plan.md"
    _answer(doc, "ssh signed")
    assert commit_document(doc)[0]
    assert "gpgsig -----BEGIN SSH SIGNATURE-----" in git(repo, "cat-file", "-p", "HEAD")
    assert "-Y sign" in (tmp_path / "fake-ssh-keygen.log").read_text()


def test_a_document_in_a_subfolder_finds_the_hooks(repo: Path) -> None:
    ran = repo / ".git" / "ran"
    _hook(repo, "post-commit", f"echo post >> {ran}")
    doc = repo / "notes" / "deep" / "plan.md"
    doc.parent.mkdir(parents=True)
    doc.write_text(DOC)
    assert commit_document(doc)[0]
    assert ran.read_text() == "post\n"
    assert git(repo, "show", "HEAD:notes/deep/plan.md") == DOC
