"""``agent-doc upgrade`` installs only a distribution that is this tool.

The name ``agent-doc`` on PyPI belongs to another program (the original Rust
tool's bootstrap). Whatever name the index resolves, ``upgrade`` first
downloads the archive with ``pip download --no-deps`` into a temporary folder,
checks that it ships the ``agent_doc_lsp`` package, and only then installs that
very file.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_doc.errors import AgentDocError

PROVIDED_PACKAGE = "agent_doc_lsp"
"""The import package every genuine distribution of this tool contains."""


class NotOurDistribution(AgentDocError):
    """The downloaded distribution is not agent-doc's Python edition."""


def archive_members(archive: Path) -> list[str]:
    """Names inside a wheel, ``.zip`` or ``.tar.gz`` sdist; ``[]`` if unreadable."""
    try:
        if archive.suffix in (".whl", ".zip"):
            with zipfile.ZipFile(archive) as zipped:
                return zipped.namelist()
        with tarfile.open(archive) as tarred:
            return tarred.getnames()
    except (OSError, zipfile.BadZipFile, tarfile.TarError):
        return []


def provides_package(archive: Path, package: str = PROVIDED_PACKAGE) -> bool:
    """True when ``archive`` contains ``package/__init__.py`` at its top level.

    Wheels hold it at the root; sdists one folder down (``name-1.0/``).
    """
    target = f"{package}/__init__.py"
    for member in archive_members(archive):
        parts = member.strip("/").split("/")
        if "/".join(parts) == target or "/".join(parts[1:]) == target:
            return True
    return False


@contextmanager
def download_verified(
    requirement: str, pip_options: tuple[str, ...] = ()
) -> Iterator[Path | None]:
    """Yield the downloaded archive of ``requirement`` once it is verified.

    Yields ``None`` when pip could not download it (pip's own message is on
    stderr); raises :class:`NotOurDistribution` when the archive does not
    provide ``agent_doc_lsp``. The temporary folder is removed afterwards.
    """
    with tempfile.TemporaryDirectory(prefix="agent-doc-upgrade-") as folder:
        command = [
            sys.executable, "-m", "pip", "download", "--no-deps",
            "--disable-pip-version-check", "-q", "-d", folder,
            *pip_options, requirement,
        ]  # fmt: skip
        if subprocess.call(command) != 0:
            yield None
            return
        archives = sorted(Path(folder).iterdir())
        if len(archives) != 1 or not provides_package(archives[0]):
            found = ", ".join(a.name for a in archives) or "nothing"
            raise NotOurDistribution(
                f"refusing to install {found}: it does not provide the "
                f"{PROVIDED_PACKAGE} package, so it is not this agent-doc"
            )
        yield archives[0]
