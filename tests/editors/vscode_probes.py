"""The browser side of a real-VS-Code run: headless Chromium showing the
workbench, and *probes* the extension-host test module asks for.

A test module (``vscode_e2e/lib.js`` ``probe(kind, args)``) writes
``<probeDir>/<n>.request.json`` ``{"kind": ..., ...}`` and waits for
``<n>.response.json``; :meth:`Probes.serve_until` answers it from the page.
Built-in kinds: ``dom`` (status bar texts, editor tabs with their dirty flag,
lens rows, notification toasts, quick pick), ``click`` (a notification button by
its label), ``click_text`` (any element by CSS selector and text, e.g. a code
lens), ``type`` / ``press`` (real keystrokes), ``screenshot``. Pass ``handlers`` to add
kinds; a handler gets the playwright ``Page`` and the request.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.editors.vscode_install import CHROMIUM

ProbeHandler = Callable[[Any, dict[str, Any]], Any]
"""``(page, request) -> JSON-able answer``."""

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]


def dom_state(page: Any, _request: dict[str, Any]) -> dict[str, Any]:
    """What a person sees: status bar, tabs (dirty or not), lens rows, toasts, quick pick."""
    state: dict[str, Any] = page.evaluate(
        """() => ({
          statusbar: [...document.querySelectorAll('.statusbar-item')]
            .map(e => (e.getAttribute('aria-label') || '') + ' | ' + e.innerText),
          tabs: [...document.querySelectorAll('.tabs-container .tab')].map(t => ({
            label: t.getAttribute('aria-label') || t.innerText,
            dirty: t.classList.contains('dirty'),
          })),
          notifications: [...document.querySelectorAll('.notification-toast')]
            .map(e => e.innerText),
          codeLenses: [...document.querySelectorAll('.codelens-decoration')]
            .map(e => e.innerText),
          quickInput: [...document.querySelectorAll('.quick-input-widget')]
            .filter(e => e.style.display !== 'none')
            .map(e => e.innerText).join(' | '),
        })"""
    )
    return state


def click_button(page: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Click the notification button labelled ``request["label"]``."""
    toast = page.locator(".notification-toast").filter(has_text=request.get("text", ""))
    toast.get_by_role("button", name=request["label"], exact=True).first.click(
        timeout=10_000
    )
    return {"clicked": request["label"]}


def click_text(page: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Click the first ``request["selector"]`` element whose text is ``label``."""
    target = page.locator(request["selector"]).filter(has_text=request["label"])
    target.first.click(timeout=10_000)
    return {"clicked": request["label"]}


def type_text(page: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Type ``text`` with real key events, ``delay`` ms between keys."""
    page.keyboard.type(request["text"], delay=request.get("delay", 0))
    return {"typed": len(request["text"])}


def press_key(page: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Press one key chord (playwright syntax, e.g. ``Control+Z``)."""
    page.keyboard.press(request["key"])
    return {"pressed": request["key"]}


def screenshot(page: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Save a PNG of the page to ``request["path"]``."""
    page.screenshot(path=request["path"])
    return {"path": request["path"]}


BUILTIN: dict[str, ProbeHandler] = {
    "dom": dom_state,
    "click": click_button,
    "click_text": click_text,
    "type": type_text,
    "press": press_key,
    "screenshot": screenshot,
}


class Probes:
    """Chromium on the workbench, answering the test module's probe requests."""

    def __init__(
        self, directory: Path, env: dict[str, str], handlers: dict[str, ProbeHandler]
    ) -> None:
        from playwright.sync_api import sync_playwright

        self.directory = directory
        self.handlers = {**BUILTIN, **handlers}
        self.playwright = sync_playwright().start()
        launch_env: dict[str, str | float | bool] = dict(env)
        try:
            self.browser = self.playwright.chromium.launch(
                executable_path=CHROMIUM,
                headless=True,
                args=CHROMIUM_ARGS,
                env=launch_env,
            )
        except Exception:
            self.playwright.stop()
            raise
        self.page = self.browser.new_page(viewport={"width": 1280, "height": 800})
        self.served: set[str] = set()

    def open(self, url: str) -> None:
        """Load the workbench."""
        self.page.goto(url, timeout=30_000)

    def serve_until(
        self, result: Path, timeout: float, alive: Callable[[], bool]
    ) -> None:
        """Answer probes until ``result`` exists; fail after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while not result.exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"no result from the extension host in {timeout} s")
            if not alive():
                raise RuntimeError("code-server exited before the tests finished")
            for request in sorted(self.directory.glob("*.request.json")):
                if request.name not in self.served:
                    self.served.add(request.name)
                    self._answer(request)
            self.page.wait_for_timeout(50)

    def _answer(self, request: Path) -> None:
        """Run one probe and write its response (or its error)."""
        data = json.loads(request.read_text("utf-8"))
        try:
            answer = {"ok": True, "value": self.handlers[data["kind"]](self.page, data)}
        except Exception as exc:  # reported to the test module, which fails the check
            answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        name = request.name.replace(".request.json", ".response.json")
        tmp = request.with_name(name + ".tmp")
        tmp.write_text(json.dumps(answer))
        tmp.replace(request.with_name(name))

    def close(self) -> None:
        """Close Chromium and the playwright driver."""
        try:
            self.browser.close()
        finally:
            self.playwright.stop()
