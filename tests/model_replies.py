"""What a scripted model answers, and how each answer is written on the wire.

A script is a list of replies, one per model request: :class:`Text` (streamed
in several deltas), :class:`ToolUse` (a ``tool_use`` block; the agent runs the
tool and asks again with the ``tool_result``), :class:`Fault` (an HTTP error
with the API's error body: 401, 429 with ``retry-after``, 529 overloaded),
:class:`Cut` (the stream ends mid-answer, the connection dropped) and
:class:`Hang` (headers never come). Each reply renders as the Anthropic
Messages API's SSE stream or the OpenAI Responses API's
(:func:`anthropic_events`, :func:`responses_events`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from typing import Any

_ids = itertools.count(1)

Event = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Text:
    """A text answer streamed as one delta per chunk (``delay`` seconds apart)."""

    chunks: tuple[str, ...]
    delay: float = 0.0

    def __init__(self, *chunks: str, delay: float = 0.0) -> None:
        object.__setattr__(self, "chunks", chunks)
        object.__setattr__(self, "delay", delay)

    @property
    def text(self) -> str:
        """The whole answer."""
        return "".join(self.chunks)


@dataclass(frozen=True)
class ToolUse:
    """A request to run tool ``name`` with ``input`` (optionally after some text)."""

    name: str
    input: dict[str, Any]
    text: str = ""
    id: str = field(default_factory=lambda: f"toolu_{next(_ids):04d}")


@dataclass(frozen=True)
class Fault:
    """An HTTP error status with the API's JSON error body."""

    status: int
    kind: str
    message: str
    retry_after: int | None = None


UNAUTHORIZED = Fault(401, "authentication_error", "invalid x-api-key")
RATE_LIMITED = Fault(429, "rate_limit_error", "Number of requests exceeded", 1)
OVERLOADED = Fault(529, "overloaded_error", "Overloaded")


@dataclass(frozen=True)
class Cut:
    """The stream starts, sends ``chunks``, then the connection drops mid-answer."""

    chunks: tuple[str, ...] = ("The answer is",)


@dataclass(frozen=True)
class Hang:
    """The request is read and never answered (until the server stops)."""


Reply = Text | ToolUse | Fault | Cut | Hang


def sse(name: str, data: dict[str, Any]) -> bytes:
    """One server-sent event."""
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _usage(tokens: int) -> dict[str, int]:
    return {"input_tokens": 12, "output_tokens": tokens}


def anthropic_events(reply: Text | ToolUse | Cut, model: str) -> Iterator[Event]:
    """The Messages API stream of ``reply`` (a :class:`Cut` stops early)."""
    message = {
        "id": f"msg_{next(_ids):04d}", "type": "message", "role": "assistant",
        "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": _usage(1),
    }  # fmt: skip
    yield "message_start", {"type": "message_start", "message": message}
    chunks = reply.chunks if isinstance(reply, Text | Cut) else (reply.text,)
    index = 0
    if any(chunks):
        block = {"type": "text", "text": ""}
        yield "content_block_start", {"type": "content_block_start", "index": 0,
                                      "content_block": block}  # fmt: skip
        for chunk in chunks:
            delta = {"type": "text_delta", "text": chunk}
            yield "content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": delta}  # fmt: skip
        if isinstance(reply, Cut):
            return
        yield "content_block_stop", {"type": "content_block_stop", "index": 0}
        index = 1
    stop = "end_turn"
    if isinstance(reply, ToolUse):
        stop = "tool_use"
        block = {"type": "tool_use", "id": reply.id, "name": reply.name, "input": {}}
        yield "content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": block}  # fmt: skip
        delta = {"type": "input_json_delta", "partial_json": json.dumps(reply.input)}
        yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                      "delta": delta}  # fmt: skip
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {"type": "message_delta", "usage": {"output_tokens": 5},
                            "delta": {"stop_reason": stop, "stop_sequence": None}}  # fmt: skip
    yield "message_stop", {"type": "message_stop"}


def responses_events(reply: Text | ToolUse | Cut, model: str) -> Iterator[Event]:
    """The Responses API stream of ``reply`` (a :class:`Cut` stops early)."""
    rid = f"resp_{next(_ids):04d}"
    response: dict[str, Any] = {"id": rid, "object": "response", "model": model,
                                "status": "in_progress", "output": []}  # fmt: skip
    yield "response.created", {"type": "response.created", "response": response}
    output: list[dict[str, Any]] = []
    chunks = reply.chunks if isinstance(reply, Text | Cut) else (reply.text,)
    if any(chunks):
        item_id = f"msg_{next(_ids):04d}"
        item = {"id": item_id, "type": "message", "role": "assistant",
                "status": "in_progress", "content": []}  # fmt: skip
        yield (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": item},
        )
        part = {"type": "output_text", "text": "", "annotations": []}
        yield "response.content_part.added", {
            "type": "response.content_part.added", "item_id": item_id,
            "output_index": 0, "content_index": 0, "part": part}  # fmt: skip
        for chunk in chunks:
            yield "response.output_text.delta", {
                "type": "response.output_text.delta", "item_id": item_id,
                "output_index": 0, "content_index": 0, "delta": chunk}  # fmt: skip
        if isinstance(reply, Cut):
            return
        text = "".join(chunks)
        yield "response.output_text.done", {
            "type": "response.output_text.done", "item_id": item_id,
            "output_index": 0, "content_index": 0, "text": text}  # fmt: skip
        done = {**item, "status": "completed",
                "content": [{**part, "text": text}]}  # fmt: skip
        yield (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": done},
        )
        output.append(done)
    if isinstance(reply, ToolUse):
        call = {"id": f"fc_{next(_ids):04d}", "type": "function_call",
                "status": "completed", "call_id": reply.id, "name": reply.name,
                "arguments": json.dumps(reply.input)}  # fmt: skip
        yield "response.output_item.added", {
            "type": "response.output_item.added", "output_index": len(output),
            "item": call}  # fmt: skip
        yield "response.output_item.done", {
            "type": "response.output_item.done", "output_index": len(output),
            "item": call}  # fmt: skip
        output.append(call)
    usage = {"input_tokens": 12, "output_tokens": 5, "total_tokens": 17,
             "input_tokens_details": {"cached_tokens": 0},
             "output_tokens_details": {"reasoning_tokens": 0}}  # fmt: skip
    final = {**response, "status": "completed", "output": output, "usage": usage}
    yield "response.completed", {"type": "response.completed", "response": final}
