"""``claim`` and friends write the document under its lock, never over a writer.

Giving a document its session id (:func:`load_doc`) and scaffolding its
components (``claim``) are read-modify-writes: another process holding the
document's lock (a ``write``, the server) must finish first, and its text must
survive. A real second process holds the lock.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from agent_doc.tmux.bindings import load_doc

HOLDER = """
import sys, time
from pathlib import Path
from agent_doc.store.state import doc_lock
doc, gate = Path(sys.argv[1]), Path(sys.argv[2])
with doc_lock(doc):
    print("held", flush=True)
    while not gate.exists():
        time.sleep(0.01)
    doc.write_text(doc.read_text() + "Typed by the other writer.\\n")
"""


def test_giving_a_session_id_waits_for_the_writer_and_keeps_its_text(
    project: Path,
) -> None:
    doc = project / "plan.md"
    doc.write_text("# Plan\n\nA question.\n")
    gate = project / "gate"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(doc), str(gate)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        result: list[str] = []
        loading = threading.Thread(
            target=lambda: result.append(load_doc(doc).key or "")
        )
        loading.start()
        loading.join(0.5)
        assert loading.is_alive()  # blocked on the lock, not writing over it
        gate.touch()
        loading.join(10)
        assert not loading.is_alive()
        assert holder.wait(10) == 0
    finally:
        holder.kill()
    text = doc.read_text()
    assert "Typed by the other writer." in text
    assert f"agent_doc_session: {result[0]}" in text
