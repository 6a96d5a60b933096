"""The FILE arguments of the CLI, validated before a command does anything.

Every command that takes a document declares it with :func:`document_argument`
(or :func:`new_document_argument` for ``init``). The check runs while typer
parses the command line, so a FIFO, socket, device, folder, missing file or
dangling symlink is refused at once with one ``agent-doc: …`` line (the error
boundary of :mod:`agent_doc.cli.app`), before ``.agent-doc/``, a lock or a
status file is created; so is a document whose frontmatter does not parse
(the line names the file). A file is opened only once it is known to be a
regular file, so the check cannot block.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated
from typing import Any

import typer

from agent_doc.errors import DocumentError
from agent_doc.store.docfile import require_session_document
from agent_doc.store.regular_file import require_document


def _existing(value: Any) -> Any:
    """Typer callback: every given path must be an existing regular file."""
    for path in value if isinstance(value, list) else [value]:
        if path is not None:
            require_document(Path(path))
    return value


def _session_documents(value: Any) -> Any:
    """Typer callback: existing regular files whose frontmatter parses."""
    for path in value if isinstance(value, list) else [value]:
        if path is not None:
            require_session_document(Path(path))
    return value


def _new(value: Path | None) -> Path | None:
    """Typer callback: a path to create must not exist (not even as a FIFO)."""
    if value is not None and os.path.lexists(value):
        raise DocumentError(f"{value} already exists")
    return value


def document_argument(
    help_text: str = "The session document.", *, frontmatter: bool = True
) -> Any:
    """A typer argument holding existing regular files (one, optional, or a list).

    With ``frontmatter`` (the default) a file whose frontmatter does not parse
    is refused too, naming the file; ``recover`` and ``watch`` pass ``False``
    (they must reach documents whatever state they are in).
    """
    return typer.Argument(
        help=help_text, callback=_session_documents if frontmatter else _existing
    )


def new_document_argument(help_text: str) -> Any:
    """A typer argument naming a document to create (refused if the path exists)."""
    return typer.Argument(help=help_text, callback=_new)


RoomOption = Annotated[
    str | None,
    typer.Option(
        "--room",
        help="Write into a shared room: ws://host:port/<session id> "
        "(or ws://host:port; default $AGENT_DOC_SHARE_URL).",
    ),
]
"""``--room`` of the commands that can write into a shared room (write, patch)."""

TokenFileOption = Annotated[
    Path | None,
    typer.Option(
        "--token-file",
        help="File holding the room's token (default $AGENT_DOC_SHARE_TOKEN).",
    ),
]
"""``--token-file``, the room's token beside :data:`RoomOption`."""
