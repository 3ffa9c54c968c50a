"""A loopback HTTP server that replays scripted answers in the OpenAI and Anthropic wire formats.

The real SDKs talk to it over a real socket on 127.0.0.1, so their retry, streaming and closing code
runs as it would against a real server. Each request takes the next scripted reply (an SSE stream
or an error answer) and is recorded, so tests can assert on what the client sent.

    with WireServer() as server:
        server.push(openai_stream([openai_chunk(content="Hi")]))
        ...  # point a provider at server.base_url
        assert server.requests[0].body["messages"][0]["role"] == "system"

A reply with ``hang=True`` sends its events, then keeps the connection open until the client goes
away (a ``SilentReply`` sends nothing at all); ``server.disconnected`` is set then, which is how a
test knows the client closed the connection.
"""

from __future__ import annotations

import asyncio
import collections
import json
import socket
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import uvicorn
from tests.support.polling import scaled, wait_for

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    """The JSON body, decoded (``None`` when there was none)."""


@dataclass(frozen=True)
class StreamReply:
    """A 200 answer streaming ``frames`` (raw SSE text); with ``hang`` it never ends by itself."""

    frames: Sequence[str]
    hang: bool = False


@dataclass(frozen=True)
class ErrorReply:
    """An error answer with a JSON body."""

    status: int
    body: Any
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class JsonReply:
    """A 200 answer with a JSON body (``GET /v1/models``)."""

    body: Any


def openai_models(*names: str) -> JsonReply:
    """``GET /v1/models`` as an OpenAI-compatible server answers it."""
    return JsonReply(
        {"object": "list", "data": [{"id": n, "object": "model", "owned_by": "x"} for n in names]}
    )


def anthropic_models(*names: str) -> JsonReply:
    """``GET /v1/models`` as Anthropic answers it (one page)."""
    data = [
        {"id": n, "type": "model", "display_name": n, "created_at": "2025-01-01T00:00:00Z"} for n in names
    ]
    first, last = (names[0], names[-1]) if names else (None, None)
    return JsonReply({"data": data, "has_more": False, "first_id": first, "last_id": last})


@dataclass(frozen=True)
class SilentReply:
    """No answer at all, not even headers (a server still loading its model), until the client leaves."""


Reply = StreamReply | ErrorReply | JsonReply | SilentReply


class WireServer:
    """A scripted SSE server on 127.0.0.1, running uvicorn in a thread of its own."""

    def __init__(self) -> None:
        self._replies: collections.deque[Reply] = collections.deque()
        self._lock = threading.Lock()
        self.requests: list[Recorded] = []
        self.disconnected = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.port: int = self._sock.getsockname()[1]
        config = uvicorn.Config(
            self._app,
            interface="asgi3",
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=2,
            access_log=False,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, name="wire-server", daemon=True
        )

    @property
    def base_url(self) -> str:
        """The server's root URL (always a loopback address)."""
        return f"http://127.0.0.1:{self.port}"

    def push(self, *replies: Reply) -> None:
        """Queue replies for the next requests, in order."""
        with self._lock:
            self._replies.extend(replies)

    def start(self) -> WireServer:
        """Start serving and wait until the socket accepts connections."""
        self._thread.start()
        wait_for(
            lambda: self._server.started or not self._thread.is_alive(),
            what="the wire server to accept connections",
            interval=0.01,
        )
        if not self._server.started:
            raise RuntimeError("the wire server did not start")
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread to end."""
        self._server.should_exit = True
        self._thread.join(timeout=scaled(60))
        self._sock.close()

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    async def _app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        raw = b"".join(chunks)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        with self._lock:
            self.requests.append(
                Recorded(scope["method"], scope["path"], headers, json.loads(raw) if raw else None)
            )
            reply = self._replies.popleft() if self._replies else None
        if reply is None:
            reply = ErrorReply(500, {"error": {"message": "the test pushed no reply for this request"}})
        if isinstance(reply, JsonReply):
            await self._send_error(send, ErrorReply(200, reply.body))
        elif isinstance(reply, ErrorReply):
            await self._send_error(send, reply)
        elif isinstance(reply, SilentReply):
            await self._wait_for_disconnect(receive)
        else:
            await self._send_stream(receive, send, reply)

    async def _send_error(self, send: Send, reply: ErrorReply) -> None:
        payload = json.dumps(reply.body).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        headers += [(k.encode(), v.encode()) for k, v in reply.headers.items()]
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})

    async def _send_stream(self, receive: Receive, send: Send, reply: StreamReply) -> None:
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for frame in reply.frames:
            await send({"type": "http.response.body", "body": frame.encode(), "more_body": True})
            await asyncio.sleep(0)
        if not reply.hang:
            await send({"type": "http.response.body", "body": b""})
            return
        await self._wait_for_disconnect(receive)

    async def _wait_for_disconnect(self, receive: Receive) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        self.disconnected.set()


# OpenAI chat-completions stream -----------------------------------------------------------------


def openai_chunk(
    *,
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    no_choices: bool = False,
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` object."""
    delta: dict[str, Any] = {}
    if content is not None:
        delta["content"] = content
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    choices = [] if no_choices else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    chunk: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "test-model",
        "choices": choices,
    }
    if usage is not None:
        chunk["usage"] = usage
    return chunk


def openai_tool_piece(
    index: int,
    *,
    id: str | None = None,  # noqa: A002 -- named after the wire field
    name: str | None = None,
    arguments: str | None = None,
) -> dict[str, Any]:
    """One entry of ``delta.tool_calls``: the first piece carries id and name, later ones arguments."""
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    piece: dict[str, Any] = {"index": index, "function": function}
    if id is not None:
        piece["id"] = id
        piece["type"] = "function"
    return piece


def openai_stream(chunks: Iterable[dict[str, Any]], *, hang: bool = False, done: bool = True) -> StreamReply:
    """An SSE stream of chunks, closed by ``data: [DONE]`` unless it hangs."""
    frames = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
    if done and not hang:
        frames.append("data: [DONE]\n\n")
    return StreamReply(frames, hang=hang)


# Anthropic messages stream ----------------------------------------------------------------------


def anthropic_events(
    blocks: Sequence[dict[str, Any]],
    *,
    stop_reason: str = "end_turn",
    input_tokens: int = 10,
    output_tokens: int = 5,
    cache_read: int | None = None,
) -> list[dict[str, Any]]:
    """A whole message's events. Each block is ``{"text": [pieces]}`` or
    ``{"tool_use": (id, name), "json": [pieces]}``."""
    usage: dict[str, Any] = {"input_tokens": input_tokens, "output_tokens": 1}
    if cache_read is not None:
        usage["cache_read_input_tokens"] = cache_read
        usage["cache_creation_input_tokens"] = 0
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_test",
                "type": "message",
                "role": "assistant",
                "model": "test-model",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            },
        }
    ]
    for index, block in enumerate(blocks):
        if "text" in block:
            start: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": piece} for piece in block["text"]]
        else:
            call_id, name = block["tool_use"]
            start = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in block["json"]]
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        }
    )
    events.append({"type": "message_stop"})
    return events


def anthropic_stream(events: Iterable[dict[str, Any]], *, hang: bool = False) -> StreamReply:
    """An SSE stream with ``event:`` lines named after each event's type."""
    frames = [f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events]
    return StreamReply(frames, hang=hang)
