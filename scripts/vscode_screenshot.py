"""Regenerate docs/editors/vscode-write.png: the real VS Code (code-server)
with the installed agent-doc .vsix, just after `agent-doc write` landed in the
unsaved buffer (lens row, status bar, dirty tab).

Usage: .venv/bin/python scripts/vscode_screenshot.py [OUT.png]
Uses the test harness (tests/editors/vscode_harness.py): code-server and the
.vsix from the cache (installed on first use), Debian's chromium, a private
tmux server and the stand-in agent.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.editors.vscode_fixtures import make_project  # noqa: E402
from tests.editors.vscode_harness import VSCode  # noqa: E402
from tests.editors.vscode_install import ensure_code_server  # noqa: E402
from tests.editors.vscode_install import ensure_vsix  # noqa: E402


def main() -> int:
    """Take the screenshot; print where it went."""
    out = (
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else REPO / "docs/editors/vscode-write.png"
    )
    code_server, vsix = ensure_code_server(), ensure_vsix()
    with tempfile.TemporaryDirectory(prefix="agent-doc-shot-") as tmp:
        base = Path(tmp)
        editor = VSCode(code_server, vsix, base / "vscode")
        with make_project(base) as project:
            params = {**project.params(), "screenshotPath": str(out.resolve())}
            result = editor.run(
                "screenshot.js",
                project.root,
                params,
                settings=project.settings(),
                env=project.env(),
            )
    failed = {k: v["detail"] for k, v in result["checks"].items() if not v["ok"]}
    if failed:
        print(f"vscode_screenshot: checks failed: {failed}", file=sys.stderr)
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
