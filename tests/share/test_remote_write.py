"""``agent-doc write/patch --room`` from a host that shares no files with the server."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_runner import agent_doc
from tests.share.rooms import ANSWER
from tests.share.rooms import DOC
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import token_of
from tests.share.rooms import wait_file

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def doc(project: Path) -> Path:
    path = project / "pair.md"
    path.write_text(DOC, encoding="utf-8")
    return path


@pytest.fixture
def served(project: Path, doc: Path) -> Iterator[ServeProcess]:
    server = ServeProcess(project).start()
    yield server
    server.kill()


@pytest.fixture
def remote(tmp_path: Path, doc: Path) -> tuple[Path, dict[str, str]]:
    """The agent's host: its own HOME, XDG folders and project copy."""
    home = tmp_path / "agent-host"
    copy = home / "checkout"
    copy.mkdir(parents=True)
    shutil.copy(doc, copy / "pair.md")
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_RUNTIME_DIR": str(home / "run"),
    }
    return copy, env


async def test_cli_writer_lands_the_answer_once_in_the_room_and_the_file(
    served: ServeProcess, doc: Path, remote: tuple[Path, dict[str, str]]
) -> None:
    copy, env = remote
    token_file = copy.parent / "token"
    token_file.write_text(token_of(served.root) + "\n")
    async with peer(served.room(), token_of(served.root)) as alice:
        at = str(alice.text).index("What is")
        alice.type(at, "Quick: ")
        await wait_file(doc, lambda t: "Quick: " in t)
        res = agent_doc(
            "write",
            "pair.md",
            "--room",
            served.url,
            "--token-file",
            str(token_file),
            cwd=copy,
            stdin=ANSWER,
            env=env,
        )
        assert res.returncode == 0, res.stderr
        assert f"(room {served.room()})" in res.stderr
        text = await alice.until(lambda t: "It is 42." in t)
        async with peer(served.room(), token_of(served.root)) as bob:
            assert str(bob.text) == text
    assert text.count("It is 42.") == 1
    assert text.count("Quick: What is 6 x 7?") == 1
    assert await wait_file(doc, lambda t: t == text) == text
    assert (copy / "pair.md").read_text() == DOC  # the writer's copy is not written
    assert not (copy / ".agent-doc" / "share").exists()


async def test_patch_in_room_from_environment_variables(
    served: ServeProcess, doc: Path, remote: tuple[Path, dict[str, str]]
) -> None:
    copy, env = remote
    env |= {
        "AGENT_DOC_SHARE_URL": served.room(),
        "AGENT_DOC_SHARE_TOKEN": token_of(served.root),
    }
    res = agent_doc("patch", "pair.md", "status", "thinking", cwd=copy, env=env)
    assert res.returncode == 0, res.stderr
    text = await wait_file(doc, lambda t: "thinking" in t)
    assert "<!-- agent:status -->\nthinking\n<!-- /agent:status -->" in text
    assert "idle" not in text


def test_wrong_or_missing_token_is_refused_and_nothing_changes(
    served: ServeProcess, doc: Path, remote: tuple[Path, dict[str, str]]
) -> None:
    copy, env = remote
    bad = copy.parent / "bad-token"
    bad.write_text("not-the-token\n")
    res = agent_doc(
        "write",
        "pair.md",
        "--room",
        served.room(),
        "--token-file",
        str(bad),
        cwd=copy,
        stdin=ANSWER,
        env=env,
    )
    assert res.returncode == 1
    assert res.stderr.count("\n") == 1
    assert "refused the connection (HTTP 403)" in res.stderr
    served.wait_line(r"refused 127\.0\.0\.1:\d+ /\S+: wrong token")
    clean = dict(env)
    os.environ.pop("AGENT_DOC_SHARE_TOKEN", None)
    res = agent_doc(
        "write",
        "pair.md",
        "--room",
        served.room() + "?token=" + token_of(served.root),
        cwd=copy,
        stdin=ANSWER,
        env=clean,
    )
    assert res.returncode == 1
    assert "no query string" in res.stderr
    res = agent_doc(
        "write", "pair.md", "--room", served.room(), cwd=copy, stdin=ANSWER, env=clean
    )
    assert res.returncode == 1
    assert "HTTP 403" in res.stderr
    served.wait_line(r"refused .*: no Authorization: Bearer token")
    assert doc.read_text() == DOC


async def test_a_refused_peer_receives_nothing(served: ServeProcess) -> None:
    import httpx
    import httpx_ws

    async with httpx.AsyncClient() as client:
        with pytest.raises(httpx_ws.WebSocketUpgradeError) as refused:
            async with httpx_ws.aconnect_ws(
                served.room(), client, headers={"Authorization": "Bearer wrong"}
            ):
                pass
    assert refused.value.response.status_code == 403
    assert "upgrade" not in refused.value.response.headers  # no socket: nothing sent
    served.wait_line(r"refused .*: wrong token")


def test_rotated_token_refuses_the_old_one_at_once(
    served: ServeProcess, doc: Path, remote: tuple[Path, dict[str, str]]
) -> None:
    copy, env = remote
    old = token_of(served.root)
    res = agent_doc("share", "token", "--rotate", cwd=served.root)
    new = res.stdout.strip()
    assert res.returncode == 0
    assert new
    assert new != old
    path = served.root / ".agent-doc" / "share" / "token"
    assert path.stat().st_mode & 0o777 == 0o600
    assert agent_doc("share", "token", cwd=served.root).stdout.strip() == new
    env |= {"AGENT_DOC_SHARE_URL": served.url}
    refused = agent_doc(
        "patch",
        "pair.md",
        "status",
        "x",
        cwd=copy,
        env=env | {"AGENT_DOC_SHARE_TOKEN": old},
    )
    assert refused.returncode == 1
    assert "HTTP 403" in refused.stderr
    done = agent_doc(
        "patch",
        "pair.md",
        "status",
        "x",
        cwd=copy,
        env=env | {"AGENT_DOC_SHARE_TOKEN": new},
    )
    assert done.returncode == 0, done.stderr


def test_non_loopback_bind_without_a_token_is_refused(project: Path, doc: Path) -> None:
    res = agent_doc(
        "serve", "--host", "0.0.0.0", "--no-token", "--port", "0", cwd=project
    )
    assert res.returncode == 2
    assert "--no-token is refused with a non-loopback --host" in res.stderr
    assert not (project / ".agent-doc" / "share").exists()
