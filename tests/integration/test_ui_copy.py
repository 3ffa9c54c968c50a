"""Copying from the app (issue 20): ``y`` the note's Markdown, ``Y`` one of its code blocks.

Each test reads ``App.clipboard``, the text Textual last sent to the terminal in its OSC 52, so a
key that copied nothing (or the wrong text) fails; the notices are read from the ``Notify``
messages the app handled.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.ui_support import Fixture, open_services, until
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widgets import OptionList

from noted.models import ACTOR_IMPORT, NoteDraft
from noted.store.sqlite import SqliteStore
from noted.ui.app import NotedApp
from noted.ui.dialogs.code_picker import CodeBlockPicker
from noted.ui.messages import OpenNote
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer

SIZE = (120, 40)
UNTOUCHED = "(nothing copied yet)"
"""Put on the clipboard first, so "nothing was copied" is seen as the clipboard left alone."""

INSTALL = "pip install noted\nnoted --help\n"
CONFIGURE = 'noted config set ui.theme "nord"\n'
RUN = "noted\n"
CODE_BODY = (
    "Setting noted up.\n\n# Install\n\n```sh\n" + INSTALL + "```\n\n"
    + "\n".join(f"Filler line {n}, so the next section starts below the first page." for n in range(60))
    + "\n\n# Configure\n\n~~~toml\n" + CONFIGURE + "~~~\n\nThen start it:\n\n    " + RUN
)  # fmt: skip
ONE_BLOCK_BODY = "Only one:\n\n```python\nprint('hello')\n```\n"


def _add_note(root: Path, folder: str, title: str, body: str) -> str:
    from noted.profile import Profile

    profile = Profile(root).ensure()
    store = SqliteStore.open(profile.db_path, profile.resources_dir)
    try:
        return store.create_note(NoteDraft(title=title, body=body, parent_id=folder), actor=ACTOR_IMPORT).id
    finally:
        store.close()


class Running:
    def __init__(self, app: NotedApp, pilot: Pilot[Any], seen: list[Message]) -> None:
        self.app, self.pilot, self.seen = app, pilot, seen

    def notices(self) -> list[str]:
        return [m.notification.message for m in self.seen if isinstance(m, Notify)]

    async def open(self, note_id: str) -> None:
        """Open ``note_id`` in the reader, with the focus on its page."""
        viewer = self.app.workspace.query_one(NoteViewer)
        self.app.post_message(OpenNote(note_id))
        await until(self.pilot, lambda: viewer.view is not None and viewer.view.note.id == note_id)
        self.app.workspace.query_one(NoteScroll).focus()
        await self.pilot.pause()


async def _run(fixture: Fixture, **keymap: str) -> AsyncIterator[Running]:
    services = open_services(fixture.root)
    for binding_id, keys in keymap.items():
        services.settings.set(f"ui.keymap.{binding_id}", keys)
    app = NotedApp(services, background=False)
    seen: list[Message] = []
    try:
        async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
            await until(pilot, lambda: app.workspace.query_one(NoteViewer).view is not None)
            app.copy_to_clipboard(UNTOUCHED)
            yield Running(app, pilot, seen)
    finally:
        services.close()


@pytest.fixture
def code_note(fixture: Fixture) -> str:
    return _add_note(fixture.root, fixture.work, "Setup", CODE_BODY)


@pytest.fixture
async def running(fixture: Fixture, code_note: str) -> AsyncIterator[Running]:
    async for run in _run(fixture):
        yield run


async def test_y_copies_the_notes_markdown_and_says_how_many_lines(
    running: Running, fixture: Fixture
) -> None:
    from tests.integration.ui_support import RELEASE_BODY

    await running.open(fixture.release)
    await running.pilot.press("y")
    # The source as written (the headings' "#" included), not the rendered page's text.
    assert running.app.clipboard == RELEASE_BODY
    lines = len(RELEASE_BODY.splitlines())
    assert f"Copied {lines} lines: the note “Release plan”." in running.notices()


async def test_y_follows_the_keymap(fixture: Fixture) -> None:
    async for run in _run(fixture, **{"note.copy": "w"}):
        await run.open(fixture.meeting)
        await run.pilot.press("y")
        assert run.app.clipboard == UNTOUCHED  # y is no longer the key
        await run.pilot.press("w")
        assert run.app.clipboard == "# Monday\n\nTalked about the release.\n"


async def test_capital_y_copies_the_only_code_block_without_asking(fixture: Fixture) -> None:
    note = _add_note(fixture.root, fixture.home, "Snippet", ONE_BLOCK_BODY)
    async for run in _run(fixture):
        await run.open(note)
        await run.pilot.press("Y")
        assert run.app.clipboard == "print('hello')\n"  # without its fences
        assert not isinstance(run.app.screen, CodeBlockPicker)
        assert "Copied 1 line: the code block of this note." in run.notices()


async def test_capital_y_asks_which_block_starting_at_the_one_in_view(
    running: Running, code_note: str
) -> None:
    await running.open(code_note)
    await running.pilot.press("Y")
    await until(running.pilot, lambda: isinstance(running.app.screen, CodeBlockPicker))
    options = running.app.screen.query_one(OptionList)
    assert options.option_count == 3
    assert options.highlighted == 0  # the top of the note is in view: its first block
    assert "§ 1 Install" in str(options.get_option_at_index(0).prompt)
    await running.pilot.press("down", "enter")
    await until(running.pilot, lambda: not isinstance(running.app.screen, CodeBlockPicker))
    assert running.app.clipboard == CONFIGURE
    assert "Copied 1 line: code block 2 of 3 in this note." in running.notices()

    # Scrolled to "Configure", the chooser starts on that section's block (the second).
    viewer = running.app.workspace.query_one(NoteViewer)
    assert viewer.scroll_to_section("2")
    await until(running.pilot, lambda: running.app.workspace.query_one(NoteScroll).scroll_y > 0)
    await running.pilot.press("Y")
    await until(running.pilot, lambda: isinstance(running.app.screen, CodeBlockPicker))
    assert running.app.screen.query_one(OptionList).highlighted == 1
    await running.pilot.press("down", "enter")  # the indented block after it
    await until(running.pilot, lambda: running.app.clipboard == RUN)


async def test_escape_in_the_chooser_copies_nothing(running: Running, code_note: str) -> None:
    await running.open(code_note)
    await running.pilot.press("Y")
    await until(running.pilot, lambda: isinstance(running.app.screen, CodeBlockPicker))
    await running.pilot.press("escape")
    await until(running.pilot, lambda: not isinstance(running.app.screen, CodeBlockPicker))
    assert running.app.clipboard == UNTOUCHED


async def test_nothing_to_copy_is_said_and_leaves_the_clipboard(running: Running, fixture: Fixture) -> None:
    await running.open(fixture.meeting)  # no code in it
    await running.pilot.press("Y")
    assert running.app.clipboard == UNTOUCHED
    assert "There is no code block in this note. Nothing was copied." in running.notices()
    empty = _add_note(fixture.root, fixture.home, "Empty", "")
    await running.open(empty)
    await running.pilot.press("y")
    assert running.app.clipboard == UNTOUCHED
    assert "This note is empty. Nothing was copied." in running.notices()


async def test_the_palette_copies_the_note(running: Running, fixture: Fixture) -> None:
    await running.open(fixture.meeting)
    commands = {c.title: c.callback for c in running.app.get_system_commands(running.app.screen)}
    assert "Copy code block…" in commands
    commands["Copy note"]()
    assert running.app.clipboard == "# Monday\n\nTalked about the release.\n"


def test_every_copy_key_has_an_id_the_keymap_accepts_a_description_and_help() -> None:
    from textual.binding import Binding

    from noted.ui.binding_ids import binding_ids
    from noted.ui.chat import ChatPane
    from noted.ui.chat.copying import MESSAGE_BINDINGS
    from noted.ui.widgets.note_viewer import NoteViewer

    wanted = {"note.copy", "note.copy.code", "chat.copy", "chat.message.copy", "chat.message.copy.code"}
    bindings = [
        b
        for b in (*NoteViewer.BINDINGS, *ChatPane.BINDINGS, *MESSAGE_BINDINGS)
        if isinstance(b, Binding) and b.id in wanted
    ]
    assert {b.id for b in bindings} == wanted
    assert all(b.description and b.tooltip for b in bindings)
    assert wanted <= binding_ids()  # what `noted config set ui.keymap.<id>` checks against
    assert all(i in ChatPane.HELP for i in wanted if i.startswith("chat."))  # F1 names them
