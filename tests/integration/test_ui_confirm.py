"""Confirmations: the harmless answer is the default, and the question says exactly what goes.

Each dialog used to focus its destructive button, so Enter (pressed out of habit, or typed ahead)
did what cannot be undone. Now Enter and Esc change nothing; ``y`` or Tab to the button acts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest
from tests.integration.ui_support import Fixture, open_services, until
from textual.command import CommandList, CommandPalette
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widgets import Button
from textual.widgets.tree import TreeNode

from noted.models import ACTOR_USER
from noted.ui.app import NotedApp
from noted.ui.dialogs.confirm import Confirm
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.notebook_tree import NotebookTree
from noted.ui.widgets.tree_items import TreeItem

SIZE = (120, 40)


class Running:
    def __init__(self, app: NotedApp, pilot: Pilot[None], seen: list[Message]) -> None:
        self.app = app
        self.pilot = pilot
        self.seen = seen
        self.store = app.services.store

    async def until(self, predicate: Callable[[], bool]) -> None:
        await until(self.pilot, predicate)

    def notices(self) -> list[str]:
        return [m.notification.message for m in self.seen if isinstance(m, Notify)]

    async def command(self, title: str) -> None:
        """Run a command of the palette by its title, as a person would."""
        await self.pilot.press("ctrl+p")
        await self.until(lambda: isinstance(self.app.screen, CommandPalette))
        await self.pilot.press(*title)

        def offered() -> bool:
            option = self.app.screen.query_one(CommandList).highlighted_option
            return option is not None and str(option.prompt).startswith(title)

        await self.until(offered)
        await self.pilot.press("enter")

    async def question(self) -> str:
        await self.until(lambda: isinstance(self.app.screen, Confirm))
        return str(self.app.screen.query_one(".dialog--title").render())

    async def closed(self) -> None:
        await self.until(lambda: not isinstance(self.app.screen, Confirm))
        await self.pilot.pause()


@pytest.fixture
async def running(fixture: Fixture) -> AsyncIterator[Running]:
    services = open_services(fixture.root)
    app = NotedApp(services)
    seen: list[Message] = []
    try:
        async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
            run = Running(app, pilot, seen)
            await run.until(
                lambda: (
                    len(app.workspace.query_one(NoteList).rows) == 4
                    and app.workspace.query_one(NotebookTree).ready
                )
            )
            yield run
    finally:
        services.close()


def _walk(node: TreeNode[TreeItem]) -> Iterator[TreeNode[TreeItem]]:
    for child in node.children:
        yield child
        yield from _walk(child)


def _trash_some(running: Running, fixture: Fixture) -> None:
    """Three notes and two notebooks in the trash: Home (with two notes), and Projects (one)."""
    store = running.store
    store.trash_folder(fixture.home, actor=ACTOR_USER)
    store.trash_folder(fixture.projects, actor=ACTOR_USER)
    assert len(store.list_notes(trashed=True)) == 3


async def test_empty_trash_says_how_much_goes_and_enter_keeps_it(running: Running, fixture: Fixture) -> None:
    _trash_some(running, fixture)
    await running.command("Empty trash")
    question = await running.question()
    assert question == "Delete 3 notes and 2 notebooks in the trash for good? There is no undo."
    # Not vacuous: the dialog focused "Empty trash" and Enter emptied it.
    assert running.app.focused is not None and running.app.focused.id == "no"
    await running.pilot.press("enter")
    await running.closed()
    assert len(running.store.list_notes(trashed=True)) == 3

    await running.command("Empty trash")
    await running.question()
    await running.pilot.press("y")
    await running.until(lambda: "Deleted 3 notes and 2 notebooks for good." in running.notices())
    assert running.store.list_notes(trashed=True) == []
    assert not [f for f in running.store.list_folders(include_trashed=True) if f.is_trashed]


async def test_empty_trash_deletes_nothing_when_the_trash_changed_after_the_question(
    running: Running, fixture: Fixture
) -> None:
    store = running.store
    for note_id in (fixture.ideas, fixture.groceries):
        store.trash_note(note_id, actor=ACTOR_USER)
    await running.command("Empty trash")
    assert "Delete 2 notes in the trash" in await running.question()
    # Meanwhile another door swaps what is there: one note back, another in. The count is the
    # same; the notes are not.
    store.restore_note(fixture.groceries, actor="mcp:other")
    store.trash_note(fixture.meeting, actor="mcp:other")
    await running.pilot.press("y")
    await running.until(lambda: any("changed meanwhile" in n for n in running.notices()))
    # Not vacuous: the store's empty_trash would have erased the meeting notes, never announced.
    assert {meta.id for meta in store.list_notes(trashed=True)} == {fixture.ideas, fixture.meeting}


async def test_an_empty_trash_is_not_asked_about(running: Running) -> None:
    await running.command("Empty trash")
    await running.until(lambda: "The trash is empty already." in running.notices())
    assert not isinstance(running.app.screen, Confirm)


async def test_enter_on_the_delete_tag_question_keeps_the_tag(running: Running) -> None:
    tree = running.app.workspace.query_one(NotebookTree)
    tree.focus()
    (tags,) = [n for n in tree.root.children if str(n.label).startswith("Tags")]
    tree.move_cursor(tags)
    await running.pilot.press("space")  # unfold the tags, as a person would

    def plan() -> list[TreeNode[TreeItem]]:
        return [n for n in _walk(tree.root) if str(n.label).startswith("#plan")]

    await running.until(lambda: bool(plan()) and plan()[0].line >= 0)
    tag = plan()[0]
    tree.move_cursor(tag)
    await running.pilot.press("d")
    assert await running.question() == 'Delete the tag "#plan"? It comes off 1 note; the notes stay.'
    assert isinstance(running.app.focused, Button) and running.app.focused.id == "no"
    await running.pilot.press("enter")  # not vacuous: Enter deleted the tag before
    await running.closed()
    assert running.store.find_tag("plan") is not None
    await running.pilot.press("d")
    await running.question()
    await running.pilot.press("y")
    await running.until(lambda: running.store.find_tag("plan") is None)
