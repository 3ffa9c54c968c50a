"""The app and the unexpected: a theme switch that stopped it, and what any uncaught error does.

Switching themes from the palette with the embedded MCP server on and another process writing
through the CLI once ended the app with a Rich traceback on screen and nothing in ``noted.log``.
The cause was the reader's Markdown colours (a theme whose heading style is ``none``, read with the
variables of the theme before); the test switches through every theme, in the palette's order, as
a person would. Any error nothing else catches must reach ``noted.log`` with its stack and the
screen as one line.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import ClassVar

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from tests.support.polling import scaled
from textual.binding import Binding, BindingType
from textual.command import CommandList, CommandPalette
from textual.message import Message
from textual.notifications import Notify

from noted.logs import setup_logging
from noted.settings.handles import UI_THEME
from noted.ui.app import NotedApp
from noted.ui.widgets.note_editor import NoteEditor
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "src" / "noted" / "ui"
SIZE = (120, 40)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _cli_writer(profile: Path, count: int) -> subprocess.Popen[bytes]:
    """Another process creating ``count`` notes through the real CLI, one command each."""
    script = "; ".join(
        f"subprocess.run([sys.executable, '-m', 'noted', '--profile', {str(profile)!r}, 'create', "
        f"'From the CLI {n}', '--body', 'written meanwhile'], check=True, capture_output=True)"
        for n in range(count)
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NOTED_SEARCH_INDEXER_ENABLED": "false"}
    return subprocess.Popen([sys.executable, "-c", f"import subprocess, sys; {script}"], env=env)


async def test_switching_themes_with_mcp_on_and_a_writer_keeps_the_app(
    fixture: Fixture,
) -> None:
    services = open_services(fixture.root, mcp_port=str(_free_port()), mcp_enabled="true")
    app = NotedApp(services)
    writer: subprocess.Popen[bytes] | None = None
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)  # four notes listed: the writer starts after, or it adds to them first
            writer = _cli_writer(fixture.root, 2)
            await until(pilot, lambda: app.mcp_status.startswith("MCP http"), timeout=90)
            # Not vacuous: the page is drawn in each theme (the crash was in drawing it), and the
            # order is the palette's, in which ansi-dark comes just before ansi-light: the pair that
            # raised, whichever theme the app started in. (The first themes only: each switch
            # through the palette takes a while on a loaded machine.)
            every = sorted(app.available_themes, key=lambda name: (not name.startswith("noted"), name))
            assert {"ansi-dark", "ansi-light"} <= set(every)
            themes = every[: every.index("ansi-light") + 2]  # noted's two, the ansi pair, one more
            page = app.workspace.query_one(NoteScroll)
            for name in themes:
                await pilot.press("ctrl+p")
                await until(pilot, lambda: isinstance(app.screen, CommandPalette))
                await pilot.press(*f"switch theme: {name}")
                await until(pilot, lambda n=name: _offered(app, n))  # type: ignore[misc]
                await pilot.press("enter")
                await until(pilot, lambda: not isinstance(app.screen, CommandPalette))
                await until(pilot, lambda n=name: app.theme == n)  # type: ignore[misc]
                await until(pilot, lambda n=name: page.look() is not None and page.look().theme_name == n)  # type: ignore[misc, union-attr]
                assert services.settings.get(UI_THEME) == name  # saved, as the palette says
            assert writer.wait(timeout=scaled(300)) == 0
            notes = app.workspace.query_one(NoteList)
            await until(pilot, lambda: "From the CLI 1" in [r.meta.title for r in notes.rows], timeout=90)
            assert app.is_running and app.workspace.query_one(NoteViewer).view is not None
    finally:
        if writer is not None:
            writer.kill()
        services.close()


def _offered(app: NotedApp, name: str) -> bool:
    """The palette's highlighted command switches to ``name``."""
    lists = app.screen.query(CommandList)
    option = lists.first().highlighted_option if lists else None
    return option is not None and str(option.prompt).startswith(f"Switch theme: {name}")


