"""Editor support: the domain logic behind the language server's features.

Pure functions over document text returning plain dataclasses with ``str``
offsets (code points); ``agent_doc_lsp`` only converts them to LSP types. The one
adapter here, :mod:`agent_doc.editor.project`, reads project configuration and
scans workspace folders (with mtime caches).
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
from agent_doc.editor.outline import folds
from agent_doc.editor.outline import is_session_document
from agent_doc.editor.outline import outline

__all__ = [
    "Completion",
    "Fix",
    "Fold",
    "HoverInfo",
    "Problem",
    "Symbol",
    "TextChange",
    "completions",
    "folds",
    "hover",
    "is_session_document",
    "outline",
    "problems",
    "quick_fixes",
    "rename_edits",
    "rename_target",
]
