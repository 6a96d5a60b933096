"""Contracts of docs/architecture.md that import-linter cannot see, checked
on the source (issue 38): who runs tmux, who spawns with ``os.posix_spawn``,
where the document layer reads a clock or draws a random number, and that
every error raised on purpose is an ``AgentDocError``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "agent_doc"

DOCUMENT_NONDETERMINISM = {
    ("agent_doc/document/boundary.py", "os.urandom"): "new_boundary_id, the"
    " default when a caller gives no boundary id",
    ("agent_doc/document/frontmatter.py", "uuid.uuid4"): "ensure_session: the"
    " session id a document without one gets",
}
"""The document layer's only randomness, each a default a caller can replace
(architecture.md, "The pure text model"); it reads no clock (the time a
component is stamped with comes from ``write/patch_time.py``)."""

CLOCKS_AND_DICE = frozenset(
    {
        "datetime.now", "datetime.utcnow", "datetime.today", "date.today",
        "time.time", "time.monotonic", "time.perf_counter", "time.time_ns",
        "os.urandom", "os.getrandom", "uuid.uuid1", "uuid.uuid4",
        "random.random", "random.choice", "random.randint", "random.Random",
        "secrets.token_hex", "secrets.token_bytes", "secrets.choice",
    }
)  # fmt: skip


def _sources(under: Path = PACKAGE) -> Iterator[tuple[str, ast.AST]]:
    for path in sorted(under.rglob("*.py")):
        yield path.relative_to(REPO).as_posix(), ast.parse(path.read_text("utf-8"))


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _calls(tree: ast.AST) -> Iterator[tuple[int, str, ast.Call]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield node.lineno, _dotted(node.func), node


def test_only_the_tmux_adapter_runs_tmux() -> None:
    """architecture.md: ``tmux/adapter.py`` is the only module that runs tmux."""
    found = []
    for path, tree in _sources():
        for line, name, call in _calls(tree):
            first = call.args[0] if call.args else None
            if isinstance(first, ast.List) and first.elts:
                first = first.elts[0]
            says_tmux = isinstance(first, ast.Constant) and first.value == "tmux"
            if (says_tmux and name in {"shutil.which", "which"}) or (
                says_tmux and name.startswith(("subprocess.", "os.exec", "os.posix"))
            ):
                found.append(f"{path}:{line}: {name}")
    assert [f for f in found if not f.startswith("agent_doc/tmux/adapter.py")] == []
    assert found, "the check finds the adapter's own tmux"


def test_only_the_per_turn_git_processes_use_posix_spawn() -> None:
    """``_runtime`` says the package uses plain ``subprocess``; the one
    exception is ``cycle/gitproc.py`` (4 ms of imports per turn)."""
    found = [
        f"{path}:{line}"
        for path, tree in _sources()
        for line, name, _call in _calls(tree)
        if name in {"os.posix_spawn", "os.posix_spawnp", "os.fork", "os.execv"}
    ]
    assert found
    assert [f for f in found if not f.startswith("agent_doc/cycle/gitproc.py")] == []


def test_the_document_layer_reads_a_clock_or_dice_only_as_a_named_default() -> None:
    found = {
        (path, name)
        for path, tree in _sources(PACKAGE / "document")
        for _line, name, _call in _calls(tree)
        if name in CLOCKS_AND_DICE
    }
    assert found == set(DOCUMENT_NONDETERMINISM)


def test_every_error_raised_on_purpose_is_an_agent_doc_error() -> None:
    """``Exception`` subclasses derive from ``AgentDocError`` (through
    ``agent_doc.errors``); only control flow that never reaches a person is
    exempt."""
    control_flow = {"agent_doc/cli/commands/_argv.py:Unhandled"}
    found = []
    for path, tree in _sources():
        if path == "agent_doc/errors.py":
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {_dotted(base).rsplit(".", 1)[-1] for base in node.bases}
            if bases & {"Exception", "RuntimeError", "ValueError", "OSError"}:
                found.append(f"{path}:{node.name}")
    assert sorted(found) == sorted(control_flow)
