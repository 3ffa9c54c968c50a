"""The chat's model picker in the real app, against the loopback model server.

``Ctrl+L`` in the chat lists what the server answers to ``GET /v1/models`` (the real openai SDK
asks it, in a worker); the model chosen is saved as ``ai.model``, the status bar shows it, and
the next request goes to it. A server that cannot list its models gets one line saying so.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_textual_snapshot
from tests.integration.test_ui_assistant_app import answer, send
from tests.integration.ui_support import Fixture, open_services, ready, until
from tests.support.wire_server import ErrorReply, WireServer, openai_models
from textual.pilot import Pilot
from textual.widgets import OptionList

from noted.services import Services
from noted.settings.handles import AI_MODEL
from noted.ui.app import NotedApp
from noted.ui.chat.models import ModelPicker
from noted.ui.chat.views import StatusLine
from noted.ui.widgets.status_bar import StatusBar

SNAPSHOTS = Path(__file__).resolve().parents[2] / "snapshots"
DEADLINE = 60.0  # seconds: only turns a hang into a failure


class _TopLevelSnapshots(pytest_textual_snapshot.SVGImageExtension):  # type: ignore[misc]
    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOTS / Path(test_location.filepath).stem)


@pytest.fixture(autouse=True)
def _snapshots_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pytest_textual_snapshot, "SVGImageExtension", _TopLevelSnapshots)


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


@pytest.fixture
def services(fixture: Fixture, wire: WireServer) -> Iterator[Services]:
    # ai.model goes to the config file (not the environment, which would win over the choice).
    s = open_services(fixture.root, ai_enabled="true", ai_provider="openai", ai_baseurl=wire.base_url + "/v1")
    s.settings.set(AI_MODEL, "llama3.2")
    yield s
    s.close()


async def open_picker(pilot: Pilot[Any]) -> ModelPicker:
    app = pilot.app
    assert isinstance(app, NotedApp)
    await pilot.press("ctrl+t")  # the chat pane, built when first shown, with the focus in its box
    await until(pilot, lambda: bool(app.workspace.query("#chat-input")) and app.focused is not None)
    await pilot.press("ctrl+l")
    await until(pilot, lambda: isinstance(app.screen, ModelPicker))
    picker = app.screen
    assert isinstance(picker, ModelPicker)
    await until(pilot, lambda: picker.problem is not None or picker.query_one(OptionList).option_count > 0)
    return picker


def listed(picker: ModelPicker) -> list[str]:
    options = picker.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_picker_lists_the_servers_models_and_the_next_request_uses_the_one_chosen(
    services: Services, wire: WireServer
) -> None:
    wire.push(openai_models("qwen2.5:7b", "llama3.2", "gemma3"), answer("Hi.", 100, 5))
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        picker = await open_picker(pilot)
        assert listed(picker) == ["gemma3", "llama3.2", "qwen2.5:7b"]
        assert picker.query_one(OptionList).highlighted == 1  # the model in use
        assert [(r.method, r.path) for r in wire.requests] == [("GET", "/v1/models")]

        await pilot.press(*"qwen", "enter")
        await until(pilot, lambda: not isinstance(app.screen, ModelPicker))
        await until(pilot, lambda: services.settings.get(AI_MODEL) == "qwen2.5:7b", timeout=DEADLINE)
        bar = app.workspace.query_one(StatusBar)
        await until(pilot, lambda: bar.part("model") == "openai · qwen2.5:7b", timeout=DEADLINE)

        await send(pilot, app, "Hello?")
        await until(pilot, lambda: len(wire.requests) == 2, timeout=DEADLINE)
        await until(pilot, lambda: not app.workspace.query_one(StatusLine).text, timeout=DEADLINE)
        # Not vacuous: the request before the choice would have named llama3.2.
        assert wire.requests[1].path == "/v1/chat/completions"
        assert wire.requests[1].body["model"] == "qwen2.5:7b"


async def test_a_server_that_cannot_list_its_models_gets_one_line_and_nothing_changes(
    services: Services, wire: WireServer
) -> None:
    wire.push(ErrorReply(404, {"error": {"message": "404 page not found"}}))
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        picker = await open_picker(pilot)
        problem = picker.problem or ""
        assert problem.startswith("the model server cannot list its models: ")
        assert "404" in problem and "→ type the model's name in Settings → Assistant" in problem
        assert "Traceback" not in problem
        assert not picker.query_one(OptionList).display  # no empty list under the line
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ModelPicker))
        assert services.settings.get(AI_MODEL) == "llama3.2"


def test_the_picker_at_80x24(snap_compare: Any, services: Services, wire: WireServer) -> None:
    """The server's three models over the chat at 80×24, the model in use highlighted."""
    wire.push(openai_models("qwen2.5:7b", "llama3.2", "gemma3"))

    async def pick(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await open_picker(pilot)
        await pilot.pause()

    assert snap_compare(NotedApp(services, background=False), terminal_size=(80, 24), run_before=pick)
