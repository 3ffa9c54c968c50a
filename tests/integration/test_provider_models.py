"""The server's model list through the real SDKs against the loopback wire server.

``list_models`` is what the chat's model picker calls: both wire formats are read, ``ai.model``
need not be set, and a server that cannot list its models gives one line saying so and what to do.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.polling import scaled
from tests.support.wire_server import ErrorReply, WireServer, anthropic_models, openai_models

from noted.errors import UnavailableError
from noted.providers import ProviderConfig, ProviderError, list_models

LIVENESS = scaled(60)  # seconds: only turns a hang into a failure


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def config(wire: WireServer, kind: str, **overrides: Any) -> ProviderConfig:
    base = wire.base_url + ("/v1" if kind == "openai" else "")
    values: dict[str, Any] = dict(kind=kind, model="", base_url=base, enabled=True, timeout=LIVENESS)
    return ProviderConfig(**(values | overrides))


async def test_an_openai_compatible_server_lists_its_models_sorted(wire: WireServer) -> None:
    wire.push(openai_models("qwen2.5:7b", "Llama3.2", "gemma3"))
    # No ai.model set: the list is how a person finds one.
    assert await list_models(config(wire, "openai")) == ["gemma3", "Llama3.2", "qwen2.5:7b"]
    (asked,) = wire.requests
    assert (asked.method, asked.path) == ("GET", "/v1/models")


async def test_anthropic_lists_its_models(wire: WireServer) -> None:
    wire.push(anthropic_models("claude-b", "claude-a"))
    assert await list_models(config(wire, "anthropic")) == ["claude-a", "claude-b"]
    assert [(r.method, r.path) for r in wire.requests] == [("GET", "/v1/models")]


async def test_a_server_that_cannot_list_models_says_so_and_what_to_do(wire: WireServer) -> None:
    wire.push(ErrorReply(404, {"error": {"message": "no such route"}}))
    with pytest.raises(ProviderError) as raised:
        await list_models(config(wire, "openai"))
    assert raised.value.message.startswith("the model server cannot list its models")
    assert "404" in raised.value.message
    assert "ai.model" in (raised.value.hint or "")


async def test_the_fake_lists_itself_and_a_switched_off_assistant_is_refused() -> None:
    assert await list_models(ProviderConfig(kind="fake", enabled=True)) == ["fake"]
    with pytest.raises(UnavailableError):
        await list_models(ProviderConfig(kind="fake", enabled=False))
