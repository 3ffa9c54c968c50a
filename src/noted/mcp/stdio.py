"""MCP over stdin/stdout: what an AI app runs as a command (``noted mcp serve --stdio``).

stdout carries the protocol and nothing else (the SDK points fd 1 at stderr while serving, and the
log goes to the profile's file). The SDK's serving loop drops lines it cannot parse without a word;
here each gets the JSON-RPC answer the spec asks for, ``-32700`` (not JSON) or ``-32600`` (JSON but
not a request), with a null id, and the server reads on.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, AsyncIterator
from contextlib import asynccontextmanager
from typing import Protocol

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

from noted.mcp.server import NotedMcp

log = logging.getLogger(__name__)

Incoming = SessionMessage | Exception


class _Sender(Protocol):
    async def send(self, item: SessionMessage, /) -> None: ...


async def serve_stdio(mcp: NotedMcp) -> None:
    """Serve one client on this process's stdin/stdout until stdin closes."""
    log.info("MCP server on stdio started")
    async with stdio_server() as (read_stream, write_stream):
        async with answer_malformed(read_stream, write_stream) as checked, mcp.running():
            await mcp.server.run(checked, write_stream, mcp.server.create_initialization_options())
    log.info("MCP server on stdio stopped (stdin closed)")


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
                else:
                    await send.send(item)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(pump)
        try:
            yield receive
        finally:
            tasks.cancel_scope.cancel()


async def _reply(write_stream: _Sender, problem: Exception) -> None:
    error = _error_for(problem)
    if error is None:
        return
    log.warning("answered a malformed message with %d: %s", error.code, error.message)
    try:
        await write_stream.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=None, error=error)))
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
