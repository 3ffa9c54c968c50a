"""The OpenAPI door: ``GET /openapi.json`` and ``POST /actions/{tool}`` beside ``/mcp``.

For clients that speak plain HTTP with an OpenAPI schema (ChatGPT's custom GPT actions, scripts).
The document is generated from the registry at each request: one operation per tool switched on
(editor tools never; those of ``LEFT_OUT`` only where all would not fit ``MAX_OPERATIONS``), whose request body is the tool's input schema and whose answer is its output
schema. Every tool switched on answers at ``/actions/{tool}``, listed or not. A call runs the registry's one call path, exactly as an MCP ``tools/call`` does (same
switches, validation, scope of ``mcp.allowedNotebooks`` and error channels), with actor
``actions:<token name>`` for a named client, ``actions:self:<client>`` for one named only by its
headers. The token is mandatory here (``HttpOptions.open_token`` refuses to start
without one), and ``Guard`` checks it before a request reaches this module.

Answers: 200 with the payload; 400 for a call the model can correct (``error``, with ``field``);
403 for a tool switched off (the message names the setting); 404 for an unknown tool; 409 for a
conflict; 500 for a bug (logged; the answer carries no internals). An image a tool returns (from
``read_attachment``) is added as ``openaiFileResponse``, the field ChatGPT shows as a file.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse

from noted import __version__
from noted.mcp.client_tokens import CLIENT_KEY, ClientToken
from noted.mcp.clients import actor_for, client_name
from noted.mcp.deps import McpDeps
from noted.mcp.options import OPENAPI_PATH
from noted.mcp.wire import depth_problem, surrogate_problem, too_deep, unpaired_surrogate
from noted.models import ToolStatus
from noted.tools import files
from noted.tools.base import Payload, Tool, ToolContext
from noted.tools.registry import ToolResult

log = logging.getLogger(__name__)

ACTIONS_PREFIX = "/actions/"
ACTIONS_ROUTE = ACTIONS_PREFIX + "{tool}"
ACTOR_PREFIX = "actions:"
TOKEN_PATHS = (OPENAPI_PATH, ACTIONS_PREFIX)
"""What the guard serves only with a token (and so to any ``Host``: a tunnel's name)."""
CLIENT_HEADER = "x-client-name"
MAX_SUMMARY = 300
"""ChatGPT refuses an operation whose description is longer than this."""
FILE_FIELD = "openaiFileResponse"

_STATUS = {
    ToolStatus.OK: 200, ToolStatus.ERROR: 400, ToolStatus.REFUSED: 403, ToolStatus.CONFLICT: 409,
    ToolStatus.INTERNAL: 500,
}  # fmt: skip
_PRODUCT = re.compile(r"([A-Za-z][\w.+-]*)/[\w.]+")
_BROWSER_TOKENS = frozenset(
    {"mozilla", "applewebkit", "chrome", "safari", "gecko", "khtml", "version", "edg"}
)


def actions_actor(client: ClientToken | None, headers: Mapping[str, str]) -> str:
    """The change-feed actor of a call through the OpenAPI door: ``actions:<token name>`` for a
    named client, ``actions:self:<name>`` for one known only by its headers (see ``actor_for``)."""
    return ACTOR_PREFIX + client.name if client is not None else actor_for(client_of(headers), ACTOR_PREFIX)


def client_of(headers: Mapping[str, str]) -> str:
    """Who is calling: the ``X-Client-Name`` header, else the product named in the ``User-Agent``
    (``ChatGPT-User`` in ``Mozilla/5.0 …; compatible; ChatGPT-User/1.0; …``), made safe."""
    named = headers.get(CLIENT_HEADER, "").strip()
    if named:
        return client_name(named)
    agent = headers.get("user-agent", "")
    products = [p for p in _PRODUCT.findall(agent) if p.lower() not in _BROWSER_TOKENS]
    return client_name(products[0] if products else agent.split("/", 1)[0])


# The document -----------------------------------------------------------------------------------

ERROR_SCHEMA: Payload = {
    "type": "object",
    "properties": {
        "error": {"type": "string", "description": "What went wrong and what to do instead."},
        "status": {"type": "string", "description": "error, refused, conflict or internal."},
        "field": {"type": "string", "description": "The input field at fault, when there is one."},
    },
    "required": ["error"],
}
FILE_SCHEMA: Payload = {
    "type": "array",
    "description": "The image returned, as a file (name, mime_type, base64 content).",
    "items": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "mime_type": {"type": "string"},
            "content": {"type": "string", "description": "Base64."},
        },
        "required": ["name", "mime_type", "content"],
    },
}


