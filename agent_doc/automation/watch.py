"""``watch``: run an agent cycle whenever a session document is saved (§7.23).

The daemon watches the documents registered in ``.agent-doc/sessions.json``
(rescanned every few seconds) plus any given on the command line, using
watchfiles on their folders (non-recursive, so atomic rename-writes are seen).
A change becomes a cycle
(:func:`agent_doc.automation.turns.run_cycle_tracked`) when:

1. **debounce**: no further change for ``--debounce`` ms (reactive documents,
   ``agent_doc_write: crdt``, skip this timer, spec §7.23);
2. **settled** (every document, reactive or not): the file's mtime is at least
   the document's ``agent_doc_debounce_ms`` old and the user is not typing
   (language server ``typing`` answer, else the indicator file,
   :mod:`agent_doc.automation.user_typing`): a user typing never triggers a cycle per
   keystroke, even with autosave;
3. **not busy**: no other agent-doc operation holds the document
   (:mod:`agent_doc.automation.busy`), otherwise the change is skipped; while
   another process runs a turn on it (:mod:`agent_doc.cycle.turn_lock`: a
   ``run``, the language server) the change waits (``turn-running``) and is
   considered again after that turn, never answered by a second agent;
4. **loop guard** (:class:`LoopGuard`): the content hash (boundary markers
   stripped) differs from the one after our last cycle (else *converged*), and
   a change within ``3 × debounce`` after our own cycle counts as
   agent-triggered; at most ``--max-cycles`` cycles follow one human change.

Every decision is appended as JSON to ``.agent-doc/logs/watch.jsonl``.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from typing import Literal

from agent_doc._runtime.digest import sha256_hex
from agent_doc.automation.busy import get_status
from agent_doc.automation.turns import run_cycle_tracked
from agent_doc.automation.user_typing import is_typing
from agent_doc.automation.user_typing import timings_for
from agent_doc.cycle.cancel import TurnCancelled
from agent_doc.cycle.cost_guard import cost_guard_for
from agent_doc.cycle.preflight import current_text
from agent_doc.cycle.turn_lock import running_turn
from agent_doc.document.boundary import remove_all_boundaries
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import AgentDocError
from agent_doc.errors import TurnRunning
from agent_doc.store.state import read_document
from agent_doc.tmux.registry import load

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.write.server_link import ServerLink

logger = logging.getLogger(__name__)

Decision = Literal["submit", "converged", "max-cycles"]


def content_hash(text: str) -> str:
    """SHA-256 of the text with boundary markers removed."""
    return sha256_hex(remove_all_boundaries(text).encode("utf-8", "surrogatepass"))


@dataclass(slots=True)
class _Track:
    submitted_at: float
    last_hash: str
    cycles: int


class LoopGuard:
    """Decides whether a change is new work, an echo, or a runaway loop."""

    def __init__(self, max_cycles: int = 3) -> None:
        self.max_cycles = max_cycles
        """Most cycles that may follow one human change."""
        self._tracks: dict[str, _Track] = {}
        self._next: dict[str, int] = {}

    def decide(
        self, key: str, changed_at: float, digest: str, window_s: float
    ) -> Decision:
        """Classify a settled change of ``key`` seen at ``changed_at`` (monotonic)."""
        track = self._tracks.get(key)
        if track is None:
            self._next[key] = 1
            return "submit"
        if digest == track.last_hash:
            return "converged"
        if changed_at - track.submitted_at <= window_s:
            if track.cycles >= self.max_cycles:
                return "max-cycles"
            self._next[key] = track.cycles + 1
        else:
            self._next[key] = 1
        return "submit"

    def submitted(self, key: str, at: float, digest: str) -> None:
        """Record a finished cycle and the document's hash after it."""
        self._tracks[key] = _Track(at, digest, self._next.pop(key, 1))

    def cycles(self, key: str) -> int:
        """Cycles since the last human change of ``key``."""
        track = self._tracks.get(key)
        return track.cycles if track else 0


@dataclass(frozen=True, slots=True)
class WatchOptions:
    """Settings of one ``watch`` daemon."""

    debounce_ms: int = 500
    max_cycles: int = 3
    agent: str | None = None
    no_git: bool = False
    files: tuple[Path, ...] = ()
    rescan_s: float = 2.0
    tick_ms: int = 100
    timeout_s: float | None = None


Reporter = Callable[[dict[str, Any]], None]


