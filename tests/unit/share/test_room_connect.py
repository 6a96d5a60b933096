"""The one explanation of a failed room connection (RoomLink and RoomPeer)."""

from __future__ import annotations

import sys

import httpx
import httpx_ws

from agent_doc.errors import ShareError
from agent_doc.share.peer import failure_status
from agent_doc.share.room_connect import bearer_headers
from agent_doc.share.room_connect import refusal
from agent_doc.share.room_connect import room_failure

if sys.version_info >= (3, 11):
    from builtins import ExceptionGroup
else:  # anyio's task groups raise the backport's
    from exceptiongroup import ExceptionGroup

URL = "ws://127.0.0.1:1/6f1c2a10-0000-4000-8000-00000000a001"


def _upgrade_refused(status: int) -> httpx_ws.WebSocketUpgradeError:
    request = httpx.Request("GET", "http://127.0.0.1:1/")
    return httpx_ws.WebSocketUpgradeError(httpx.Response(status, request=request))


def test_a_refusal_reads_the_same_for_a_writer_and_an_editors_peer() -> None:
    wrapped = ExceptionGroup("tg", [ExceptionGroup("inner", [_upgrade_refused(403)])])
    why = refusal(wrapped)
    assert why is not None
    assert why.startswith("HTTP 403: wrong or missing token")
    failure = room_failure(wrapped, URL)
    assert isinstance(failure, ShareError)
    assert str(failure) == f"{URL} refused the connection (HTTP 403): {why[10:]}"
    status = failure_status(wrapped)
    assert (status.state, status.detail) == ("refused", why)


def test_other_failures_are_no_refusal() -> None:
    assert refusal(OSError("Connection refused")) is None
    unreachable = room_failure(OSError("Connection refused"), URL)
    assert str(unreachable) == f"cannot reach {URL}: Connection refused"
    assert "did not answer, sync" in str(room_failure(TimeoutError(), URL))
    status = failure_status(ExceptionGroup("tg", [OSError("Connection refused")]))
    assert (status.state, status.detail) == ("offline", "Connection refused")
    odd = ValueError("ours")
    assert room_failure(odd, URL) is odd


def test_the_token_goes_in_a_bearer_header_and_none_without_one() -> None:
    assert bearer_headers("abc") == {"Authorization": "Bearer abc"}
    assert bearer_headers(None) == {}