def _summary(description: str) -> str:
    """The description cut at a sentence end to fit ``MAX_SUMMARY`` characters."""
    if len(description) <= MAX_SUMMARY:
        return description
    head = description[:MAX_SUMMARY]
    cut = head.rfind(". ")
    return head[: cut + 1] if cut > 40 else head[: MAX_SUMMARY - 1].rstrip() + "…"


def _answer(tool: Tool) -> Payload:
    schema = tool.wire_output_schema  # a write's answer may be a pending_review one instead
    if tool.name == "read_attachment":  # the only tool that returns images
        schema = {**schema, "properties": {**schema.get("properties", {}), FILE_FIELD: FILE_SCHEMA}}
    return {"description": "The tool's result.", "content": {"application/json": {"schema": schema}}}


def _operation(tool: Tool) -> Payload:
    failure = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    return {
        "operationId": tool.name,
        "summary": tool.title,
        "description": _summary(tool.description),
        "x-openai-isConsequential": tool.is_write,
        "requestBody": {
            "required": True,
            "description": tool.description,
            "content": {"application/json": {"schema": tool.input_schema}},
        },
        "responses": {
            "200": _answer(tool),
            "400": {"description": "The call cannot run as given; the message says why.", **failure},
            "401": {"description": "The bearer token is missing or wrong.", **failure},
            "403": {"description": "The tool is switched off; the message names the setting.", **failure},
            "409": {"description": "The note changed meanwhile; read it again.", **failure},
            "413": {"description": "The request body is over 16 MiB.", **failure},
            "500": {"description": "A bug in noted; it was logged.", **failure},
        },
    }


