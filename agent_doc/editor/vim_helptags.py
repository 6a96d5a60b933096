"""Write a Vim/Neovim help ``tags`` file, as ``:helptags`` would.

``:help agent_doc`` needs ``doc/tags`` next to ``doc/agent_doc.txt``; without it
Neovim answers ``E149``. Generating it here (instead of running nvim) works on
machines where nvim is not on PATH yet and cannot hang on a user's config.
"""

from __future__ import annotations

import re
from pathlib import Path

from agent_doc.store.atomic import atomic_write_text

_TAG = re.compile(r"(?:^|(?<=[ \t]))\*([^ \t*|]+)\*(?=$|[ \t])")
"""A tag definition: ``*name*`` after a blank or at the line start, then a
blank or the line end (the rule of Vim's ``:helptags``)."""


def help_tags(doc_dir: Path) -> list[tuple[str, str]]:
    """``(tag, file name)`` of every ``*tag*`` in ``doc_dir/*.txt``, sorted."""
    found: dict[str, str] = {}
    for path in sorted(doc_dir.glob("*.txt")):
        for line in path.read_text("utf-8").splitlines():
            for tag in _TAG.findall(line):
                found.setdefault(tag, path.name)
    return sorted(found.items(), key=lambda item: item[0].encode("utf-8"))


def write_help_tags(doc_dir: Path) -> Path:
    """Write ``doc_dir/tags`` (``tag<TAB>file<TAB>/*tag*`` lines); return it."""
    lines = [f"{tag}\t{name}\t/*{_escape(tag)}*\n" for tag, name in help_tags(doc_dir)]
    target = doc_dir / "tags"
    atomic_write_text(target, "".join(lines))
    return target


def _escape(tag: str) -> str:
    """A tag inside the ``/*tag*`` search pattern: ``\\`` and ``/`` escaped."""
    return tag.replace("\\", "\\\\").replace("/", "\\/")
