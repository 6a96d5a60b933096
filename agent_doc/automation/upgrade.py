"""``upgrade`` and the "newer version available" notice (spec §7.18, Python edition).

This edition is published as the ``agent-doc-lsp`` distribution (the name
``agent-doc`` on PyPI belongs to the original Rust tool's bootstrap package, a
different program). The latest version comes from the package index's JSON API
(``https://pypi.org/pypi/agent-doc-lsp/json``; ``$AGENT_DOC_INDEX_URL``
overrides it; an answer naming another project counts as no answer) and is
cached for 24 h in ``$XDG_CACHE_HOME/agent-doc/version-cache.json``
(``{"checked_at", "latest", "url", "notified_at"}``). Every failure (offline,
bad JSON, unwritable cache) is silent.

Start-up notice, designed never to slow a command down: the CLI callback only
*reads* the cache. When the cache is stale it starts a detached child
(``python -m agent_doc.automation.upgrade --refresh``, new session, no stdio) that
refreshes it with a short timeout, and says nothing this time; when the cache
is fresh and names a newer version, a one-line notice goes to stderr at most
once per 24 h. ``AGENT_DOC_NO_UPDATE_CHECK=1`` disables all of it.

``upgrade`` downloads the new distribution first and installs that file only if
it provides the ``agent_doc_lsp`` package (:mod:`agent_doc.automation.upgrade_verify`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_doc import __version__
from agent_doc.errors import AgentDocError
from agent_doc.store.atomic import atomic_write_text

DISTRIBUTION = "agent-doc-lsp"
"""Our name on PyPI (``agent-doc`` is another program)."""
DEFAULT_INDEX_URL = f"https://pypi.org/pypi/{DISTRIBUTION}/json"
CACHE_TTL_S = 24 * 3600
NOTICE_INTERVAL_S = 24 * 3600
FETCH_TIMEOUT_S = 1.0


def index_url() -> str:
    """The JSON API URL (``$AGENT_DOC_INDEX_URL`` or PyPI)."""
    return os.environ.get("AGENT_DOC_INDEX_URL") or DEFAULT_INDEX_URL


def check_disabled() -> bool:
    """True when ``$AGENT_DOC_NO_UPDATE_CHECK`` is set to a non-empty value."""
    return os.environ.get("AGENT_DOC_NO_UPDATE_CHECK", "") not in ("", "0")


def cache_path() -> Path:
    """``$XDG_CACHE_HOME/agent-doc/version-cache.json`` (default ``~/.cache``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agent-doc" / "version-cache.json"


def read_cache() -> dict[str, Any]:
    """The cache object; ``{}`` when missing or unreadable."""
    try:
        data = json.loads(cache_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_cache(data: dict[str, Any]) -> None:
    """Store the cache atomically; errors are ignored."""
    try:
        atomic_write_text(cache_path(), json.dumps(data) + "\n")
    except (AgentDocError, OSError):
        pass


def cache_fresh(data: dict[str, Any], now: float | None = None) -> bool:
    """True when the cache was filled from the current URL less than 24 h ago."""
    checked = data.get("checked_at")
    current = time.time() if now is None else now
    return (
        isinstance(checked, (int, float))
        and data.get("url") == index_url()
        and 0 <= current - checked < CACHE_TTL_S
    )


def fetch_latest(
    url: str | None = None, timeout: float = FETCH_TIMEOUT_S
) -> str | None:
    """``info.version`` from the index's JSON API; ``None`` on any error."""
    try:
        import httpx

        reply = httpx.get(url or index_url(), timeout=timeout, follow_redirects=True)
        reply.raise_for_status()
        info = reply.json()["info"]
        version, name = info["version"], info.get("name", DISTRIBUTION)
    except Exception:
        return None
    if not isinstance(name, str) or _normalise(name) != DISTRIBUTION:
        return None
    return version if isinstance(version, str) else None


def _normalise(name: str) -> str:
    """``name`` in PEP 503 normal form (``Agent_Doc.LSP`` → ``agent-doc-lsp``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def refresh_cache(timeout: float = FETCH_TIMEOUT_S) -> str | None:
    """Fetch the latest version and cache it (failures are cached too)."""
    latest = fetch_latest(timeout=timeout)
    data = read_cache()
    data.update(checked_at=time.time(), latest=latest, url=index_url())
    write_cache(data)
    return latest


_RELEASE = r"(?:v)?(\d+(?:\.\d+)*)"


def is_newer(candidate: str | None, current: str) -> bool:
    """True when ``candidate`` is a final release (``N(.N)*``) above ``current``.

    PEP 440 ordering for what the index announces: release segments compare
    numerically with trailing zeros ignored (``1.0 == 1.0.0``); a final release
    is newer than a pre-release or dev release of the same numbers
    (``1.0.0 > 1.0.0rc1``) but not than a post release or local version of
    them. Pre-releases, epochs and anything unparsable are never announced.
    """
    if not candidate:
        return False
    final = re.fullmatch(_RELEASE, candidate.strip().lower())
    mine = re.match(_RELEASE, current.strip().lower())
    if final is None or mine is None:
        return False
    new, have = _release(final.group(1)), _release(mine.group(1))
    if new != have:
        return new > have
    suffix = current.strip().lower()[mine.end() :].lstrip("-_.")
    return suffix.startswith(("a", "b", "c", "rc", "pre", "dev"))


def _release(numbers: str) -> tuple[int, ...]:
    """``"1.2.0"`` → ``(1, 2)``: the release segment without trailing zeros."""
    parts = [int(n) for n in numbers.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def startup_notice(now: float | None = None) -> str | None:
    """The start-up notice, if due; refreshes a stale cache in the background."""
    if check_disabled():
        return None
    data = read_cache()
    current = time.time() if now is None else now
    if not cache_fresh(data, current):
        started = data.get("refresh_started_at")
        if not isinstance(started, (int, float)) or current - started > 60:
            data["refresh_started_at"] = current
            write_cache(data)
            spawn_refresh()
        return None
    latest = data.get("latest")
    notified = data.get("notified_at")
    recent = (
        isinstance(notified, (int, float)) and current - notified < NOTICE_INTERVAL_S
    )
    if recent or not isinstance(latest, str) or not is_newer(latest, __version__):
        return None
    data["notified_at"] = current
    write_cache(data)
    checkout = running_checkout()
    how = "agent-doc upgrade" if checkout is None else f"git -C {checkout} pull"
    return f"agent-doc-lsp {latest} is available (you have {__version__}); run: {how}"


def spawn_refresh() -> None:
    """Start a detached update check (``--refresh``) in the background; never blocks."""
    try:
        subprocess.Popen(
            [sys.executable, "-m", "agent_doc.automation.upgrade", "--refresh"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        pass


def running_checkout() -> Path | None:
    """The source checkout this agent-doc runs from (an editable install, or
    ``python -m`` in a clone), ``None`` for an install from the package index.

    pip cannot upgrade a checkout: ``git pull`` there is the update.
    """
    top = Path(__file__).resolve().parents[2]  # agent_doc/automation/upgrade.py
    if (top / "pyproject.toml").is_file() and (top / ".git").exists():
        return top
    return None


@dataclass(frozen=True, slots=True)
class UpgradePlan:
    """What ``agent-doc upgrade`` found and would run."""

    current: str
    latest: str | None
    command: tuple[str, ...]

    @property
    def needed(self) -> bool:
        """False only when the index says we already have the latest version."""
        return self.latest is None or is_newer(self.latest, self.current)


def plan_upgrade(timeout: float = 5.0) -> UpgradePlan:
    """Check the index now (refreshing the cache) and build the pip command."""
    latest = refresh_cache(timeout=timeout)
    command = (sys.executable, "-m", "pip", "install", "--upgrade", DISTRIBUTION)
    return UpgradePlan(__version__, latest, command)


def run_upgrade(plan: UpgradePlan, pip_options: tuple[str, ...] = ()) -> int:
    """Download, verify and install the new version; pip's exit code.

    Raises :class:`agent_doc.automation.upgrade_verify.NotOurDistribution` (nothing
    installed) when the download does not provide ``agent_doc_lsp``.
    """
    from agent_doc.automation.upgrade_verify import download_verified

    pinned = f"{DISTRIBUTION}=={plan.latest}"
    requirement = DISTRIBUTION if plan.latest is None else pinned
    with download_verified(requirement, pip_options) as archive:
        if archive is None:
            return 1
        install = [*plan.command[:-1], *pip_options, str(archive)]
        return subprocess.call(install)


if __name__ == "__main__":
    if sys.argv[1:] == ["--refresh"]:
        refresh_cache()