def openapi_document(tools: Iterable[Tool], server_url: str) -> Payload:
    """The OpenAPI 3.1 description of ``tools`` as actions served at ``server_url``."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "noted",
            "version": __version__,
            "description": "Search, read and (when switched on) change the notes kept in noted, "
            "a terminal notebook. Write actions are off until the person switches them on.",
        },
        "servers": [{"url": server_url}],
        "paths": {f"{ACTIONS_PREFIX}{t.name}": {"post": _operation(t)} for t in tools},
        "components": {
            "schemas": {"Error": ERROR_SCHEMA},
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearerAuth": []}],
    }


def server_url(request: Request) -> str:
    """Where clients reach this server: ``?server=`` (an http(s) URL the person gives, e.g. their
    tunnel's), else the proxy's ``X-Forwarded-Proto``/``-Host``, else the request's own address."""
    given = request.query_params.get("server", "").strip().rstrip("/")
    if given:
        parts = urlsplit(given)
        if parts.scheme in ("http", "https") and parts.netloc and not any(c.isspace() for c in given):
            return given
    host = request.headers.get("x-forwarded-host", "").split(",")[0].strip()
    if host:
        proto = request.headers.get("x-forwarded-proto", "https").split(",")[0].strip() or "https"
        return f"{proto}://{host}"
    return str(request.base_url).rstrip("/")


# The endpoints ------------------------------------------------------------------------------------


MAX_OPERATIONS = 30
"""ChatGPT takes at most this many operations per GPT (when this was written)."""
LEFT_OUT = ("find_notes", "note_links", "proposal_status")
"""The tools the document leaves out, first to last, where every tool switched on would not fit
``MAX_OPERATIONS``: ``find_notes`` (hybrid search, added after) has ``search_notes`` and
``semantic_search_notes`` beside it, ``note_links`` (added after too) has ``read_note``, which
shows the links as written, and ``proposal_status`` matters to a client whose writes wait. Left
out of the document, they still answer at ``/actions/{tool}``, as MCP serves them."""


class Actions:
    """The two endpoints, over the registry and store in ``deps``; ``context`` gives each call its
    actor and scope (``NotedMcp.call_context``, so both doors share one scope)."""

    def __init__(
        self, deps: McpDeps, context: Callable[[str, ClientToken | None], Awaitable[ToolContext]]
    ) -> None:
        self.deps = deps
        self.context = context

    def offered(self, client: ClientToken | None = None) -> list[Tool]:
        """The tools switched on (and, for a named client's token, in its tool set)."""
        return [t for t in self.deps.tools.offered() if not t.editor and (client is None or client.allows(t))]

    def listed(self, client: ClientToken | None = None) -> list[Tool]:
        """The tools ``offered``, less those of ``LEFT_OUT``, first to last, while more than
        ``MAX_OPERATIONS`` are."""
        tools = self.offered(client)
        for name in LEFT_OUT:
            if len(tools) <= MAX_OPERATIONS:
                break
            tools = [t for t in tools if t.name != name]
        return tools

    async def openapi(self, request: Request) -> JSONResponse:
        return JSONResponse(openapi_document(self.listed(_client(request)), server_url(request)))

    async def call(self, request: Request) -> JSONResponse:
        name = str(request.path_params.get("tool", ""))
        tool = self.deps.tools.get(name)
        client = _client(request)
        if tool is None or tool.editor or (client is not None and not client.allows(tool)):
            known = ", ".join(sorted(t.name for t in self.offered(client))) or "none"
            return _failure(404, f'there is no action "{name[:100]}"; the actions on are: {known}', "error")
        arguments = _arguments(await request.body())
        if isinstance(arguments, str):
            return _failure(400, arguments, ToolStatus.ERROR)
        actor = actions_actor(client, request.headers)
        return answer(await self.deps.tools.call(name, arguments, await self.context(actor, client)))


def _client(request: Request) -> ClientToken | None:
    """The named client whose token the guard accepted for this request, if any."""
    found = request.scope.get(CLIENT_KEY)
    return found if isinstance(found, ClientToken) else None


def _arguments(body: bytes) -> dict[str, Any] | str:
    """The call's arguments, or what is wrong with the body."""
    if not body.strip():
        return {}
    try:
        value = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        return "the request body must be JSON: an object holding the tool's arguments"
    except RecursionError:
        return depth_problem("the request body")
    if not isinstance(value, dict):
        return "the request body must be a JSON object holding the tool's arguments"
    if too_deep(value):
        return depth_problem("the request body")
    lone = unpaired_surrogate(value)
    return value if lone is None else surrogate_problem(lone, "the request body")


def answer(result: ToolResult) -> JSONResponse:
    """The HTTP form of one registry result (see the module docstring)."""
    if result.ok and result.payload is not None:
        body = dict(result.payload)
        if result.images:
            stem = str(body.get("filename") or body.get("id") or "image").rsplit(".", 1)[0]
            body[FILE_FIELD] = [
                {
                    "name": f"{stem}.{image.mime.split('/')[-1]}",
                    "mime_type": image.mime,
                    "content": files.base64_text(image.data),
                }
                for image in result.images
            ]
        return JSONResponse(body)
    message = result.message or f"the tool failed ({result.status})"
    return _failure(_STATUS.get(result.status, 500), message, result.status, result.field)


def _failure(status: int, message: str, kind: str, field: str | None = None) -> JSONResponse:
    body: Payload = {"error": message, "status": kind}
    if field:
        body["field"] = field
    return JSONResponse(body, status_code=status)
