"""A seeded, bounded fuzz of malformed JSON-RPC, checking each *answer*, over stdio and HTTP.

Every message the fuzz sends comes with what JSON-RPC and MCP say it must get back: a request
exactly one answer with its own id (an error, or a result for a well-formed one), a message whose
id is invalid or which is no message at all one error with a null id, a notification nothing. On
stdio each message is followed by a ``ping`` with a fresh id, so everything written before that
ping's answer is what the message earned, and a missing or extra answer shows. Over HTTP each
POST's body is the message's answer (202 and an empty body for a notification).

JSON-RPC batches are not sent as "malformed" by accident: MCP 2025-06-18 removed batching, and
the server answers an array with one -32600 error, which is what is asserted.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import anyio
import httpx
import pytest
from tests.integration.mcp_support import World, http_client, http_server, make_world, raw_stdio
from tests.support.polling import scaled

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
SEED = 20261201
COUNT = 300
BIG = 200_000
"""A string well within the 16 MiB body limit, yet far larger than any normal argument."""

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
NULL_ID = "null"
"""``Case.answer`` for an error that must carry ``"id": null``."""
NONE = "none"
"""``Case.answer`` for a notification: no answer at all."""
ERROR = "error"
RESULT = "result"
EITHER = "either"
"""A tool call on odd arguments: a JSON-RPC error, or a result saying ``isError``."""
ANY = "any"
"""An error or any result, with the request's id."""


@dataclass(frozen=True)
class Case:
    """One message and what it must earn."""

    raw: bytes
    answer: str
    """``NULL_ID``, ``NONE``, ``ERROR``, ``RESULT`` or ``EITHER``."""
    id: Any = None
    """The id an answer must carry, for ``ERROR``, ``RESULT`` and ``EITHER``."""
    code: int | None = None
    """The error code required, when one is."""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = make_world(tmp_path_factory.mktemp("mcp-fuzz") / "profile")
    yield w
    w.close()


# the cases ----------------------------------------------------------------------------------

_INVALID_IDS: list[bytes] = [
    b"true",
    b"false",
    b"1.5",
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e999",
    b"1e3",
    b"null",
    b"5" * 5000,
    b"-" + b"9" * 30,
    b"18446744073709551616",
    b"[" * 50 + b"]" * 50,
    b"[1]",
    b"[]",
    b"{}",
    b'{"a": 1}',
    b'{"a": ' * 40 + b"1" + b"}" * 40,
]


