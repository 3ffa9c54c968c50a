"""``*`` marks every note the filtered list holds, not only the first page of them that is drawn.

Filtered to "log", the list said "150 of 155" but drew the first 100 matches; ``*`` marked those 100
("150 of 155 · 100 marked") and `t` tagged 100 notes, though the person had asked for all of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.integration.test_ui_filter_find import running, titles
from tests.integration.test_ui_reader_images import screen_text
from tests.integration.ui_support import Fixture, open_services, until
from textual.widgets import Input

from noted.models import ACTOR_IMPORT, ACTOR_USER, NoteMeta
from noted.ops import notes as ops
from noted.services import Services
from noted.store.protocol import NoteOrder
from noted.ui.data import PAGE_SIZE, NoteSource, SourceKind
from noted.ui.messages import StoreChanged
from noted.ui.widgets.notebook_tree import NotebookTree


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root)
    yield services
    services.close()


async def test_star_marks_every_match_of_the_filter_and_triage_acts_on_them_all(
    fixture: Fixture, services: Services
) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        await pilot.press("slash", *"log", "enter")
        await until(pilot, lambda: app.focused is notes and "150 of 155" in str(notes.border_title))
        assert len(notes.rows) == PAGE_SIZE  # the first page of the matches is drawn
        await pilot.press("asterisk")
        # Not vacuous: the 50 matches past the first page were left unmarked.
        await until(pilot, lambda: len(notes.marked) == 150, what="every match marked")
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press(*"batch", "enter")
        logs = [row.meta.id for row in notes.filter.matches]  # every match, drawn or not
        assert len(logs) == 150
        store = services.store

        def tagged() -> int:
            return sum("batch" in tags for tags in store.note_tag_titles(logs).values())

        await until(pilot, lambda: tagged() == 150, what="every match tagged")
        await until(pilot, lambda: not notes.marked)  # a triage action clears the marks
        await pilot.press("asterisk")
        await until(pilot, lambda: len(notes.marked) == 150)
        await pilot.press("asterisk")  # all marked: none
        await until(pilot, lambda: not notes.marked)
        assert len(titles(notes)) == PAGE_SIZE  # marks are on notes: nothing had to be drawn for them


async def test_marks_belong_to_notes_and_survive_clearing_the_filter_and_sorting(
    fixture: Fixture, services: Services
) -> None:
    """Marks past the first page were dropped: ``/log⏎ * Esc`` left only the marked notes of the
    restored first page marked (the title said "… marked" of those), and ``t`` tagged only them."""
    async with running(fixture, services) as (app, pilot, notes):
        await pilot.press("slash", *"log", "enter")
        await until(pilot, lambda: app.focused is notes and "150 of 155" in str(notes.border_title))
        await pilot.press("asterisk")
        await until(pilot, lambda: len(notes.marked) == 150)
        logs = {row.meta.id for row in notes.filter.matches}
        await pilot.press("escape")  # the filter goes; the list shows its first page again
        await until(pilot, lambda: not notes.filter.active and len(notes.rows) == PAGE_SIZE)
        # Not vacuous: some marked notes are not loaded now (a page of 100 of the 155 notes).
        assert logs - {row.meta.id for row in notes.rows}
        assert set(notes.marked) == logs and "150 marked" in str(notes.border_title)
        await pilot.press("s")  # another sort reads the rows again: the marks stay on their notes
        await until(pilot, lambda: notes.order is NoteOrder.TITLE and titles(notes) == sorted(titles(notes)))
        assert set(notes.marked) == logs
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press(*"sorted", "enter")
        store = services.store

        def tagged() -> set[str]:
            return {note for note, tags in store.note_tag_titles(list(logs)).items() if "sorted" in tags}

        await until(pilot, lambda: tagged() == logs, what="every marked note tagged, loaded or not")
        await until(pilot, lambda: not notes.marked)


async def test_star_without_a_filter_marks_every_note_of_the_list_not_only_the_loaded_page(
    fixture: Fixture, services: Services
) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        assert notes._has_more and len(notes.rows) == PAGE_SIZE  # 155 notes, 100 loaded
        await pilot.press("asterisk")
        await until(pilot, lambda: len(notes.marked) == 155, what="every note of the list marked")
        assert "155 marked" in str(notes.border_title)
        assert len(notes.rows) == PAGE_SIZE  # marked without drawing them all
        await pilot.press("asterisk")  # all marked: none
        await until(pilot, lambda: not notes.marked)
        await pilot.press("space")  # one marked: * marks the rest
        await pilot.press("asterisk")
        await until(pilot, lambda: len(notes.marked) == 155)


async def test_a_narrow_list_title_keeps_the_marked_count_in_sight(
    fixture: Fixture, services: Services
) -> None:
    """At 120 columns the list's title lost its marked count: ``filter: log`` alone while
    filtering, ``All notes · 155 · 150 marke…`` cut at the edge after it."""
    async with running(fixture, services) as (app, pilot, notes):
        await pilot.press("slash", *"log", "enter")
        await until(pilot, lambda: app.focused is notes and "150 of 155" in str(notes.border_title))
        await pilot.press("asterisk")
        await until(pilot, lambda: "─ 150 marked · filter: log ─" in screen_text(app))
        await pilot.press("escape")
        # Not vacuous: the whole title, with " · by updated", does not fit the pane's top edge.
        assert notes.outer_size.width - 6 < len("All notes · 155 · 150 marked · by updated")
        await until(pilot, lambda: "─ All notes · 155 · 150 marked ─" in screen_text(app))


async def test_the_marked_count_stays_whole_when_the_name_and_count_are_long(
    fixture: Fixture, services: Services
) -> None:
    """With 10,000 notes at 120 columns the title read ``All notes · 10,000 · 729 mark…``: the name
    and the count of notes give way first, the count of marked notes (what triage acts on) stays
    whole; while filtering, the words typed are cut after it. A long notebook name stands in for
    the long counts here."""
    long_name = "Quarterly operations logbook"
    services.store.update_folder(fixture.home, title=long_name, actor=ACTOR_IMPORT)
    async with running(fixture, services) as (app, pilot, notes):
        app.workspace.query_one(NotebookTree).select_source(
            NoteSource(SourceKind.FOLDER, fixture.home, long_name)
        )
        await until(
            pilot, lambda: notes.source.id == fixture.home and not notes._loading and bool(notes.rows)
        )
        await pilot.press("asterisk")
        await until(pilot, lambda: len(notes.marked) > 150, what="every note of the notebook marked")
        marked = f"{len(notes.marked)} marked"
        # Not vacuous: name, count and marks do not fit the pane's top edge at 120 columns.
        assert notes.outer_size.width - 6 < len(f"{long_name} · 155 · {marked}")
        await until(pilot, lambda: f" {marked} ─" in screen_text(app))
        # Not vacuous either: "151 marked · filter: logbook entries" does not fit, and the words went first.
        await pilot.press("slash", *"logbook entries", "enter")
        await until(pilot, lambda: app.focused is notes and "filter: log" in str(notes.border_title))
        await until(pilot, lambda: f"─ {marked} · filter: log" in screen_text(app))


async def test_a_marked_note_that_leaves_a_partly_loaded_list_is_no_longer_marked(
    fixture: Fixture, services: Services
) -> None:
    """Only a list read whole forgot the marks of notes that left it: in a list of 156 with its
    first 100 loaded, a marked note moved to the trash from elsewhere stayed marked, and ``t``
    would have tagged it. Not vacuous: a marked note past the loaded rows, still in the list,
    stays marked, so the check is by the list's notes and not by the rows loaded."""
    async with running(fixture, services) as (app, pilot, notes):
        await until(pilot, lambda: app.focused is notes and len(notes.rows) == PAGE_SIZE)
        assert notes._has_more
        await pilot.press("space", "space")
        first, second = list(notes.marked)
        unloaded = services.store.list_notes(order=NoteOrder.UPDATED, limit=1, offset=PAGE_SIZE + 20)[0]
        notes.marked[unloaded.id] = unloaded  # as ``*`` marks notes not loaded yet
        ops.trash_note(services.store, first, actor=ACTOR_USER)
        notes.refresh_notes()  # as the change follower does (it is off here)
        await until(pilot, lambda: first not in [row.meta.id for row in notes.rows])
        await until(pilot, lambda: first not in notes.marked, what="the trashed note unmarked")
        assert set(notes.marked) == {second, unloaded.id} and "2 marked" in str(notes.border_title)


