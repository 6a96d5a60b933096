"""Entry point of ``agent-doc-lsp`` (and ``python -m agent_doc_lsp``).

Logs go to stderr (or ``--log-file``): stdout is the JSON-RPC stream. A
library's records reach them only with ``--log-level debug`` or
``AGENT_DOC_DEBUG=1``.
"""

from __future__ import annotations

import argparse
import atexit
import logging
import os
import signal
import sys
from types import FrameType

from agent_doc_lsp import __version__

SWITCH_INTERVAL_S = 0.001
"""How long a thread holds the GIL before another may take it (default 5 ms)."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="agent-doc-lsp", description="The agent-doc language server."
    )
    parser.add_argument(
        "--version", action="version", version=f"agent-doc-lsp {__version__}"
    )
    parser.add_argument(
        "--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio"
    )
    parser.add_argument("--log-file", help="write logs to this file instead of stderr")
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=["error", "warning", "info", "debug"],
        help="level of the stderr / file log (default: warning)",
    )
    return parser.parse_args(argv)


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise SystemExit(f"agent-doc-lsp: --tcp expects HOST:PORT, got {value!r}")
    return host or "127.0.0.1", int(port)


def _own_records(record: logging.LogRecord) -> bool:
    """Pass the server's and pygls' records; a library's (the ACP SDK's
    ``Send loop failed`` and its traceback, asyncio's…) only when debugging."""
    return record.name.startswith(("agent_doc", "pygls"))


def main(argv: list[str] | None = None) -> None:
    """Configure logging, build the server and serve stdio (or TCP)."""
    args = parse_args(argv)
    address = _host_port(args.tcp) if args.tcp else None
    handler: logging.Handler = (
        logging.FileHandler(args.log_file, encoding="utf-8")
        if args.log_file
        else logging.StreamHandler(sys.stderr)
    )
    handler.setLevel(args.log_level.upper())
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    if args.log_level != "debug" and not os.environ.get("AGENT_DOC_DEBUG"):
        handler.addFilter(_own_records)
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if args.log_level == "debug" else logging.INFO)
    if args.log_level != "debug":
        # pygls logs every message body at INFO: costly on large documents.
        logging.getLogger("pygls").setLevel(logging.WARNING)

    from agent_doc_lsp.server import create_server

    _stop_agents_on_fatal_signals()
    # Diagnostics run in a worker thread (features/diagnostics.py); a shorter
    # GIL switch interval than the default 5 ms lets a keystroke that arrives
    # meanwhile be read and handled within a millisecond or two.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    server = create_server()
    if address is not None:
        server.start_tcp(*address)
    else:
        server.start_io()


def _stop_agents_on_fatal_signals() -> None:
    """On SIGTERM/SIGHUP, stop every agent's process group, then die of it
    (and at any other exit: the editor vanished).

    Agents run in their own sessions, so nothing else would end them.
    """
    from agent_doc.cycle.cancel import stop_live_groups

    atexit.register(stop_live_groups)

    def on_signal(num: int, _frame: FrameType | None) -> None:
        stop_live_groups()
        signal.signal(num, signal.SIG_DFL)
        os.kill(os.getpid(), num)

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)


if __name__ == "__main__":
    main()
