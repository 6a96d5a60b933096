"""``agent-doc serve`` with its store's batch window changed (a measurement only).

``RoomPersister`` writes a room's gathered updates at most once per
``BATCH_WINDOW`` (0.25 s). This wrapper starts ``agent-doc serve --port 0``
with the window's default set to ``STORE_WINDOW`` seconds (1.0 when unset), to
measure what the stores' commits cost under load; whatever else is on its
command line is ignored. Used as a ``--variant`` interpreter of
``bench/serve_variants.py``: ``--variant "w1,.venv/bin/python
bench/serve_store_window.py,uvicorn"``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_doc.share import persist


def main() -> None:
    """Serve the current project with the changed window."""
    window = float(os.environ.get("STORE_WINDOW", "1.0"))
    persist.RoomPersister.__init__.__defaults__ = (window,)
    sys.argv = ["agent-doc", "serve", "--port", "0"]
    from agent_doc.cli.entry import console

    console()


if __name__ == "__main__":
    main()
