"""Push diagnostics: structure, boundaries, frontmatter; debounced and versioned."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import range_to_str
from tests.lsp.editor_client import start_editor

BROKEN = """---
agent_doc_mode: append
agent_doc_write: bogus
---
<!-- agent:status patch=sideways max_lines=x -->
<!-- agent:boundary:aaaaaaaa -->
<!-- agent:boundary:bbbbbbbb -->
<!-- agent:open -->
<!-- /agent:status -->
<!-- /agent:nope -->
<!-- agent:-bad -->
```
<!-- agent:in-code -->
```
"""


def _by_code(diags: list[types.Diagnostic]) -> dict[str, list[types.Diagnostic]]:
    out: dict[str, list[types.Diagnostic]] = {}
    for d in diags:
        out.setdefault(str(d.code), []).append(d)
    return out


async def test_every_kind_of_problem_is_reported_at_its_marker(editor: Editor):
    uri = "file:///tmp/diag-broken.md"
    editor.open(uri, BROKEN)
    codes = _by_code(await editor.diagnostics(uri, version=1))
    assert sorted(codes) == [
        "deprecated-field",
        "frontmatter",
        "invalid-attribute",
        "invalid-name",
        "mismatched",
        "stale-boundary",
        "unclosed",
        "unmatched",
    ]
    (deprecated,) = codes["deprecated-field"]
    assert deprecated.severity == types.DiagnosticSeverity.Warning
    assert list(deprecated.tags or []) == [types.DiagnosticTag.Deprecated]
    assert range_to_str(deprecated.range) == "1:0-1:14"
    (fm,) = codes["frontmatter"]
    assert "agent_doc_write" in fm.message
    assert fm.range.start.line == 2
    assert len(codes["invalid-attribute"]) == 2  # patch= and max_lines=
    assert range_to_str(codes["stale-boundary"][0].range) == "5:0-5:32"
    assert range_to_str(codes["unclosed"][0].range) == "7:0-7:19"
    assert codes["unmatched"][0].range.start.line == 9
    assert codes["invalid-name"][0].range.start.line == 10
    assert all(d.source == "agent-doc" for ds in codes.values() for d in ds)


async def test_valid_document_has_no_diagnostics(editor: Editor):
    uri = "file:///tmp/diag-ok.md"
    editor.open(
        uri,
        "---\nagent_doc_format: template\n---\n<!-- agent:a -->\n<!-- /agent:a -->\n",
    )
    assert await editor.diagnostics(uri) == []


async def test_debounced_and_published_with_the_latest_version(client: LanguageClient):
    editor = await start_editor(client, settings={"diagnosticsDebounceMs": 150})
    uri = "file:///tmp/diag-typing.md"
    editor.open(uri, "<!-- agent:a -->\n")
    assert [d.code for d in await editor.diagnostics(uri, 1)] == ["unclosed"]
    count = len(editor.published)
    for ch in "<!-- /agent:a -->":
        editor.append(uri, ch)
    # a burst of keystrokes is checked once, for the final version
    fixed = await editor.diagnostics(uri, editor.version(uri))
    assert fixed == []
    final = editor.version(uri)
    # a barrier: one more key, checked after anything still due for the burst
    editor.append(uri, "\n")
    await editor.diagnostics(uri, editor.version(uri))
    later = editor.published[count:]
    assert [p.version for p in later] == [final, editor.version(uri)]


async def test_config_error_is_reported_not_fatal(editor: Editor, tmp_path: Path):
    root = tmp_path / "proj"
    (root / ".agent-doc").mkdir(parents=True)
    (root / ".agent-doc" / "components.toml").write_text("[status\n")
    uri = (root / "doc.md").as_uri()
    editor.open(uri, "<!-- agent:status -->\n<!-- /agent:status -->\n")
    (diag,) = await editor.diagnostics(uri)
    assert diag.code == "config"
    assert "components.toml" in diag.message


async def test_close_clears_diagnostics(editor: Editor):
    uri = "file:///tmp/diag-close.md"
    editor.open(uri, "<!-- agent:a -->\n")
    assert await editor.diagnostics(uri)
    editor.close(uri)
    await editor.wait_for(
        lambda: (
            editor.published[-1].uri == uri and not editor.published[-1].diagnostics
        ),
        what="cleared diagnostics",
    )
