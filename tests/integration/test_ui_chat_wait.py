"""The chat pane waiting on a real loopback server that never answers, driven by Pilot.

The pane must show that it is still waiting (seconds of the limit, which try) and stop at once on
Esc, closing the connection, instead of sitting silent for three times ``ai.timeoutSeconds``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.integration.test_chat_wire import wired_services
from tests.integration.test_ui_chat import Host, ask, make_note, settle, texts
from tests.support.polling import wait_for_async
from tests.support.wire_server import SilentReply, WireServer
from textual.pilot import Pilot

from noted.services import Services
from noted.ui.chat.views import NoticeView, StatusLine

DEADLINE = 60.0  # seconds: only turns a hang into a failure, never a timing check


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


@pytest.fixture
def services(tmp_path: Path, wire: WireServer) -> Iterator[Services]:
    s = wired_services(tmp_path / "profile", wire, "openai", timeout=600)
    yield s
    s.close()


async def until(pilot: Pilot[None], ready: Callable[[], bool]) -> None:
    await wait_for_async(
        ready, what="the pane's expected state", timeout=DEADLINE, interval=0.05, pause=pilot.pause
    )


def status(app: Host) -> str:
    return app.query_one(StatusLine).text or ""


async def test_the_pane_counts_the_wait_and_escape_stops_it_at_once(
    services: Services, wire: WireServer
) -> None:
    wire.push(SilentReply(), SilentReply(), SilentReply())
    app = Host(services, None, make_note(services))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Hello?")
        # Not vacuous: before, the status said "Answering…" and nothing else until the timeout.
        await until(pilot, lambda: status(app).startswith("Waiting for the model… 1 s of 600 s"))
        assert "Esc stops" in status(app)
        await pilot.press("escape")
        await until(pilot, lambda: not app.pane.running)
        assert "stopped" in texts(app, NoticeView)
        await until(pilot, wire.disconnected.is_set)  # the request was really closed
        assert len(wire.requests) == 1


async def test_the_waiting_line_wraps_in_a_narrow_pane(services: Services, wire: WireServer) -> None:
    wire.push(SilentReply(), SilentReply(), SilentReply())
    app = Host(services, None, make_note(services))
    async with app.run_test(size=(44, 30)) as pilot:  # about the pane's width beside a note
        await settle(pilot)
        await ask(pilot, "Hello?")
        await until(pilot, lambda: status(app).startswith("Waiting for the model…"))
        line = app.query_one(StatusLine)
        await until(pilot, lambda: line.size.height >= 2)
        drawn = " ".join(strip.text.strip() for strip in line.render_lines(line.region.reset_offset))
        # Not vacuous: the line was one row high, so "· Esc stops" was cut off at the pane's edge.
        assert "Esc stops" in drawn, drawn
        await pilot.press("escape")
        await until(pilot, lambda: not app.pane.running)
