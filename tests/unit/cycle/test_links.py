"""Linked documents against a real HTTP server on 127.0.0.1 and a real git repo."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from agent_doc.cycle.links import MAX_BYTES
from agent_doc.cycle.links import NOT_FETCHED
from agent_doc.cycle.links import cache_path
from agent_doc.cycle.links import check_links
from agent_doc.cycle.links import fetch_url
from agent_doc.cycle.links import html_to_markdown
from agent_doc.errors import LinkError

PAGES: dict[str, tuple[int, str, bytes]] = {}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/loop"):
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.end_headers()
            return
        status, kind, body = PAGES.get(self.path, (404, "text/plain", b"nope"))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_base() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    PAGES.clear()


HTML = b"""<html><head><style>.x{color:red}</style><script>alert(1)</script></head>
<body><nav>Menu Home</nav><h1>Title</h1><p>Body <b>text</b>.</p>
<noscript>enable js</noscript><svg><text>logo</text></svg><footer>Copyright</footer>
</body></html>"""


def test_html_is_converted_without_chrome() -> None:
    md = html_to_markdown(HTML.decode())
    assert "# Title" in md
    assert "Body **text**." in md
    for gone in ("alert", "color:red", "Menu Home", "enable js", "logo", "Copyright"):
        assert gone not in md


def test_url_change_detection_uses_the_cache(project: Path, http_base: str) -> None:
    doc = project / "doc.md"
    doc.write_text("x\n")
    url = f"{http_base}/page"
    PAGES["/page"] = (200, "text/html; charset=utf-8", HTML)
    first = check_links(project, doc, (url,))
    assert [c.summary.split(" (")[0] for c in first] == ["new link"]
    assert cache_path(project, url).read_text().startswith("# Title")
    assert check_links(project, doc, (url,)) == []
    PAGES["/page"] = (200, "text/html", HTML.replace(b"Title", b"Other"))
    changed = check_links(project, doc, (url,))
    assert changed[0].summary.startswith("content changed (")
    assert changed[0].to_json()["exists"] is True


def test_unreachable_huge_and_binary_links_are_reported(http_base: str) -> None:
    PAGES["/big"] = (200, "text/plain", b"a" * (MAX_BYTES + 10))
    PAGES["/bin"] = (200, "application/octet-stream", b"\x00\x01")
    with pytest.raises(LinkError, match="larger than"):
        fetch_url(f"{http_base}/big")
    with pytest.raises(LinkError, match="not HTML or text"):
        fetch_url(f"{http_base}/bin")
    with pytest.raises(LinkError, match="HTTP 404"):
        fetch_url(f"{http_base}/missing")
    with pytest.raises(LinkError, match="redirects"):
        fetch_url(f"{http_base}/loop")
    with pytest.raises(LinkError, match="only http and https"):
        fetch_url("file:///etc/passwd")
    with pytest.raises(LinkError):
        fetch_url("http://127.0.0.1:9/", timeout=2)


def test_failed_url_is_listed_as_missing(project: Path, http_base: str) -> None:
    changes = check_links(project, project / "d.md", (f"{http_base}/missing",))
    assert changes[0].exists is False
    assert "404" in changes[0].summary


def _commit(root: Path, *paths: str, when: int) -> None:
    env = {"GIT_AUTHOR_DATE": f"@{when} +0000", "GIT_COMMITTER_DATE": f"@{when} +0000"}
    import os

    subprocess.run(["git", "-C", str(root), "add", *paths], check=True)
    subprocess.run(
        ["git", "-C", str(root), "commit", "-qm", "c"],
        check=True,
        env={**os.environ, **env},
    )


def test_local_links_compare_git_commit_times(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text("doc\n")
    other = project / "notes.md"
    other.write_text("notes\n")
    _commit(project, "notes.md", when=1_700_000_000)
    _commit(project, "doc.md", when=1_700_000_100)
    assert check_links(project, doc, ("notes.md",)) == []
    other.write_text("notes v2\n")
    _commit(project, "notes.md", when=1_700_000_200)
    changes = check_links(project, doc, ("notes.md", "gone.md"))
    assert [(c.path, c.exists) for c in changes] == [
        ("notes.md", True),
        ("gone.md", False),
    ]
    assert "committed" in changes[0].summary


def test_untrusted_check_lists_urls_without_fetching(
    project: Path, http_base: str
) -> None:
    """``allow_network=False``: no request, the URL is listed as not fetched."""
    doc = project / "doc.md"
    doc.write_text("x\n")
    url = f"{http_base}/page"
    PAGES["/page"] = (200, "text/plain", b"hello")
    changes = check_links(project, doc, (url,), allow_network=False)
    assert [c.to_json() for c in changes] == [
        {"path": url, "summary": NOT_FETCHED, "exists": False}
    ]
    assert not cache_path(project, url).exists()
