"""workspace/symbol: components of the session documents in the workspace."""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.editor_client import start_editor

SESSION = "---\nagent_doc_session: s1\n---\n<!-- agent:status -->\nx\n<!-- /agent:status -->\n"


def _tree(root: Path) -> None:
    (root / "sub").mkdir(parents=True)
    (root / "plan.md").write_text(SESSION)
    (root / "sub" / "notes.md").write_text(
        "<!-- agent:findings -->\n<!-- /agent:findings -->\n"
    )
    (root / "plain.md").write_text("# just markdown\n<!-- agent:ignored -->\n")
    for skipped in (".git", ".agent-doc", "node_modules"):
        (root / skipped).mkdir()
        (root / skipped / "x.md").write_text(SESSION.replace("status", "hidden"))


async def _search(client: LanguageClient, query: str) -> list[types.WorkspaceSymbol]:
    # the client may structure the answer as SymbolInformation (same fields)
    result = await client.workspace_symbol_async(
        types.WorkspaceSymbolParams(query=query)
    )
    assert result is not None
    return list(result)  # type: ignore[arg-type]


async def test_finds_session_components_and_skips_ignored_folders(
    client: LanguageClient, tmp_path: Path
):
    root = tmp_path / "ws"
    _tree(root)
    await start_editor(client, root=root)
    found = await _search(client, "")
    names = sorted((s.name, Path(s.location.uri).name) for s in found)  # type: ignore[union-attr]
    assert names == [
        ("findings", "notes.md"),
        ("frontmatter", "plan.md"),
        ("status", "plan.md"),
    ]
    (status,) = await _search(client, "STAT")
    assert isinstance(status.location, types.Location)
    assert status.location.uri == (root / "plan.md").as_uri()
    assert (status.location.range.start.line, status.location.range.end.line) == (3, 6)


async def test_rescans_a_file_when_it_changes(client: LanguageClient, tmp_path: Path):
    root = tmp_path / "ws"
    _tree(root)
    await start_editor(client, root=root)
    assert [s.name for s in await _search(client, "status")] == ["status"]
    plan = root / "plan.md"
    plan.write_text(SESSION.replace("status", "renamed"))
    st = plan.stat()
    os.utime(plan, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert await _search(client, "status") == []
    assert [s.name for s in await _search(client, "renamed")] == ["renamed"]
