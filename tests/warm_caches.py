"""Install the test suite's npm caches once, before pytest starts its workers.

``scripts/test.sh`` runs ``python -m tests.warm_caches`` in the background
while lint, types and the install checks run: code-server and the extension's
``.vsix`` (the real-VS-Code tests) and Node's Yjs (the shared-room tests). Each
install holds a file lock, so workers that need a cache meanwhile wait for the
one install instead of starting another. A cache that cannot be installed is
left for the tests, which skip with the reason (or fail with the error).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _warm(name: str, install: Callable[[], Path]) -> None:
    started = time.monotonic()
    try:
        where = install()
    except Exception as exc:  # reported by the tests that need it
        print(f"warm_caches: {name}: not installed ({type(exc).__name__}: {exc})")
        return
    print(f"warm_caches: {name}: {where} ({time.monotonic() - started:.0f} s)")


def main() -> int:
    """Install every cache (each once, under its lock); always succeeds."""
    from tests.editors.vscode_install import ensure_code_server
    from tests.editors.vscode_install import ensure_vsix
    from tests.share.yjs_node import ensure_yjs

    steps: list[tuple[str, Callable[[], Any]]] = [
        ("yjs", ensure_yjs),
        ("code-server", ensure_code_server),
        ("vsix", ensure_vsix),
    ]
    for name, install in steps:
        _warm(name, install)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