class _Failing(NotedApp):
    """The app with one more key whose handler raises what no code of ours expects."""

    # Textual reads a subclass's stylesheets beside the subclass's file: point it at the app's.
    CSS_PATH: ClassVar[list[str | PurePath]] = [UI / str(name) for name in NotedApp.CSS_PATH]
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f9", "fail", "Fail", id="test.fail")]

    def action_fail(self) -> None:
        raise ZeroDivisionError("a bug nobody caught")


@pytest.fixture
def profile_log(fixture: Fixture) -> Iterator[Path]:
    """``noted.log`` in the profile, set up as ``noted`` sets it up; the logger is put back after."""
    logger = logging.getLogger("noted")
    handlers, level, propagate = list(logger.handlers), logger.level, logger.propagate
    path = fixture.root / "noted.log"
    setup_logging(path)
    yield path
    for handler in logger.handlers:
        if handler not in handlers:
            handler.close()
    logger.handlers, logger.level, logger.propagate = handlers, level, propagate


async def test_an_uncaught_error_is_logged_with_its_stack_and_shown_as_one_line(
    fixture: Fixture, profile_log: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    services = open_services(fixture.root)
    app = _Failing(services)
    try:
        with pytest.raises(ZeroDivisionError):  # Pilot hands the error on to the test, as Textual does
            async with app.run_test(size=SIZE) as pilot:
                await ready(pilot)
                await pilot.press("g", "e")
                editor = app.workspace.query_one(NoteEditor)
                await until(pilot, lambda: editor.note is not None)
                await pilot.press("ctrl+home", *"Not saved yet. ")
                await until(pilot, lambda: editor.dirty)
                await pilot.press("f9")
                await until(pilot, lambda: not app.is_running)
    finally:
        services.close()
    log = profile_log.read_text(encoding="utf-8")
    # Not vacuous: before, Textual printed a Rich traceback (boxes, source lines, locals) to stderr
    # and wrote nothing to the log.
    assert "Traceback (most recent call last)" in log and "action_fail" in log
    assert "ZeroDivisionError: a bug nobody caught" in log
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "a bug nobody caught" in lines[0] and str(profile_log) in lines[0]
    assert "Traceback" not in err and "╭" not in err
    assert app.return_code == 1
    # The text typed and not saved is kept, and the line says where.
    (rescued,) = (fixture.root / "rescued").iterdir()
    assert str(rescued) in lines[0]
    assert rescued.read_text(encoding="utf-8").startswith("# Release plan\n\nNot saved yet. Plans for")


async def test_an_error_in_a_bare_thread_or_task_is_logged_and_shown_as_one_line(
    fixture: Fixture, profile_log: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    services = open_services(fixture.root)
    app = NotedApp(services)
    seen: list[Message] = []
    try:
        async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
            await ready(pilot)

            def in_thread() -> None:
                raise KeyError("from a thread")

            async def in_task() -> None:
                raise LookupError("from a task")

            thread = threading.Thread(target=in_thread, name="stray")
            thread.start()
            thread.join()
            task = asyncio.get_running_loop().create_task(in_task())
            await until(pilot, task.done)
            del task  # never awaited: the loop reports it once the task is collected
            gc.collect()

            def notices() -> list[str]:
                return [m.notification.message for m in seen if isinstance(m, Notify)]

            await until(pilot, lambda: len([n for n in notices() if "failed" in n]) == 2)
            assert app.is_running  # neither ends the app
    finally:
        services.close()
    log = profile_log.read_text(encoding="utf-8")
    # Not vacuous: Python printed both tracebacks to stderr, over the screen, and logged nothing.
    assert "KeyError: 'from a thread'" in log and "LookupError: from a task" in log
    assert log.count("Traceback (most recent call last)") == 2
    assert "Traceback" not in capfd.readouterr().err
    lines = [n for n in notices() if "failed" in n]
    assert any("stray" in n and "KeyError" in n for n in lines) and all("\n" not in n for n in lines)
