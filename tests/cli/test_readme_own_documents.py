"""README's "Your own documents" block, run as written: the document lands in
the person's own project, never in the agent-doc checkout (issue 39)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _block() -> list[str]:
    section = README.read_text().split("### Your own documents", 1)[1]
    code = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].rstrip() for line in code.splitlines()]


def test_the_block_cds_into_your_project_and_names_the_command_absolutely(
    tmp_path: Path,
) -> None:
    lines = _block()
    assert lines[0].startswith("AGENT_DOC=$PWD/"), lines  # absolute, set once
    assert any(line.startswith("cd ") for line in lines[1:]), lines
    mine = tmp_path / "my-project"
    mine.mkdir()
    subprocess.run(["git", "init", "-q", str(mine)], check=True)
    checkout = tmp_path / "checkout"  # stands in for the clone the README is in
    checkout.mkdir()
    script = [
        f"AGENT_DOC={Path(sys.executable).parent / 'agent-doc'}",
        *(line.replace("~/code/my-project", str(mine)) for line in lines[1:]),
    ]
    script = [line for line in script if " run " not in line]  # needs claude
    result = subprocess.run(
        ["bash", "-euc", "\n".join(script)],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
        env=os.environ.copy(),
    )
    assert result.returncode == 0, result.stderr
    assert (mine / "notes.md").is_file()
    assert (mine / ".agent-doc").is_dir()
    assert list(checkout.iterdir()) == []
