"""``agent-doc run`` with an ACP agent on the far side of ``ssh`` (stdio tunnelled).

A real OpenSSH server (``/usr/sbin/sshd``, its own config, host key and
authorized key in a temp folder) listens on 127.0.0.1; the agent is
``[agents.remote] command = "ssh"`` running the stand-in ACP agent
(``tests/data/acp_agent.py``) in a "remote" folder that is not the project.
The agent reads the document through ``fs/read_text_file`` with its own path
(``remote_root``), a Ctrl-C reaches it as ``session/cancel`` over the tunnel,
and an ssh that cannot connect says why in one line. Skipped when sshd is not
installed (``apt-get install openssh-server``; ``.ci/run`` installs it).
"""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.store.config import global_config_path
from tests.acp_standin import ACP_AGENT
from tests.acp_standin import SESSION_DOC
from tests.cli.test_cancel import gone
from tests.cli_runner import cli
from tests.private_tmux import wait_for
from tests.share.proxy import FaultyProxy

SSHD = Path("/usr/sbin/sshd")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Sshd:
    """A private sshd on 127.0.0.1 and the ssh config that reaches it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.ssh_config = folder / "ssh_config"
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        keygen = ["ssh-keygen", "-q", "-t", "ed25519", "-N", ""]
        subprocess.run([*keygen, "-f", str(self.folder / "host_key")], check=True)
        subprocess.run([*keygen, "-f", str(self.folder / "id")], check=True)
        authorized = self.folder / "authorized_keys"
        authorized.write_text((self.folder / "id.pub").read_text())
        config = self.folder / "sshd_config"
        config.write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\n"
            f"HostKey {self.folder / 'host_key'}\n"
            f"AuthorizedKeysFile {authorized}\n"
            f"PidFile {self.folder / 'sshd.pid'}\n"
            "StrictModes no\nUsePAM no\nPasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
            "PubkeyAuthentication yes\n"
        )
        self.ssh_config.write_text(
            f"Host devbox\n  HostName 127.0.0.1\n  Port {self.port}\n"
            f"  User {getpass.getuser()}\n  IdentityFile {self.folder / 'id'}\n"
            "  IdentitiesOnly yes\n  StrictHostKeyChecking no\n"
            "  UserKnownHostsFile /dev/null\n  BatchMode yes\n"
        )
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # privilege separation
        self.proc = subprocess.Popen(
            [str(SSHD), "-D", "-e", "-f", str(config)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        wait_for(self._accepts, timeout=15, what="sshd to listen")

    def add_host(self, name: str, port: int) -> None:
        """Another host name reaching this sshd through ``port`` (a proxy)."""
        block = self.ssh_config.read_text().split("\n", 2)[2]  # after HostName/Port
        self.ssh_config.write_text(
            self.ssh_config.read_text()
            + f"Host {name}\n  HostName 127.0.0.1\n  Port {port}\n{block}"
        )

    def _accepts(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            _, err = self.proc.communicate()
            raise AssertionError(f"sshd exited: {err}")
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.communicate(timeout=10)


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[Sshd]:
    if not SSHD.exists() or shutil.which("ssh") is None:
        pytest.skip("OpenSSH server not installed (apt-get install openssh-server)")
    server = Sshd(tmp_path / "sshd")
    server.folder.mkdir()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """The remote agent's working folder (it shares nothing with the project)."""
    folder = tmp_path / "remote-project"
    folder.mkdir()
    return folder


def configure(
    sshd: Sshd,
    remote: Path,
    settings: Path,
    host: str = "devbox",
    options: tuple[str, ...] = (),
) -> None:
    command = (
        f"cd {shlex.quote(str(remote))} && exec {shlex.quote(sys.executable)} "
        f"{shlex.quote(str(ACP_AGENT))} {shlex.quote(str(settings))}"
    )
    args = ["-F", str(sshd.ssh_config), *options, "-T", host, command]
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        '[agents.standin]\ncommand = "ssh"\n'
        f"args = {json.dumps(args)}\n"
        f'transport = "acp"\nremote_root = "{remote}"\n'
    )


def calls(log: Path) -> list[dict[str, object]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line]


def test_a_run_turn_over_ssh_reads_and_answers_the_document(
    project: Path, tmp_path: Path, sshd: Sshd, remote: Path
) -> None:
    log = tmp_path / "acp-log.jsonl"
    settings = tmp_path / "agent-settings.json"
    settings.write_text(
        json.dumps(
            {
                "ACP_AGENT_LOG": str(log),
                # the agent's own path: the project lives elsewhere on "its" host
                "ACP_AGENT_READ": str(remote / "plan.md"),
                "ACP_AGENT_READ_LINE": "6",
                "ACP_AGENT_REPLY": "It is 4, said over ssh.",
            }
        )
    )
    configure(sshd, remote, settings)
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    result = cli(project, "run", "plan.md")
    assert result.returncode == 0, result.stderr
    text = doc.read_text()
    assert text.index("What is 2 + 2?") < text.index("read: # Plan")
    assert text.count("It is 4, said over ssh.") == 1
    entries = calls(log)
    new = next(c for c in entries if c["method"] == "session/new")
    assert new["cwd"] == str(remote)
    assert f"resume: {new['session_id']}" in text
    assert not (remote / "plan.md").exists()  # nothing was shared but the tunnel
    agent = next(c["pid"] for c in entries if c["method"] == "session/prompt")
    assert isinstance(agent, int)
    wait_for(lambda: gone(agent), timeout=10, what="the remote agent to exit on EOF")


