"""Waiting for a model server through the real SDKs: ``ai.timeoutSeconds`` is the whole wait.

A server that never answers used to cost three SDK tries of the full timeout each, silently; now
the engine makes the tries itself, within the one deadline, and says every second how long the
person has waited and which try is under way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.test_chat_wire import LIVENESS, run, text_reply, wired_services
from tests.support.wire_server import ErrorReply, SilentReply, WireServer

from noted.chat.events import Cancelled, Done, Failed, Waiting
from noted.services import Services

TIMEOUT = 5  # the smallest ai.timeoutSeconds allowed


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


@pytest.fixture(params=["openai", "anthropic"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def services(tmp_path: Path, wire: WireServer, kind: str) -> Iterator[Services]:
    s = wired_services(tmp_path / "profile", wire, kind, timeout=TIMEOUT)
    yield s
    s.close()


async def test_a_silent_server_costs_the_timeout_once_with_signs_of_life(
    services: Services, wire: WireServer
) -> None:
    wire.push(SilentReply(), SilentReply(), SilentReply())
    events = await run(services, services.transcripts.create(), "Hello?")
    failed = events[-1]
    assert isinstance(failed, Failed) and f"within {TIMEOUT} s" in failed.message, events[-1]
    # Not vacuous: the SDKs' own retries sent this request three times, each waiting the timeout.
    assert len(wire.requests) == 1
    waits = [e for e in events if isinstance(e, Waiting)]
    assert waits and all(w.limit == TIMEOUT and w.retry == 0 for w in waits)
    assert [w.elapsed for w in waits] == sorted(w.elapsed for w in waits)  # counting up
    assert "Esc stops" in waits[0].describe()
    assert await asyncio.to_thread(wire.disconnected.wait, LIVENESS)  # the try was closed


async def test_a_failed_try_is_retried_within_the_wait_and_said(
    services: Services, wire: WireServer, kind: str
) -> None:
    overloaded = {"error": {"type": "overloaded_error", "message": "busy"}}
    wire.push(ErrorReply(503, overloaded), text_reply(kind, ["Hello again."]))
    events = await run(services, services.transcripts.create(), "Hello?")
    assert isinstance(events[-1], Done) and events[-1].text == "Hello again."
    retries = [e for e in events if isinstance(e, Waiting) and e.retry]
    assert retries and retries[0].retry == 1 and "503" in (retries[0].reason or "")
    assert "retry 1 of 2" in retries[0].describe()
    assert len(wire.requests) == 2


async def test_a_wait_that_runs_out_after_a_failed_try_says_so_once_with_its_cause(
    services: Services, wire: WireServer
) -> None:
    overloaded = {"error": {"type": "overloaded_error", "message": "overloaded"}}
    wire.push(ErrorReply(503, overloaded), SilentReply(), SilentReply())
    events = await run(services, services.transcripts.create(), "Hello?")
    failed = events[-1]
    assert isinstance(failed, Failed), events[-1]
    # Not vacuous: it said "within 5 s (2 tries) (2 tries)", and not why the first try failed.
    assert f"within {TIMEOUT} s" in failed.message and failed.message.count("tries") == 1, failed.message
    assert "2 tries" in failed.message and "503" in failed.message, failed.message
    assert len(wire.requests) == 2


async def test_cancel_during_the_pause_before_a_retry_stops_at_once(
    services: Services, wire: WireServer
) -> None:
    wire.push(ErrorReply(503, {"error": {"message": "busy"}}), SilentReply())
    cancel = asyncio.Event()

    def stop_on_retry(event: object) -> None:
        if isinstance(event, Waiting) and event.retry:
            cancel.set()

    events = await run(
        services, services.transcripts.create(), "Hello?", cancel=cancel, on_event=stop_on_retry
    )
    assert isinstance(events[-1], Cancelled)
    assert len(wire.requests) == 1  # stopped in the pause: the retry was never sent
