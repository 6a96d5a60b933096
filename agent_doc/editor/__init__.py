"""Editor support: the domain logic behind the language server's features.

Pure functions over document text returning plain dataclasses with ``str``
offsets (code points); ``agent_doc_lsp`` only converts them to LSP types. The
adapters here: :mod:`agent_doc.editor.project` reads project configuration and
scans workspace folders (with mtime caches), :mod:`agent_doc.editor.agent_status`
reports the agent state of open documents, :mod:`agent_doc.editor.install`
installs the editor plugins from the local ``editors/`` tree, and
:mod:`agent_doc.editor.doctor` checks the set-up the README asks for.

May import: every domain package (:mod:`agent_doc.tmux`, :mod:`agent_doc.store`,
:mod:`agent_doc.document`, …); never :mod:`agent_doc.cli` or the language server.
"""

from __future__ import annotations

from agent_doc.editor.assist import completions
from agent_doc.editor.assist import hover
from agent_doc.editor.assist import rename_edits
from agent_doc.editor.assist import rename_target
from agent_doc.editor.fixes import quick_fixes
from agent_doc.editor.lint import problems
from agent_doc.editor.model import Completion
from agent_doc.editor.model import Fix
from agent_doc.editor.model import Fold
from agent_doc.editor.model import HoverInfo
from agent_doc.editor.model import Problem
from agent_doc.editor.model import Symbol
from agent_doc.editor.model import TextChange
from agent_doc.editor.outline import OutlinePart
from agent_doc.editor.outline import folds
from agent_doc.editor.outline import is_session_document
from agent_doc.editor.outline import outline
from agent_doc.editor.outline import outline_parts

__all__ = [
    "Completion",
    "Fix",
    "Fold",
    "HoverInfo",
    "OutlinePart",
    "Problem",
    "Symbol",
    "TextChange",
    "completions",
    "folds",
    "hover",
    "is_session_document",
    "outline",
    "outline_parts",
    "problems",
    "quick_fixes",
    "rename_edits",
    "rename_target",
]