@dataclass(slots=True)
class Watcher:
    """The watch loop of one project (see the module docstring)."""

    root: Path
    options: WatchOptions = field(default_factory=WatchOptions)
    link: ServerLink | None = None
    report: Reporter | None = None
    served: Callable[[Path], Any] | None = None
    """The room of a document this host's ``serve`` shares (its turn is held
    too), or ``None``; ``None`` here: no document is served."""
    guard: LoopGuard = field(init=False)
    pending: dict[Path, tuple[float, float]] = field(default_factory=dict)
    behind: set[Path] = field(default_factory=set)
    """Documents waiting for another process's turn (reported once each)."""
    ready: bool = False

    def __post_init__(self) -> None:
        self.root = self.root.resolve()
        self.guard = LoopGuard(self.options.max_cycles)

    def emit(self, event: str, path: Path | None = None, **extra: Any) -> None:
        """Record one decision in ``logs/watch.jsonl`` and pass it to ``report``."""
        item: dict[str, Any] = {"event": event, "time": round(time.time(), 3)}
        if path is not None:
            item["file"] = str(path)
        item.update(extra)
        log = self.root / ".agent-doc" / "logs" / "watch.jsonl"
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(item, ensure_ascii=False) + "\n")
        except OSError as exc:
            logger.warning("watch log not written: %s", exc)
        if self.report is not None:
            self.report(item)

    def discover(self) -> dict[Path, bool]:
        """Documents to watch → reactive (``agent_doc_write: crdt``)."""
        paths = [Path(p) for p in self.options.files]
        try:
            for entry in load(self.root).entries.values():
                if entry.file:
                    paths.append(self.root / entry.file)
        except AgentDocError as exc:
            logger.warning("sessions.json not read: %s", exc)
        return {p.resolve(): _reactive(p) for p in paths if p.is_file()}

    def run(
        self, stop: threading.Event, alive: Callable[[], bool] = lambda: True
    ) -> None:
        """Watch until ``stop`` is set (or ``alive()`` turns False)."""
        import watchfiles

        while not stop.is_set() and alive():
            docs = self.discover()
            dirs = sorted({p.parent for p in docs})
            if not dirs:
                self._mark_ready(docs)
                stop.wait(self.options.rescan_s)
                continue
            rescan_at = time.monotonic() + self.options.rescan_s
            for changes in watchfiles.watch(
                *dirs, watch_filter=None, debounce=50, step=50,
                rust_timeout=self.options.tick_ms, yield_on_timeout=True,
                stop_event=stop, recursive=False, raise_interrupt=False,
            ):  # fmt: skip
                self._mark_ready(docs)
                now = time.monotonic()
                for _change, raw in changes:
                    self._note(Path(raw), docs, now)
                self._process(docs)
                if time.monotonic() >= rescan_at:
                    fresh = self.discover()
                    if {p.parent for p in fresh} != set(dirs) or not alive():
                        break
                    docs, rescan_at = fresh, time.monotonic() + self.options.rescan_s
        self.emit("stopped")

    def _mark_ready(self, docs: dict[Path, bool]) -> None:
        if not self.ready:
            self.ready = True
            self.emit("ready", files=[str(p) for p in docs], pid=_pid())

    def _note(self, path: Path, docs: dict[Path, bool], now: float) -> None:
        if path in docs:
            first = self.pending.get(path, (now, now))[0]
            self.pending[path] = (first, now)

    def _process(self, docs: dict[Path, bool]) -> None:
        for path, (first, last) in list(self.pending.items()):
            wait_s = 0.0 if docs.get(path) else self.options.debounce_ms / 1000
            if time.monotonic() - last < wait_s or not self._settled(path):
                continue
            del self.pending[path]
            self._consider(path, first)

    def _settled(self, path: Path) -> bool:
        try:
            quiet_ms = time.time() * 1000 - path.stat().st_mtime * 1000
        except OSError:
            return True  # gone: _consider drops it
        timings = timings_for(path)
        if quiet_ms < timings.debounce_ms:
            return False
        return not is_typing(path, timings.typing_indicator_ms, link=self.link)

    def _consider(self, path: Path, changed_at: float) -> None:
        timings = timings_for(path)
        status = get_status(path, timeout_ms=timings.status_timeout_ms, root=self.root)
        if status != "idle":
            self.emit("busy", path, status=status)
            return
        holder = running_turn(path)
        if holder is not None:  # a `run` or the server answers it: try later
            self._queue_behind(path, changed_at, holder.describe())
            return
        self.behind.discard(path)
        try:
            digest = content_hash(current_text(path, self.link))
        except AgentDocError as exc:
            self.emit("error", path, error=str(exc))
            return
        window = 3 * max(self.options.debounce_ms, timings.debounce_ms) / 1000
        decision = self.guard.decide(str(path), changed_at, digest, window)
        if decision != "submit":
            self.emit(decision, path, cycles=self.guard.cycles(str(path)))
            return
        self._submit(path)

    def _queue_behind(self, path: Path, changed_at: float, running: str) -> None:
        """Try ``path`` again later: another process runs its turn now."""
        if path not in self.behind:
            self.behind.add(path)
            self.emit("turn-running", path, running=running)
        self.pending[path] = (changed_at, time.monotonic())

    def _submit(self, path: Path) -> None:
        self.emit("cycle", path)
        try:
            outcome = run_cycle_tracked(
                path, command="watch", agent=self.options.agent, link=self.link,
                no_git=self.options.no_git, timeout=self.options.timeout_s,
                guard=cost_guard_for(path),  # nobody to ask: a big prompt waits
                served=self.served(path) if self.served else None,
            )  # fmt: skip
            written = outcome.write.target if outcome.write else None
            self.emit("cycle-done", path, written=written, committed=outcome.committed)
        except TurnRunning as exc:  # another turn started since _consider
            self._queue_behind(path, time.monotonic(), str(exc))
            return
        except TurnCancelled as exc:  # watch is stopping: the agent was ended
            self.emit("cancelled", path, error=str(exc))
            return
        except AgentDocError as exc:
            self.emit("error", path, error=str(exc))
        try:
            digest = content_hash(current_text(path, self.link))
        except AgentDocError:
            digest = ""
        self.guard.submitted(str(path), time.monotonic(), digest)


def _reactive(path: Path) -> bool:
    try:
        return parse_frontmatter(read_document(path).text).write == "crdt"
    except AgentDocError:
        return False


def _pid() -> int:
    return os.getpid()


def in_git_repo(root: Path) -> bool:
    """True when ``root`` or an ancestor holds ``.git``."""
    return any((p / ".git").exists() for p in (root, *root.parents))
