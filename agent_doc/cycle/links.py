"""Linked documents (``links`` frontmatter) checked before each cycle (§7.26).

Local files count as changed when git last committed them (or, untracked, last
modified them) after the document's own last commit. URLs are fetched with
httpx (http/https only, 10 s timeout, bounded size and redirects), HTML is
converted to markdown without script/style/nav/footer/noscript/svg, and the
result is compared with ``.agent-doc/links_cache/<sha256(url)>.txt``.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_doc._runtime.digest import sha256_hex
from agent_doc.errors import LinkError
from agent_doc.store.state import atomic_write_text

FETCH_TIMEOUT_S = 10.0
MAX_BYTES = 2 * 1024 * 1024
MAX_REDIRECTS = 5
_DROPPED_TAGS = ("script", "style", "nav", "footer", "noscript", "svg")


@dataclass(frozen=True, slots=True)
class LinkedChange:
    """One linked document that changed since the last cycle."""

    path: str
    """The link as written in the frontmatter."""
    summary: str
    """A short human description (``content changed (1234 bytes)``...)."""
    exists: bool
    """False when the file or URL could not be read."""

    def to_json(self) -> dict[str, Any]:
        """Return the §7.26 JSON object."""
        return {"path": self.path, "summary": self.summary, "exists": self.exists}


def cache_path(root: Path, url: str) -> Path:
    """Return the cache file of ``url`` under the project's ``.agent-doc/``."""
    digest = sha256_hex(url.encode("utf-8"))
    return root / ".agent-doc" / "links_cache" / f"{digest}.txt"


def html_to_markdown(html: str) -> str:
    """Convert HTML to markdown, dropping scripts, styles and page chrome."""
    from markdownify import MarkdownConverter

    class _Converter(MarkdownConverter):
        def process_tag(self, node: Any, parent_tags: Any = None) -> str:
            if getattr(node, "name", None) in _DROPPED_TAGS:
                return ""
            return str(super().process_tag(node, parent_tags))  # type: ignore[misc]

    text = _Converter(heading_style="ATX").convert(html)
    lines = [line.rstrip() for line in text.splitlines()]
    out = "\n".join(lines).strip()
    while "\n\n\n" in out:
        out = out.replace("\n\n\n", "\n\n")
    return out + "\n"


def fetch_url(url: str, *, timeout: float = FETCH_TIMEOUT_S) -> str:
    """Fetch ``url`` and return it as markdown text (HTML converted)."""
    import httpx

    if not url.lower().startswith(("http://", "https://")):
        raise LinkError(f"{url}: only http and https links are fetched")
    try:
        with (
            httpx.Client(
                timeout=timeout, follow_redirects=True, max_redirects=MAX_REDIRECTS
            ) as client,
            client.stream("GET", url) as response,
        ):
            response.raise_for_status()
            kind = response.headers.get("content-type", "").split(";")[0].strip()
            if kind and not (
                kind.startswith("text/") or kind.endswith(("xml", "json"))
            ):
                raise LinkError(f"{url}: not HTML or text (content-type {kind})")
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise LinkError(f"{url}: larger than {MAX_BYTES} bytes")
            text = body.decode(response.encoding or "utf-8", errors="replace")
    except httpx.TooManyRedirects as exc:
        raise LinkError(f"{url}: more than {MAX_REDIRECTS} redirects") from exc
    except httpx.HTTPStatusError as exc:
        raise LinkError(f"{url}: HTTP {exc.response.status_code}") from exc
    except httpx.HTTPError as exc:
        raise LinkError(f"{url}: {type(exc).__name__}: {exc}") from exc
    return (
        html_to_markdown(text)
        if kind in ("text/html", "application/xhtml+xml")
        else text
    )


def _git_time(root: Path, path: Path) -> int | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "log", "-1", "--format=%ct", "--", str(path)],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return int(out) if out.isdigit() else None


def check_local(root: Path, document: Path, link: str) -> LinkedChange | None:
    """Return a change when local ``link`` is newer than the document's last commit."""
    target = (document.parent / link).resolve()
    if not target.exists():
        return LinkedChange(path=link, summary="file not found", exists=False)
    doc_time = _git_time(root, document) or 0
    link_time = _git_time(root, target)
    dirty = link_time is None
    when = link_time if link_time is not None else int(target.stat().st_mtime)
    if when <= doc_time:
        return None
    state = "modified (uncommitted)" if dirty else "committed"
    return LinkedChange(path=link, summary=f"{state} since the last cycle", exists=True)


def check_url(root: Path, url: str) -> LinkedChange | None:
    """Fetch ``url``; return a change when it differs from the cached copy."""
    cache = cache_path(root, url)
    try:
        fresh = fetch_url(url)
    except LinkError as exc:
        return LinkedChange(path=url, summary=str(exc), exists=False)
    previous = cache.read_text("utf-8") if cache.exists() else None
    if previous == fresh:
        return None

    cache.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(cache, fresh)
    size = len(fresh.encode("utf-8"))
    what = "new link" if previous is None else "content changed"
    return LinkedChange(path=url, summary=f"{what} ({size} bytes)", exists=True)


NOT_FETCHED = "not fetched: workspace not trusted (agentDoc.trustWorkspace)"
"""Summary of a URL link that :func:`check_links` did not fetch."""


def check_links(
    root: Path,
    document: Path,
    links: tuple[str, ...],
    *,
    allow_network: bool = True,
) -> list[LinkedChange]:
    """Check every link of a document and return those that changed.

    With ``allow_network=False`` (a language server on an untrusted workspace)
    no URL is requested: each URL link is listed with ``exists: false`` and the
    summary :data:`NOT_FETCHED`; local links are still checked.
    """
    changes: list[LinkedChange] = []
    for link in links:
        is_url = "://" in link
        if is_url and not allow_network:
            changes.append(LinkedChange(path=link, summary=NOT_FETCHED, exists=False))
            continue
        change = check_url(root, link) if is_url else check_local(root, document, link)
        if change is not None:
            changes.append(change)
    return changes
