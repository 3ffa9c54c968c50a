"""Backlinks are found for the note the reader shows, not for the notes it reads ahead, nor for
those that flash past while ``j`` is held.

The backlinks search was about 60 % of what reading a note ahead cost, and a note read ahead
(the list's neighbours, the search screen's highlighted result) may never be shown.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from tests.integration.test_ui_app import SIZE
from tests.integration.ui_support import Fixture, open_services, until
from textual.pilot import Pilot

from noted.models import Note
from noted.ops.links import Backlink, PhraseSearch, Resolver, backlinks
from noted.store.protocol import Store
from noted.ui import data
from noted.ui.app import NotedApp
from noted.ui.data import NoteView
from noted.ui.widgets import backlinks_later
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteViewer
from noted.ui.widgets.outline import LinkList


@dataclass
class Reader:
    """The app under test, the notes whose backlinks it looked for, in order, and the gate each
    search waits at once it is asked (open unless a test closes it, to hold a search under way)."""

    app: NotedApp
    pilot: Pilot[None]
    asked: list[str]
    gate: threading.Event

    @property
    def viewer(self) -> NoteViewer:
        return self.app.workspace.query_one(NoteViewer)

    async def until_shown(self, note_id: str) -> NoteView:
        await until(self.pilot, lambda: self.viewer.view is not None and self.viewer.view.note.id == note_id)
        assert self.viewer.view is not None
        return self.viewer.view


@pytest.fixture
async def reader(fixture: Fixture, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Reader]:
    asked: list[str] = []
    gate = threading.Event()
    gate.set()

    def counted(
        store: Store, keyword: PhraseSearch, note: Note, *rest: Resolver, **stop: Any
    ) -> list[Backlink]:
        asked.append(note.id)  # the real search runs, once the gate is open
        gate.wait(timeout=60)
        return backlinks(store, keyword, note, *rest, **stop)

    monkeypatch.setattr(data, "backlinks", counted)
    services = open_services(fixture.root)
    app = NotedApp(services)
    try:
        async with app.run_test(size=SIZE) as pilot:
            yield Reader(app, pilot, asked, gate)
    finally:
        gate.set()  # a search held still ends
        services.close()


async def test_notes_read_ahead_are_not_searched_for_backlinks_until_shown(
    reader: Reader, fixture: Fixture
) -> None:
    viewer, pilot, asked = reader.viewer, reader.pilot, reader.asked
    # The list: Release plan (shown first), Meeting notes, Groceries, Ideas.
    await until(pilot, lambda: viewer.reader.has_ahead(fixture.meeting))
    await until(pilot, lambda: viewer.reader.has_ahead(fixture.groceries))
    await until(pilot, lambda: fixture.release in asked)  # a moment after it shows
    # Not vacuous: reading ahead searched the backlinks of both neighbours too.
    assert asked == [fixture.release]
    reader.app.workspace.query_one(NoteList).focus()
    await pilot.press("j")  # Meeting notes, from its copy read ahead: now it is searched
    await until(pilot, lambda: asked == [fixture.release, fixture.meeting])
    assert fixture.groceries not in asked and fixture.ideas not in asked


async def test_a_note_shown_from_its_copy_read_ahead_gets_its_backlinks_in_the_links_pane(
    reader: Reader, fixture: Fixture
) -> None:
    viewer, pilot, asked = reader.viewer, reader.pilot, reader.asked
    links = viewer.query_one(LinkList)
    await until(pilot, lambda: viewer.reader.has_ahead(fixture.meeting))
    viewer.forget()  # Release plan's copy read whole goes: showing it again uses one read ahead
    reader.app.workspace.query_one(NoteList).focus()
    await pilot.press("j")
    await reader.until_shown(fixture.meeting)
    await until(pilot, lambda: viewer.reader.has_ahead(fixture.release))
    await pilot.press("k")  # Release plan, which Ideas links to (and it links nowhere)
    await reader.until_shown(fixture.release)
    await until(pilot, lambda: links.has_items and links.option_count == 1)
    back = links.get_option_at_index(0)
    assert back.id == f"n{fixture.ideas}" and "Ideas" in str(back.prompt)
    view = await reader.until_shown(fixture.release)
    assert [(link.id, link.kind) for link in view.links] == [(fixture.ideas, "back")]
    # Kept whole: shown once more, it is not searched again.
    searched = asked.count(fixture.release)
    await pilot.press("j", "k")
    await reader.until_shown(fixture.release)
    await pilot.pause()
    assert asked.count(fixture.release) == searched
    assert links.has_items and links.option_count == 1


async def test_notes_that_flash_past_are_not_searched_for_backlinks(
    reader: Reader, fixture: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``j`` held: each note shows for a moment, shorter than the wait before its search; only the
    note it stops on is searched, and it has its backlinks once that search has ended."""
    viewer, pilot, asked = reader.viewer, reader.pilot, reader.asked
    await until(pilot, lambda: asked == [fixture.release])
    # The notes passed over wait an hour: however slow the machine, the next one shows first.
    monkeypatch.setattr(backlinks_later, "DELAY", 3600.0)
    reader.app.workspace.query_one(NoteList).focus()
    for note_id in (fixture.meeting, fixture.groceries):
        await pilot.press("j")
        await reader.until_shown(note_id)
    # Not vacuous: before, Meeting notes and Groceries were searched as each showed.
    assert asked == [fixture.release]
    monkeypatch.setattr(backlinks_later, "DELAY", 0.01)  # the note j stops on: searched at once
    reader.gate.clear()
    await pilot.press("j")
    await until(pilot, lambda: asked == [fixture.release, fixture.ideas])
    # Its search is under way (held): the note shown is still due its backlinks. Asserting that
    # they are there as soon as the search starts was the flake this test had.
    view = await reader.until_shown(fixture.ideas)
    assert view.backlinks_due
    reader.gate.set()
    await until(pilot, lambda: viewer.view is not None and not viewer.view.backlinks_due)
    assert asked == [fixture.release, fixture.ideas]
    view = await reader.until_shown(fixture.ideas)
    assert [(link.id, link.kind) for link in view.links] == [(fixture.release, "out")]
