"""The MCP server's small pure parts: Host rules, token strength, actor names, result mapping."""

from __future__ import annotations

import json
import secrets

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from noted.mcp.clients import actor_for, client_name
from noted.mcp.guard import HostRule, host_name
from noted.mcp.options import HttpOptions, is_loopback
from noted.mcp.server import call_result
from noted.mcp.token import MIN_ENTROPY_BITS, estimated_bits
from noted.mcp.wire import Refusal, invalid_message, refusal
from noted.models import ToolStatus
from noted.tools.registry import ToolResult


def test_host_rules_accept_this_machine_and_refuse_rebound_names() -> None:
    loopback = HostRule.for_bind("127.0.0.1")
    for header in ("127.0.0.1:8765", "localhost:1", "[::1]:8765", "LOCALHOST", "127.0.0.1"):
        assert loopback.allows(header), header
    for refused in ("evil.example:8765", "127.0.0.1.evil.example", "", None, "[::2]:80"):
        assert not loopback.allows(refused), refused
    assert HostRule.for_bind("0.0.0.0").allows("anything.example")  # a token is required there
    assert HostRule.for_bind("192.168.1.5").allows("192.168.1.5:8765")
    assert host_name("[::1]:8765") == "[::1]" and host_name("a.b:80") == "a.b"


def test_loopback_and_client_urls() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert HttpOptions(host="0.0.0.0", port=9000).client_url() == "http://127.0.0.1:9000/mcp"
    assert HttpOptions(host="::1").client_url(5) == "http://[::1]:5/mcp"


def test_token_strength_estimates() -> None:
    assert estimated_bits(secrets.token_urlsafe(48)) >= MIN_ENTROPY_BITS
    assert estimated_bits(secrets.token_hex(32)) >= MIN_ENTROPY_BITS
    assert estimated_bits(secrets.token_hex(16)) < MIN_ENTROPY_BITS  # 16 bytes is not enough
    assert estimated_bits("a" * 200) == 0
    assert estimated_bits("ab" * 100) == 0
    assert estimated_bits("correct horse battery staple") < MIN_ENTROPY_BITS


def test_actor_names_are_safe_and_bounded() -> None:
    assert actor_for("Claude Desktop") == "mcp:self:Claude Desktop"
    assert actor_for("  ") == "mcp:self:unknown"
    assert client_name("evil\nname\x1b[31m") == "evil name [31m"
    assert len(client_name("x" * 500)) == 64


def test_results_map_to_the_wire() -> None:
    ok = call_result(ToolResult("search_notes", ToolStatus.OK, payload={"total": 1, "results": []}))
    assert ok.structured_content == {"total": 1, "results": []} and not ok.is_error
    block = ok.content[0]
    assert isinstance(block, types.TextContent) and json.loads(block.text) == ok.structured_content

    for status in (ToolStatus.ERROR, ToolStatus.REFUSED, ToolStatus.CONFLICT):
        failed = call_result(ToolResult("update_note", status, message="read it again"))
        assert failed.is_error and failed.structured_content is None
        assert isinstance(failed.content[0], types.TextContent) and failed.content[0].text == "read it again"

    with pytest.raises(MCPError) as caught:
        call_result(
            ToolResult(
                "broken", ToolStatus.INTERNAL, message='internal error in tool "broken"; it was logged'
            )
        )
    assert caught.value.code == types.INTERNAL_ERROR


def test_invalid_request_ids_are_told_apart_from_notifications_and_good_ids() -> None:
    def message(raw_id: str) -> str:
        return f'{{"jsonrpc": "2.0", "id": {raw_id}, "method": "ping"}}'

    for bad in ("true", "1.5", "NaN", "Infinity", "1e999", "9" * 5000, "null", "[1]", '{"a": 1}', str(2**63)):
        assert invalid_message(message(bad)) is not None, bad
    for good in ("1", "-7", '"abc"', '""', str(2**63 - 1)):
        assert invalid_message(message(good)) is None, good
    # not requests: a notification, a response, not JSON at all (the SDK answers those itself)
    for other in (
        '{"jsonrpc": "2.0", "method": "x"}',
        '{"jsonrpc": "2.0", "id": true, "result": {}}',
        "{",
        "[" * 5000,
    ):
        assert invalid_message(other) is None, other[:20]


def test_values_that_are_no_json_rpc_message_are_invalid_requests() -> None:
    for bad in ("[]", "5", '"x"', "null", '{"no": "method"}', '{"jsonrpc": "1.0", "id": 1, "method": "ping"}',
                '{"jsonrpc": "2.0", "id": 1, "method": 7}', '{"jsonrpc": "2.0", "id": 1}',
                '{"jsonrpc": "2.0", "id": true, "method": "ping"}'):  # fmt: skip
        assert invalid_message(bad) is not None, bad
    for good in ('{"jsonrpc": "2.0", "id": 1, "method": "ping"}', '{"jsonrpc": "2.0", "method": "n"}',
                 '{"jsonrpc": "2.0", "id": 1, "result": {}}', '{"jsonrpc": "2.0", "id": 1, "error": {}}',
                 "{not json"):  # fmt: skip
        assert invalid_message(good) is None, good


def test_params_that_are_no_object_are_refused_with_the_requests_own_id() -> None:
    # the SDK answered these -32602 with a null id and a page of validation errors (found by the fuzz)
    assert refusal('{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": [1]}') == Refusal(
        -32602, "Invalid params: MCP takes params as a JSON object (by name), not an array", 7
    )
    refused = refusal('{"jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": 3}')
    assert refused is not None and (refused.code, refused.id) == (-32600, "a")
    assert refused.answer() == {
        "jsonrpc": "2.0",
        "id": "a",
        "error": {"code": -32600, "message": refused.message},
    }
    assert refusal('{"jsonrpc": "2.0", "id": true, "method": "ping", "params": 3}') == Refusal(
        -32600, "Invalid Request: the request's id is a boolean; it must be a string or an integer"
    )
    # null is no object either (the README promised -32600 for it, and it got -32602 from the SDK)
    assert refusal('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": null}') == Refusal(
        -32600, "Invalid Request: params must be a JSON object", 1
    )
    for handed_on in ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}',
                      '{"jsonrpc": "2.0", "method": "n"}', "{not json"):  # fmt: skip
        assert refusal(handed_on) is None, handed_on