@pytest.mark.parametrize("deaf", ["", "1"], ids=["cooperative", "deaf-agent"])
def test_ctrl_c_reaches_the_remote_agent_as_session_cancel(
    project: Path, tmp_path: Path, sshd: Sshd, remote: Path, deaf: str
) -> None:
    """A deaf agent (ignoring the cancel and every signal) still ends: past the
    grace its local ssh is stopped, which closes the channel under it."""
    log = tmp_path / "acp-log.jsonl"
    settings = tmp_path / "agent-settings.json"
    settings.write_text(
        json.dumps(
            {
                "ACP_AGENT_LOG": str(log),
                "ACP_AGENT_LOG_CHUNKS": "1",
                "ACP_AGENT_REPLY": " ".join(f"word{i}" for i in range(400)),
                "ACP_AGENT_CHUNK": "8",
                "ACP_AGENT_DELAY": "0.05",
                "ACP_AGENT_DEAF": deaf,
            }
        )
    )
    configure(sshd, remote, settings)
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "AGENT_DOC_CANCEL_GRACE_S": "2"},
        start_new_session=True,
    )  # fmt: skip
    try:
        wait_for(
            lambda: sum(c["method"] == "chunk" for c in calls(log)) >= 3,
            timeout=30, what="the remote agent to stream a few chunks",
        )  # fmt: skip
        os.killpg(proc.pid, signal.SIGINT)  # the terminal's Ctrl-C
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 128 + signal.SIGINT, err
    entries = calls(log)
    methods = [c["method"] for c in entries]
    assert "session/cancel" in methods  # through the tunnel, not a signal
    assert ("stopped" in methods) is not bool(deaf)  # it ended its own turn
    text = doc.read_text()
    assert "word0 word1" in text
    assert "word399" not in text
    assert text.index("word1") < text.index("*(interrupted)*")
    agent = next(c["pid"] for c in entries if c["method"] == "session/prompt")
    assert isinstance(agent, int)
    wait_for(lambda: gone(agent), timeout=10, what="the remote agent to exit")


def test_an_ssh_that_cannot_connect_says_why(
    project: Path, tmp_path: Path, sshd: Sshd, remote: Path
) -> None:
    settings = tmp_path / "agent-settings.json"
    settings.write_text("{}")
    sshd.stop()  # the host is down
    configure(sshd, remote, settings)
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    result = cli(project, "run", "plan.md")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines == [
        "agent-doc: agent 'standin' exited during initialize: ssh: connect to host "
        f"127.0.0.1 port {sshd.port}: Connection refused"
    ]
    assert doc.read_text() == SESSION_DOC


async def test_a_connection_that_dies_mid_answer_ends_the_turn_with_ssh_reason(
    project: Path, tmp_path: Path, sshd: Sshd, remote: Path
) -> None:
    """A half-dead network (a proxy swallowing every byte) is noticed by ssh's
    keep-alives: the turn ends with ssh's reason, the document unchanged."""
    log = tmp_path / "acp-log.jsonl"
    settings = tmp_path / "agent-settings.json"
    settings.write_text(
        json.dumps(
            {
                "ACP_AGENT_LOG": str(log),
                "ACP_AGENT_LOG_CHUNKS": "1",
                "ACP_AGENT_REPLY": " ".join(f"word{i}" for i in range(2000)),
                "ACP_AGENT_CHUNK": "8",
                "ACP_AGENT_DELAY": "0.05",
            }
        )
    )
    async with FaultyProxy(f"ws://127.0.0.1:{sshd.port}") as proxy:
        port = int(proxy.url.rsplit(":", 1)[1])
        sshd.add_host("devbox-proxied", port)
        keepalive = ("-o", "ServerAliveInterval=1", "-o", "ServerAliveCountMax=2")
        configure(sshd, remote, settings, "devbox-proxied", keepalive)
        doc = project / "plan.md"
        doc.write_text(SESSION_DOC)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md",
            cwd=project, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            for _ in range(600):  # 30 s at most
                if sum(c["method"] == "chunk" for c in calls(log)) >= 3:
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the remote agent never streamed")
            proxy.drop = True  # the network goes silent, no connection closes
            _, err = await asyncio.wait_for(proc.communicate(), 30)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    lines = err.decode().strip().splitlines()
    assert proc.returncode == 1, lines
    assert lines[-1].startswith(
        "agent-doc: agent 'standin' exited during session/prompt: Timeout, server "
    )
    assert lines[-1].endswith("not responding.")
    assert doc.read_text() == SESSION_DOC
    agent = next(c["pid"] for c in calls(log) if c["method"] == "session/prompt")
    assert isinstance(agent, int)
    wait_for(lambda: gone(agent), timeout=10, what="the remote agent to exit")
