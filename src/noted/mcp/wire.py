"""JSON-RPC checks the SDK does not make, shared by both transports.

The SDK reads ``{"jsonrpc": "2.0", "id": true, "method": "tools/list"}`` as a *notification*
(an id that is neither a string nor an integer fails the request model, and the notification model
ignores extra fields), so such a request got no answer at all: HTTP 202 with an empty body, and
silence on stdio. JSON-RPC says a request whose id is invalid gets an Invalid Request error with a
null id; ``invalid_message`` finds those before the SDK sees them.

Valid ids are strings and integers that fit in 64 bits (MCP forbids null; a longer integer, a
fraction, ``NaN``, ``1e999``, a boolean, an array or an object cannot be echoed back faithfully).

A string escaping an unpaired surrogate (``"\\ud800"``) is valid JSON, but no text: the SDK's
reader refused it in its own words (``Parse error: unexpected end of hex escape`` over HTTP, "not
valid JSON" on stdio, with a null id the client's call never matched), or, on the sessionless
path, let it through to fail in the store. ``refusal`` names it, with the request's id.

So is a message nesting arrays and objects more than ``MAX_DEPTH`` deep: the SDK's reader stops
near there and called it "not valid JSON" (stdio) or "recursion limit exceeded" (legacy HTTP), with
a null id; the sessionless path read on to Python's own limit (~1,000) and then said "Parse error".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
MAX_ID_DIGITS = 19
"""Digits of the largest 64-bit integer; longer integers are refused before Python parses them."""
_INT64 = 2**63
MAX_DEPTH = 200
"""Arrays and objects one message may hold inside each other (the SDK's reader stops at 201)."""
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Unusable:
    """Stands for a number that cannot be an id (a fraction, NaN, infinity, a huge integer)."""


_UNUSABLE = _Unusable()


def _parse_int(text: str) -> int | _Unusable:
    # Python refuses to parse more than 4,300 digits; a 64-bit id never has more than 19.
    if len(text.lstrip("-")) > MAX_ID_DIGITS:
        return _UNUSABLE
    value = int(text)
    return value if -_INT64 <= value < _INT64 else _UNUSABLE


def _unusable(_: str) -> _Unusable:
    return _UNUSABLE


def invalid_message(raw: bytes | str) -> str | None:
    """What makes ``raw`` no JSON-RPC 2.0 message at all, or an invalid request; None when it is
    one (or is not JSON, which the SDK answers with a parse error).

    The SDK answers a JSON value that is not a message with -32602 (Invalid params); JSON-RPC
    says -32600 (Invalid Request), which is what the HTTP guard answers with this.
    """
    return _invalid(_parsed(raw))


def _invalid(message: Any) -> str | None:
    if message is _NOT_JSON or message is _TOO_DEEP:
        return None
    if not isinstance(message, dict):
        return "the body must be one JSON-RPC message, a JSON object (batches are not supported)"
    if message.get("jsonrpc") != "2.0":
        return 'the message must say "jsonrpc": "2.0"'
    if "method" in message:
        if not isinstance(message["method"], str):
            return "the method must be a string"
        return _id_problem(message["id"]) if "id" in message else None
    if "id" not in message or ("result" in message) == ("error" in message):
        return "the message is neither a request, a notification nor a response"
    return None


@dataclass(frozen=True, slots=True)
class Refusal:
    """The JSON-RPC error a malformed message earns, before the SDK sees it."""

    code: int
    message: str
    id: str | int | None = None
    """The request's own id when it is a valid one (the request was identified), else None."""

    def answer(self) -> dict[str, Any]:
        """The JSON-RPC error message."""
        error = {"code": self.code, "message": self.message}
        return {"jsonrpc": "2.0", "id": self.id, "error": error}


def refusal(raw: bytes | str) -> Refusal | None:
    """The error ``raw`` earns before the SDK sees it, or None to hand it on (not JSON included).

    Besides ``invalid_message``'s cases, a request whose ``params`` is no JSON object is answered
    here with its own id: the SDK's message models refuse it as a whole, so it answered -32602 with
    a null id and a page of validation errors (HTTP) or took it for no message at all (stdio); so
    is a ``tools/call`` whose name is no string or whose arguments are no object (``_call_problem``).
    """
    message = _parsed(raw)
    if message is _TOO_DEEP:  # too deep for Python's reader: read with the deep parts cut away
        message = _shallow(raw)
        if message is _NOT_JSON:
            return None  # not JSON after all (an array never closed): the SDK's parse error
        return Refusal(INVALID_REQUEST, f"Invalid Request: {depth_problem()}", _own_id(message))
    problem = _invalid(message)
    if problem is not None:
        return Refusal(INVALID_REQUEST, f"Invalid Request: {problem}")
    if not isinstance(message, dict):
        return None
    if too_deep(message):
        return Refusal(INVALID_REQUEST, f"Invalid Request: {depth_problem()}", _own_id(message))
    lone = unpaired_surrogate(message)
    if lone is not None:
        return Refusal(INVALID_REQUEST, f"Invalid Request: {surrogate_problem(lone)}", _own_id(message))
    if "method" not in message:
        return None
    request_id = message.get("id")
    if "params" not in message:
        return None
    params = message["params"]
    if isinstance(params, dict):  # a notification is never answered
        return _call_problem(message["method"], params, request_id) if "id" in message else None
    # "params": null is no object either, and gets -32600 like a string would
    if isinstance(params, list):
        why = "Invalid params: MCP takes params as a JSON object (by name), not an array"
        return Refusal(INVALID_PARAMS, why, request_id)
    return Refusal(INVALID_REQUEST, "Invalid Request: params must be a JSON object", request_id)


def _call_problem(method: str, params: dict[str, Any], request_id: Any) -> Refusal | None:
    """A ``tools/call`` whose name is no string or whose arguments are no object: the SDK answered
    ``Invalid request parameters`` and nothing more (arguments sent as a string of JSON, a
    client's common slip, could not be told from anything else)."""
    if method != "tools/call":
        return None
    if "name" in params and not isinstance(params["name"], str):
        return Refusal(INVALID_PARAMS, "Invalid params: name must be the tool's name, a string", request_id)
    arguments = params.get("arguments")
    if arguments is None or isinstance(arguments, dict):
        return None
    kind = "a string (send the JSON itself, not text holding it)" if isinstance(arguments, str) else "not one"
    why = f"Invalid params: arguments must be a JSON object of the tool's fields; it is {kind}"
    return Refusal(INVALID_PARAMS, why, request_id)


_NOT_JSON = object()
_TOO_DEEP = object()
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
"""A JSON string (skipped whole, brackets and all) or a bracket."""


def depth_problem(where: str = "the message") -> str:
    """What is wrong with ``where`` nesting more than ``MAX_DEPTH`` deep, and what to send."""
    return (
        f"{where} nests arrays and objects more than {MAX_DEPTH} levels deep, more than noted "
        "reads; nothing was done: send the arguments less deeply nested"
    )


def too_deep(value: Any) -> bool:
    """Whether parsed JSON ``value`` holds arrays and objects more than ``MAX_DEPTH`` inside each other."""
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _shallow(raw: bytes | str) -> Any:
    """``raw`` parsed with each array or object deeper than ``MAX_DEPTH`` read as null (enough to
    find the id of a message too deep for Python's reader, without its recursion), or ``_NOT_JSON``."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    kept, depth, start = [], 0, 0
    for token in _TOKENS.finditer(text):
        mark = token.group()[0]
        if mark in "[{":
            depth += 1
            if depth == MAX_DEPTH + 1:
                kept.append(text[start : token.start()] + "null")
        elif mark in "]}":
            if depth == MAX_DEPTH + 1:
                start = token.end()
            depth -= 1
    shallow = _parsed("".join(kept) + text[start:]) if depth == 0 else _NOT_JSON
    return _NOT_JSON if shallow is _TOO_DEEP else shallow


def _own_id(message: Any) -> str | int | None:
    """The id of a request refused here when it is a valid one (so the client's call ends), else None."""
    request_id = message.get("id") if isinstance(message, dict) else None
    if unpaired_surrogate(request_id) is not None or _id_problem(request_id) is not None:
        return None
    return request_id


def unpaired_surrogate(value: Any) -> str | None:
    """The first unpaired surrogate in a string of parsed JSON ``value`` (keys too), as its escape
    (``\\ud800``), or None. A pair written as two escapes was joined into one character by the
    parse, so any surrogate left is unpaired."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found is not None:
                return f"\\u{ord(found.group()):04x}"
        elif isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(item.keys())
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return None


def surrogate_problem(escape: str, where: str = "the message") -> str:
    """What is wrong with ``where`` holding the unpaired surrogate ``escape``, and what to send."""
    return (
        f"a string in {where} holds an unpaired surrogate ({escape}), which JSON allows but no "
        "text can hold; send text as UTF-8 (a character beyond U+FFFF as a pair of \\u escapes)"
    )


def _parsed(raw: bytes | str) -> Any:
    try:
        return json.loads(raw, parse_int=_parse_int, parse_float=_unusable, parse_constant=_unusable)
    except RecursionError:
        return _TOO_DEEP
    except ValueError:
        return _NOT_JSON  # not JSON: the SDK answers with a parse error


def _id_problem(value: Any) -> str | None:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return None
    if value is None:
        return "the request's id is null; MCP requests need a string or integer id"
    if isinstance(value, bool):
        return "the request's id is a boolean; it must be a string or an integer"
    if isinstance(value, dict | list):
        return "the request's id is an array or object; it must be a string or an integer"
    return "the request's id is not an integer of at most 64 bits (a fraction, NaN, infinity or too long)"
