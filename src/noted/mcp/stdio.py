"""MCP over stdin/stdout: what an AI app runs as a command (``noted mcp serve --stdio``).

stdout carries the protocol and nothing else (the SDK points fd 1 at stderr while serving, and the
log goes to the profile's file). The SDK's serving loop drops lines it cannot parse without a word;
here each gets the JSON-RPC answer the spec asks for, ``-32700`` (not JSON) or ``-32600`` (JSON but
not a request), with a null id, and the server reads on. A request with an invalid id (``true``,
``1.5``…), which the SDK would take for a notification, is caught on its raw line (see ``wire``)
and answered ``-32600`` too. A line that is not UTF-8 is answered ``-32700``, as over HTTP: it
is never read with its bad bytes replaced, which would write text the client did not send.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import sys
from collections.abc import AsyncIterable, AsyncIterator
from contextlib import asynccontextmanager
from typing import Protocol, cast

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError, JSONRPCNotification
from pydantic import ValidationError

from noted.mcp.server import NotedMcp
from noted.mcp.wire import Refusal, refusal

log = logging.getLogger(__name__)

Incoming = SessionMessage | Exception


class _Sender(Protocol):
    async def send(self, item: SessionMessage, /) -> None: ...


INVALID_ID_METHOD = "notifications/noted/invalid_id"
"""What a line ``wire.refusal`` refuses becomes on its way to the SDK, so ``answer_malformed``
answers it (with the refusal's code, message and id)."""


class CheckedLines:
    """Lines of stdin, each one ``wire.refusal`` refuses (or not UTF-8: read with ``surrogateescape``,
    so its bad bytes show as lone surrogates) replaced by an ``INVALID_ID_METHOD`` notice."""

    def __init__(self, lines: AsyncIterable[str]) -> None:
        self.lines = lines

    def __aiter__(self) -> AsyncIterator[str]:
        return self._checked()

    async def _checked(self) -> AsyncIterator[str]:
        async for line in self.lines:
            refused = _not_utf8(line) or (refusal(line) if line.strip() else None)
            if refused is None:
                yield line
            else:
                params = {"code": refused.code, "message": refused.message, "id": refused.id}
                notice = {"jsonrpc": "2.0", "method": INVALID_ID_METHOD, "params": params}
                yield json.dumps(notice) + "\n"


def _not_utf8(line: str) -> Refusal | None:
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return Refusal(PARSE_ERROR, "Parse error: the line is not valid UTF-8")
    return None


async def serve_stdio(mcp: NotedMcp) -> None:
    """Serve one client on this process's stdin/stdout until stdin closes.

    Raises:
        ConfigError: a notebook name of the scopes is ambiguous or unknown (``NotedMcp.settle``).
    """
    mcp.settle()
    log.info("MCP server on stdio started")
    text = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape")
    stdin = cast("anyio.AsyncFile[str]", CheckedLines(anyio.wrap_file(text)))
    try:
        await _serve(mcp, stdin)
    finally:
        with contextlib.suppress(ValueError):  # already detached, or a read still in flight
            text.detach()  # the buffer is sys.stdin's: it must outlive this wrapper
    log.info("MCP server on stdio stopped (stdin closed)")


async def _serve(mcp: NotedMcp, stdin: anyio.AsyncFile[str]) -> None:
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):
        async with answer_malformed(read_stream, write_stream) as checked, mcp.running():
            await mcp.server.run(checked, write_stream, mcp.server.create_initialization_options())


@asynccontextmanager
async def answer_malformed(
    read_stream: AsyncIterable[Incoming], write_stream: _Sender
) -> AsyncIterator[MemoryObjectReceiveStream[Incoming]]:
    """``read_stream`` without its unparsable lines, each of which gets an error reply instead."""
    send, receive = anyio.create_memory_object_stream[Incoming](0)

    async def pump() -> None:
        async with send:
            async for item in read_stream:
                if isinstance(item, Exception):
                    await _reply(write_stream, item)
                elif (refused := _refused(item)) is not None:
                    error = ErrorData(code=refused.code, message=refused.message)
                    await _send_error(write_stream, error, refused.id)
                else:
                    await send.send(item)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(pump)
        try:
            yield receive
        finally:
            tasks.cancel_scope.cancel()


def _refused(item: SessionMessage) -> Refusal | None:
    message = item.message
    if not isinstance(message, JSONRPCNotification) or message.method != INVALID_ID_METHOD:
        return None
    params = message.params or {}
    request_id = params.get("id")
    return Refusal(
        code=int(params.get("code", INVALID_REQUEST)),
        message=str(params.get("message", "Invalid Request")),
        id=request_id if isinstance(request_id, str | int) else None,
    )


async def _reply(write_stream: _Sender, problem: Exception) -> None:
    error = _error_for(problem)
    if error is not None:
        await _send_error(write_stream, error)


async def _send_error(write_stream: _Sender, error: ErrorData, request_id: str | int | None = None) -> None:
    log.warning("answered a malformed message with %d: %s", error.code, error.message)
    try:
        await write_stream.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error)))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        log.debug("no reply to a malformed message: the connection is closing")


def _error_for(problem: Exception) -> ErrorData | None:
    if not isinstance(problem, ValidationError):
        return ErrorData(code=PARSE_ERROR, message="Parse error")
    errors = problem.errors()
    first = errors[0] if errors else None
    if first is not None and first.get("type") == "json_invalid":
        raw = first.get("input")
        if isinstance(raw, str | bytes) and not raw.strip():
            return None  # a blank line is not a message at all
        return ErrorData(code=PARSE_ERROR, message="Parse error: the line is not valid JSON")
    return ErrorData(
        code=INVALID_REQUEST, message="Invalid Request: not a JSON-RPC 2.0 request or notification"
    )