def _dump(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


def _with_raw_id(message: dict[str, Any], raw_id: bytes) -> bytes:
    """``message`` with ``raw_id`` spliced in as its id's text (NaN and 5,000 digits included)."""
    return _dump(message)[:-1] + b', "id": ' + raw_id + b"}"


class Cases:
    """The seeded generator; ids of well-identified requests are unique so answers can be matched."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.next_id = 1000

    def fresh_id(self) -> int | str:
        self.next_id += 1
        return self.next_id if self.rng.random() < 0.7 else f"s-{self.next_id}-é"

    def request(self, method: Any, params: Any = None, *, jsonrpc: Any = "2.0") -> dict[str, Any]:
        body: dict[str, Any] = {"jsonrpc": jsonrpc, "id": self.fresh_id(), "method": method}
        if params is not None:
            body["params"] = params
        return body

    def all(self, count: int) -> list[Case]:
        makers = [getattr(self, name) for name in sorted(dir(self)) if name.startswith("case_")]
        return [self.rng.choice(makers)() for _ in range(count)]

    def case_well_formed(self) -> Case:
        method, params = self.rng.choice(
            [
                ("ping", None),
                ("tools/list", None),
                ("tools/list", {}),
                ("tools/call", {"name": "search_notes", "arguments": {"query": "budget"}}),
            ]
        )
        body = self.request(method, params)
        return Case(_dump(body), RESULT, body["id"])

    def case_invalid_id(self) -> Case:
        body = {"jsonrpc": "2.0", "method": self.rng.choice(["tools/list", "ping", "x/y"])}
        return Case(_with_raw_id(body, self.rng.choice(_INVALID_IDS)), NULL_ID, code=INVALID_REQUEST)

    def case_bad_jsonrpc(self) -> Case:
        version = self.rng.choice(["1.0", "2", 2.0, None, "", ["2.0"], "MISSING"])
        body = self.request("tools/list", jsonrpc=version)
        if version == "MISSING":
            del body["jsonrpc"]
        # the message is no JSON-RPC 2.0 request, so its id cannot be trusted: null is right
        return Case(_dump(body), NULL_ID, code=INVALID_REQUEST)

    def case_bad_method(self) -> Case:
        body = self.request(self.rng.choice([None, 5, True, [], {}, ["tools/list"]]))
        if self.rng.random() < 0.3:
            del body["method"]  # an id and nothing else: no request, no response
        return Case(_dump(body), NULL_ID, code=INVALID_REQUEST)

    def case_unknown_method(self) -> Case:
        name = self.rng.choice(["x/y", "", "tools/lis", "TOOLS/LIST", "rpc.discover", "é" * 20, "a" * 5000])
        body = self.request(name, self.rng.choice([None, {}]))
        return Case(_dump(body), ERROR, body["id"], code=-32601)

    def case_wrong_params(self) -> Case:
        method = self.rng.choice(["tools/list", "tools/call", "ping"])
        body = self.request(method, self.rng.choice([[], [1, 2], "x", 3, True]))
        return Case(_dump(body), ERROR, body["id"])

    def case_bad_tool_call(self) -> Case:
        params = self.rng.choice(
            [
                {},
                {"arguments": {"query": "budget"}},
                {"name": 5},
                {"name": None},
                {"name": "no_such_tool", "arguments": {}},
                {"name": "search_notes", "arguments": "x"},
                {"name": "search_notes", "arguments": [1]},
                {"name": "search_notes", "arguments": {"query": 5}},
                {"name": "search_notes", "arguments": {"query": None}},
                {"name": "search_notes", "arguments": {}},
                {"name": "search_notes", "arguments": {"query": "budget", "limit": "many"}},
                {"name": "search_notes", "arguments": {"query": "budget", "limit": -1}},
                {"name": "get_note", "arguments": {"note_id": ["x"]}},
                {"name": "broken_tool", "arguments": {}},
            ]
        )
        body = self.request("tools/call", params)
        return Case(_dump(body), EITHER, body["id"])

    def case_huge_string(self) -> Case:
        if self.rng.random() < 0.5:
            body = self.request("tools/call", {"name": "search_notes", "arguments": {"query": "é" * BIG}})
            return Case(_dump(body), EITHER, body["id"])
        body = self.request("tools/call", {"name": "x" * BIG, "arguments": {}})
        return Case(_dump(body), EITHER, body["id"])

    def case_not_json(self) -> Case:
        good = _dump(self.request("tools/list"))
        raw = self.rng.choice(
            [
                good[: self.rng.randint(1, len(good) - 1)],
                b"{" * self.rng.randint(1, 3000),
                b"[" * self.rng.randint(1, 3000),
                b'{"jsonrpc": "2.0", "id": 1, "method": "ping",}',
                b"{'jsonrpc': '2.0'}",
                bytes(self.rng.randrange(33, 127) for _ in range(self.rng.randint(1, 80))),
            ]
        )
        return Case(raw.replace(b"\n", b" "), NULL_ID, code=PARSE_ERROR)

    def case_not_utf8(self) -> Case:
        # not JSON (RFC 8259 text is UTF-8), but stdio reads with replacement characters, so there
        # it is a JSON string: either code is an honest answer, as long as there is one
        return Case(b'"\xff\xfe"', NULL_ID)

    def case_not_a_message(self) -> Case:
        value = self.rng.choice([5, "x", None, True, {}, {"jsonrpc": "2.0"}, {"foo": "bar"}])
        return Case(json.dumps(value).encode(), NULL_ID, code=INVALID_REQUEST)

    def case_batch(self) -> Case:
        batch = self.rng.choice(
            [[], [self.request("ping")], [self.request("ping"), self.request("tools/list")]]
        )
        return Case(json.dumps(batch).encode(), NULL_ID, code=INVALID_REQUEST)

    def case_response(self) -> Case:
        # a response to a request the server never sent: nothing to answer; with both or
        # neither of result and error it is no message at all
        shape: dict[str, object] = self.rng.choice(
            [{"result": {}}, {"error": {"code": 1, "message": "x"}}, {}, {"result": 1, "error": {}}]
        )
        body = {"jsonrpc": "2.0", "id": 424242, **shape}
        return Case(_dump(body), NONE if len(shape) == 1 else NULL_ID)

    def case_notification(self) -> Case:
        method = self.rng.choice(
            ["notifications/initialized", "notifications/cancelled", "notifications/x", "x/y", "tools/list"]
        )
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if self.rng.random() < 0.5:
            body["params"] = self.rng.choice([{}, {"requestId": 99999, "reason": "fuzz"}, {"a": [1, 2]}])
        return Case(_dump(body), NONE)


# checking an answer -----------------------------------------------------------------------------


def check(case: Case, answers: list[dict[str, Any]]) -> str | None:
    """What is wrong with ``answers`` as what ``case`` earned, or None."""
    if case.answer == NONE:
        return None if not answers else f"a notification got {answers}"
    if len(answers) != 1:
        return f"expected one answer, got {len(answers)}: {answers}"
    answer = answers[0]
    if answer.get("jsonrpc") != "2.0":
        return f"not JSON-RPC 2.0: {answer}"
    has_error = isinstance(answer.get("error"), dict) and isinstance(answer["error"].get("code"), int)
    if case.answer == NULL_ID:
        if not has_error or "id" not in answer or answer["id"] is not None:
            return f"expected an error with a null id, got {answer}"
    elif answer.get("id") != case.id or isinstance(answer.get("id"), bool):
        return f"expected id {case.id!r}, got {answer}"
    elif case.answer == RESULT and "result" not in answer:
        return f"expected a result, got {answer}"
    elif case.answer == ERROR and not has_error:
        return f"expected an error, got {answer}"
    elif case.answer == EITHER and not has_error and not _tool_error_or_result(answer):
        return f"expected an error or a tool result, got {answer}"
    elif case.answer == ANY and not has_error and "result" not in answer:
        return f"expected an error or a result, got {answer}"
    if case.code is not None and has_error and answer["error"]["code"] != case.code:
        return f"expected code {case.code}, got {answer}"
    return None


def _tool_error_or_result(answer: dict[str, Any]) -> bool:
    result = answer.get("result")
    return isinstance(result, dict) and isinstance(result.get("content"), list)


def _summary(case: Case) -> bytes:
    return case.raw[:160]


def test_the_cases_cover_every_kind() -> None:
    # not vacuous: the seed draws every kind of case, each enough times to matter
    cases = Cases(SEED).all(COUNT)
    kinds = {case.answer for case in cases}
    assert kinds == {NULL_ID, NONE, ERROR, RESULT, EITHER}
    assert sum(case.answer == NONE for case in cases) >= 10
    assert sum(case.answer == RESULT for case in cases) >= 10
    assert len({case.raw for case in cases}) > COUNT * 0.6


# stdio --------------------------------------------------------------------------------------------


async def test_stdio_answers_every_malformed_request_once_and_notifications_never(world: World) -> None:
    cases = Cases(SEED).all(COUNT)
    failures: list[tuple[bytes, str]] = []
    async with raw_stdio(world) as (send, reply):
        with anyio.fail_after(scaled(120)):
            for index, case in enumerate(cases):
                await send(case.raw)
                marker = f"marker-{index}"
                await send(json.dumps({"jsonrpc": "2.0", "id": marker, "method": "ping"}).encode())
                answers = await _answers_until(reply, marker, case)
                problem = check(case, answers)
                if problem is not None:
                    failures.append((_summary(case), problem))
            await send(json.dumps({"jsonrpc": "2.0", "id": "end", "method": "tools/list"}).encode())
            last = await reply()
    assert last["id"] == "end" and any(t["name"] == "search_notes" for t in last["result"]["tools"])
    assert not failures, "\n".join(f"{raw[:120]!r}: {why[:300]}" for raw, why in failures[:15])


async def _answers_until(reply: Any, marker: str, case: Case) -> list[dict[str, Any]]:
    """What came before ``marker``'s answer, and the case's own answer if it came after.

    Requests run concurrently, so a slow tool call may be answered after the ping that follows
    it; an error with a null id is written before the next line is read, so it comes first.
    """
    answers: list[dict[str, Any]] = []
    marked = False
    waiting = case.answer in (ERROR, RESULT, EITHER, ANY)
    while not marked or waiting:
        message = await reply()
        if message.get("id") == marker and "result" in message:
            marked = True
            continue
        answers.append(message)
        # a null-id error is an answer too (the wrong one for a request with a good id): stop there
        waiting = waiting and message.get("id") not in (case.id, None)
    return answers


# HTTP ---------------------------------------------------------------------------------------------


async def _open_session(raw: httpx.AsyncClient, url: str) -> dict[str, str]:
    info = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "fuzz", "version": "1"},
    }
    opened = await raw.post(
        url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": info}, headers=ACCEPT
    )
    session = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    done = await raw.post(
        url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers={**ACCEPT, **session}
    )
    assert done.status_code == 202
    return session


def _http_answers(case: Case, response: httpx.Response) -> list[dict[str, Any]] | str:
    if not response.content:
        return [] if response.status_code in (200, 202, 204) else f"HTTP {response.status_code} with no body"
    try:
        decoded = response.json()
    except ValueError:
        return f"HTTP {response.status_code} with a body that is no JSON: {response.text[:200]}"
    if response.status_code >= 500:
        return f"HTTP {response.status_code}: {decoded}"
    return decoded if isinstance(decoded, list) else [decoded]


async def test_http_answers_every_malformed_request_once_and_notifications_never(world: World) -> None:
    cases = Cases(SEED + 1).all(COUNT)
    failures: list[tuple[bytes, str]] = []
    async with http_server(world) as http:
        url = str(http.url)
        async with httpx.AsyncClient(timeout=scaled(120)) as raw:
            session = await _open_session(raw, url)
            with anyio.fail_after(scaled(120)):
                for case in cases:
                    response = await raw.post(url, content=case.raw, headers={**ACCEPT, **session})
                    answers = _http_answers(case, response)
                    problem = answers if isinstance(answers, str) else check(case, answers)
                    if problem is not None:
                        failures.append((_summary(case), problem))
        async with http_client(url, "legacy") as client:
            assert "search_notes" in {t.name for t in (await client.list_tools()).tools}
    assert not failures, "\n".join(f"{raw[:120]!r}: {why[:300]}" for raw, why in failures[:15])


MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
}


def _sessionless(case: Case) -> tuple[bytes, dict[str, str]]:
    """``case`` as a 2026-07-28 client sends it: the envelope in ``params._meta``, the method in a
    header (when the message has them to give)."""
    headers = {"mcp-protocol-version": MODERN}
    try:
        decoded = json.loads(case.raw)
    except (ValueError, RecursionError):
        return case.raw, headers
    if not isinstance(decoded, dict) or not isinstance(decoded.get("method"), str):
        return case.raw, headers
    if decoded["method"].isascii() and len(decoded["method"]) < 200:
        headers["mcp-method"] = decoded["method"]
    params = decoded.get("params", {})
    if isinstance(params, dict):
        decoded["params"] = {**params, "_meta": ENVELOPE}
        name = params.get("name")
        if isinstance(name, str) and name.isascii() and len(name) < 200:
            headers["mcp-name"] = name
    if "id" in decoded and case.answer == NULL_ID:
        return case.raw, headers  # keep the invalid id's exact text (NaN, 5,000 digits)
    return _dump(decoded), headers


def _sessionless_case(case: Case) -> Case:
    """What ``case`` must earn on the sessionless path: the same, except that an error's code is
    the SDK's to choose there, a response is refused (-32020 for a method the headers cannot carry, ``ping`` is no
    method of 2026-07-28), as long as it is an error with the request's id."""
    if case.answer == ERROR:
        return replace(case, code=None)
    if case.answer == RESULT and b'"ping"' in case.raw:
        return replace(case, answer=ANY)
    if case.answer == NONE and b'"method"' not in case.raw:
        # a client's response has nothing to answer in a single exchange; Streamable HTTP lets
        # the server refuse it with an HTTP error and an id-less JSON-RPC error, which it does
        return replace(case, answer=NULL_ID, code=INVALID_REQUEST)
    return case


async def test_sessionless_http_answers_every_malformed_request_once(world: World) -> None:
    cases = Cases(SEED + 2).all(COUNT)
    failures: list[tuple[bytes, str]] = []
    async with http_server(world) as http:
        url = str(http.url)
        async with httpx.AsyncClient(timeout=scaled(120)) as raw:
            with anyio.fail_after(scaled(120)):
                for case in cases:
                    body, headers = _sessionless(case)
                    response = await raw.post(url, content=body, headers={**ACCEPT, **headers})
                    answers = _http_answers(case, response)
                    expected = _sessionless_case(case)
                    problem = answers if isinstance(answers, str) else check(expected, answers)
                    if problem is not None:
                        failures.append((_summary(case), problem))
        async with http_client(url, MODERN) as client:
            assert "search_notes" in {t.name for t in (await client.list_tools()).tools}
    assert not failures, "\n".join(f"{raw[:120]!r}: {why[:300]}" for raw, why in failures[:15])
