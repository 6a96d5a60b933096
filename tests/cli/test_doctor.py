"""``agent-doc doctor`` on a machine the test controls: PATH, HOME, config, dirs.

Each test builds a PATH of its own (real git and tmux linked in, or left out;
a stand-in agent program), a config home and private folders, runs the real
console script and reads its lines.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli_runner import agent_doc

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None or shutil.which("tmux") is None,
    reason="needs git and tmux to link onto the test PATH",
)

LSP = Path(sys.executable).parent / "agent-doc-lsp"


@dataclass
class Machine:
    """What a test controls: the environment, the PATH folder, the work folder."""

    env: dict[str, str]
    bin: Path
    work: Path
    tmp: Path


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Machine:
    """A set-up with everything present: git (with an identity), tmux, claude."""
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("git", "tmux"):
        (bin_dir / program).symlink_to(shutil.which(program) or program)
    (bin_dir / "agent-doc-lsp").symlink_to(LSP)
    claude = bin_dir / "claude"
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Ada\n\temail = ada@example.invalid\n")
    tmux_tmp = tmp_path / "tmuxtmp"
    tmux_tmp.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    env = {
        "PATH": str(bin_dir),
        "HOME": str(tmp_path / "home"),
        "GIT_CONFIG_GLOBAL": str(gitconfig),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_COUNT": "1",  # never guess an identity from the host name
        "GIT_CONFIG_KEY_0": "user.useConfigOnly",
        "GIT_CONFIG_VALUE_0": "true",
        "TMUX_TMPDIR": str(tmux_tmp),
    }
    return Machine(env, bin_dir, work, tmp_path)


def _doctor(machine: Machine) -> tuple[int, dict[str, str]]:
    """Run doctor; its exit code and its lines by check name ("status: detail")."""
    result = agent_doc("doctor", cwd=machine.work, env=machine.env)
    assert result.stderr == "", result.stderr
    lines: dict[str, str] = {}
    for line in result.stdout.splitlines():
        status, _, rest = line.partition("  ")
        name, _, detail = rest.strip().partition("  ")
        lines[name] = f"{status.strip()}: {detail.strip()}"
    return result.returncode, lines


def test_a_complete_set_up_is_all_ok(machine: Machine) -> None:
    # "tmux server": the tests' guard AGENT_DOC_TMUX_SOCKET (conftest) is set
    code, lines = _doctor(machine)
    assert code == 0, lines
    assert list(lines) == [
        "python", "git", "git identity", "tmux", "tmux server", "agent claude",
        "pane agent",
        "agent-doc-lsp", "runtime dir", "socket dir", "tmux socket dir",
    ]  # fmt: skip
    assert all(v.startswith("ok: ") for v in lines.values()), lines
    assert lines["git identity"] == "ok: Ada <ada@example.invalid>"
    assert lines["agent claude"] == f"ok: {machine.bin / 'claude'}"


def test_missing_tmux_is_a_warning_with_the_fix(machine: Machine) -> None:
    (machine.bin / "tmux").unlink()
    code, lines = _doctor(machine)
    assert code == 0
    assert lines["tmux"] == (
        "warn: not found on PATH: route, claim, sync and start need it"
        " — fix: install tmux (apt install tmux / brew install tmux)"
    )


def test_missing_agents_fail_and_warn(machine: Machine) -> None:
    config = Path(machine.env["HOME"]) / ".config" / "agent-doc" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        'default_agent = "mine"\n[agents.mine]\ncommand = "my-agent"\n'
        '[agents.spare]\ncommand = "/opt/spare/agent"\n'
    )
    env = machine.env
    env["XDG_CONFIG_HOME"] = str(config.parent.parent)
    code, lines = _doctor(machine)
    assert code == 1
    assert lines["agent mine"] == (
        "fail: 'my-agent' is not on PATH — fix: install 'my-agent' or fix its path,"
        f" or set default_agent in {config}"
    )
    assert lines["agent spare"] == (
        "warn: '/opt/spare/agent' is not on PATH — fix: install '/opt/spare/agent'"
        " or fix its path, or fix [agents.spare]"
    )


def test_websocket_agents_are_checked_by_their_token_not_a_program(
    machine: Machine,
) -> None:
    config = Path(machine.env["HOME"]) / ".config" / "agent-doc" / "config.toml"
    config.parent.mkdir(parents=True)
    token = config.parent / "cloud-token"
    token.write_text("abc\n")
    config.write_text(
        'default_agent = "cloud"\n[agents.cloud]\ntransport = "acp-ws"\n'
        'url = "wss://agents.example.com/acp"\ntoken_file = "cloud-token"\n'
        '[agents.lost]\ntransport = "acp-ws"\nurl = "ws://127.0.0.1:9/"\n'
        'token_file = "no-such-token"\n'
    )
    machine.env["XDG_CONFIG_HOME"] = str(config.parent.parent)
    code, lines = _doctor(machine)
    assert code == 0
    assert lines["agent cloud"] == (
        "ok: wss://agents.example.com/acp (with a token; not connected)"
    )
    assert lines["agent lost"].startswith(
        "warn: agent 'lost': cannot read the token file "
        f"{config.parent / 'no-such-token'}"
    )
    assert lines["agent lost"].endswith(
        " — fix: fix token_file / token_env in [agents.lost]"
    )


def test_no_git_identity_fails(machine: Machine) -> None:
    Path(machine.env["GIT_CONFIG_GLOBAL"]).write_text("")
    code, lines = _doctor(machine)
    assert code == 1
    assert lines["git identity"].startswith(
        "fail: not set: agent-doc commits every turn and git refuses without it"
        ' — fix: git config --global user.name "Your Name"'
    )


def test_no_git_at_all_fails(machine: Machine) -> None:
    (machine.bin / "git").unlink()
    code, lines = _doctor(machine)
    assert code == 1
    assert lines["git"] == (
        "fail: not found on PATH — fix: install git (apt install git / brew install git)"
    )
    assert "git identity" not in lines


def test_open_socket_folders_fail(machine: Machine) -> None:
    runtime = Path(os.environ["XDG_RUNTIME_DIR"])  # the test's own, from conftest
    sockets = runtime / "agent-doc"
    sockets.mkdir(mode=0o700, exist_ok=True)
    sockets.chmod(0o755)
    tmux_dir = Path(machine.env["TMUX_TMPDIR"]) / f"tmux-{os.getuid()}"
    tmux_dir.mkdir(mode=0o777)
    tmux_dir.chmod(0o777)
    code, lines = _doctor(machine)
    assert code == 1
    assert lines["runtime dir"] == f"ok: {runtime} (0700)"
    assert lines["socket dir"] == (
        f"fail: {sockets} is open to others (0755) — fix: chmod 700 {sockets}"
    )
    assert lines["tmux socket dir"] == (
        f"fail: {tmux_dir} is open to others (0777) — fix: chmod 700 {tmux_dir}"
    )
    runtime.chmod(0o755)
    try:
        _, lines = _doctor(machine)
    finally:
        runtime.chmod(0o700)
    assert lines["runtime dir"].startswith(f"fail: {runtime} is open to others")


def test_lsp_off_path_is_a_warning_naming_its_full_path(
    machine: Machine,
) -> None:
    (machine.bin / "agent-doc-lsp").unlink()
    code, lines = _doctor(machine)
    assert code == 0
    assert lines["agent-doc-lsp"] == (
        f"warn: {LSP} is not on PATH: an editor started elsewhere misses it"
        f" — fix: add {LSP.parent} to PATH, or give your editor {LSP}"
    )


def test_config_typos_show_as_warnings_once(machine: Machine) -> None:
    config = machine.tmp / "cfg" / "agent-doc" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('defualt_agent = "claude"\n')
    machine.env["XDG_CONFIG_HOME"] = str(config.parent.parent)
    code, lines = _doctor(machine)  # _doctor asserts stderr is empty: no repeat
    assert code == 0
    assert lines["config"] == (
        f"warn: {config}: unknown key 'defualt_agent' (did you mean 'default_agent'?)"
        " — fix: rename or remove the key"
    )


def test_json(machine: Machine) -> None:
    (machine.bin / "tmux").unlink()
    env = dict(machine.env)
    result = agent_doc("doctor", "--json", cwd=machine.work, env=env)
    assert result.returncode == 0
    checks = json.loads(result.stdout)
    tmux = next(c for c in checks if c["name"] == "tmux")
    assert tmux["status"] == "warn"
    assert tmux["fix"].startswith("install tmux")
    assert set(checks[0]) == {"name", "status", "detail", "fix"}


def test_each_configured_editor_server_is_checked(machine: Machine) -> None:
    """A moved virtualenv leaves Helix pointing at nothing: that line fails."""
    config = Path(os.environ["XDG_CONFIG_HOME"])
    helix = config / "helix" / "languages.toml"
    helix.parent.mkdir(parents=True)
    helix.write_text(
        '[language-server.agent-doc-lsp]\ncommand = "/old/venv/bin/agent-doc-lsp"\n'
    )
    init_el = Path(machine.env["HOME"]) / ".emacs.d" / "init.el"
    init_el.parent.mkdir(parents=True)
    init_el.write_text(f'(setq agent-doc-server-command \'("{LSP}"))\n')
    init_lua = config / "nvim" / "init.lua"
    init_lua.parent.mkdir(parents=True)
    init_lua.write_text(
        'require("agent_doc").setup({\n  cmd = { "agent-doc-lsp" },\n})\n'
    )
    code, lines = _doctor(machine)
    assert code == 1
    assert lines["helix server"] == (
        f"fail: {helix} runs '/old/venv/bin/agent-doc-lsp', which is not there"
        f" — fix: set it to {LSP} in {helix}"
    )
    assert lines["emacs server"] == f"ok: {LSP} (from {init_el})"
    assert (
        lines["neovim server"]
        == f"ok: {machine.bin / 'agent-doc-lsp'} (from {init_lua})"
    )


def test_the_tmux_server_of_agent_doc_tmux_socket_is_the_one_checked(
    machine: Machine,
) -> None:
    """doctor looks where status and route look: AGENT_DOC_TMUX_SOCKET's server."""
    import subprocess

    socket = f"dr{os.getpid()}"  # in the test's own TMUX_TMPDIR; short for the path
    machine.env["AGENT_DOC_TMUX_SOCKET"] = socket
    folder = Path(machine.env["TMUX_TMPDIR"]).resolve() / f"tmux-{os.getuid()}"
    code, lines = _doctor(machine)
    assert code == 0, lines
    assert lines["tmux server"] == (
        f"ok: AGENT_DOC_TMUX_SOCKET={socket}: {folder / socket}"
        " (not running; route and start start it)"
    )
    tmux = ["tmux", "-L", socket]
    env = {**os.environ, "TMUX_TMPDIR": machine.env["TMUX_TMPDIR"]}
    env.pop("TMUX", None)
    subprocess.run([*tmux, "new-session", "-d", "-s", "s"], env=env, check=True)
    try:
        code, lines = _doctor(machine)
        assert lines["tmux server"].endswith("(running, 1 panes)"), lines
        assert lines["tmux socket dir"] == f"ok: {folder} (0700)"
    finally:
        subprocess.run([*tmux, "kill-server"], env=env, check=False)