async def test_the_mark_check_reads_the_notes_that_changed_not_the_whole_list(
    fixture: Fixture, services: Services
) -> None:
    """With marks past the loaded rows (``*``), every refresh read the whole list again (up to
    50,000 notes) to see whether a marked note had left it, even when the change touched no
    marked note. Now the check reads only the marked notes the change names: no listing is
    longer than the page the refresh reads. Not vacuous: a marked note past the loaded rows that
    the change trashed is still unmarked, and one that stays in the list stays marked."""
    async with running(fixture, services) as (app, pilot, notes):
        assert notes._has_more
        await pilot.press("asterisk")
        await until(pilot, lambda: len(notes.marked) == 155)
        store = services.store
        past = store.list_notes(order=NoteOrder.UPDATED, limit=2, offset=PAGE_SIZE + 20)
        limits: list[int | None] = []
        listing = store.list_notes

        def list_notes(**asked: Any) -> list[NoteMeta]:  # the real store, its listings counted
            limits.append(asked.get("limit"))
            return listing(**asked)

        store.list_notes = list_notes  # type: ignore[method-assign]
        ops.trash_note(store, past[0].id, actor=ACTOR_USER)
        changed = StoreChanged()
        changed.note_ids = {past[0].id, past[1].id}
        app.workspace.store_changed(changed)  # as the change follower does (it is off here)
        await until(pilot, lambda: past[0].id not in notes.marked, what="the trashed note unmarked")
        await until(pilot, lambda: bool(limits) and not notes._loading)
        await pilot.pause()
        assert past[1].id in notes.marked and len(notes.marked) == 154
        assert limits and max(limit or 0 for limit in limits) <= PAGE_SIZE + 1, limits
