"""The smaller points of the second walk-through (issue 39, item 9), each on the real app.

The list's header keeps the marked count when it is cut; the settings filter's Enter prefers a
setting's name to its help; the links list offers Save as / Remove only on attachments.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.integration.test_ui_app import Running
from tests.integration.test_ui_app import running as running  # noqa: PLC0414 (a fixture)
from tests.integration.test_ui_keys import open_settings
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.widgets import Input

from noted.services import Services
from noted.settings.handles import AI_MODEL
from noted.ui import zoom
from noted.ui.app import NotedApp
from noted.ui.dialogs.picker import NotebookPicker
from noted.ui.dialogs.prompt import TextPrompt
from noted.ui.messages import OpenNote
from noted.ui.screens.settings_sections import widget_id
from noted.ui.widgets.key_bar import KeyBar
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteViewer
from noted.ui.widgets.outline import LinkList


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root)
    yield services
    services.close()


def top_line(app: NotedApp, widget: NoteList) -> str:
    """The widget's first row as drawn on screen (its border, with the title in it)."""
    region = app.screen._compositor.find_widget(widget).visible_region
    strips = app.screen._compositor.render_strips()
    return strips[region.y].crop(region.x, region.right).text


async def test_the_list_header_keeps_the_marked_count_when_it_is_cut(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:  # the list is some 34 columns wide here
        await ready(pilot)
        notes = app.workspace.query_one(NoteList)
        notes.focus()
        await pilot.press("space", "j", "space")
        await until(pilot, lambda: len(notes.marked) == 2)
        await pilot.pause()
        # Not vacuous: the header was "All notes · 4 · by updated · 2 marked", cut after "updated".
        assert "2 marked" in top_line(app, notes), top_line(app, notes)


async def test_enter_in_the_settings_filter_goes_to_the_setting_named_so(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#settings-filter", Input).focus()
        await pilot.press(*"model", "enter")
        # Not vacuous: *Use the assistant* (whose help mentions a model) comes first on the screen.
        target = screen.query_one(f"#{widget_id(AI_MODEL.key)}")
        await until(pilot, lambda: app.focused is target)


async def test_links_to_notes_do_not_offer_save_as_or_remove(running: Running, fixture: Fixture) -> None:
    running.app.post_message(OpenNote(fixture.ideas))  # Ideas links to Release plan: no attachment
    viewer = running.q(NoteViewer)
    await running.until(lambda: viewer.view is not None and viewer.view.note.id == fixture.ideas)
    viewer.focus()
    await running.pilot.press("a")
    links = viewer.query_one(LinkList)
    await running.until(lambda: links.has_focus and links.highlighted == 0)
    await running.pilot.pause()
    bar = running.app.workspace.query_one(KeyBar).render().plain  # type: ignore[union-attr]
    # Not vacuous: the bar offered "s Save as  d Remove" on the link, and pressing them said no.
    assert "Save as" not in bar and "Remove" not in bar, bar
    assert not links.check_action("save", ()) and not links.check_action("remove", ())


# Zoom a pane ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_plus_zooms_the_focused_pane_and_a_move_elsewhere_ends_it(
    services: Services, fixture: Fixture, size: tuple[int, int]
) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        workspace = app.workspace
        notes, viewer = workspace.query_one(NoteList), workspace.query_one(NoteViewer)
        reader = workspace.query_one("#reader")
        await pilot.press("enter")  # the highlighted note, read
        await until(pilot, lambda: viewer.has_focus_within)
        await pilot.press("plus")
        await until(pilot, lambda: reader.region.width == size[0])  # the whole width, borders included
        assert not workspace.shows(notes) and zoom.zoomed(workspace) is workspace.query_one("#reader")
        await pilot.press("plus")  # again: shared as before
        # (below 110 columns the reader fills the screen anyway while a note is read)
        await until(
            pilot, lambda: zoom.zoomed(workspace) is None and (size[0] < 110 or workspace.shows(notes))
        )
        await pilot.press("plus", "escape")  # zoomed, then back to the list: the zoom ends
        await until(pilot, lambda: notes.has_focus and workspace.shows(notes))
        assert zoom.zoomed(workspace) is None
        notes.focus()
        await pilot.press("plus")  # the list zoomed; opening a note shows the reader
        await until(pilot, lambda: notes.region.width == size[0])
        await pilot.press("enter")
        await until(pilot, lambda: viewer.has_focus_within and workspace.shows(viewer))
        assert zoom.zoomed(workspace) is None


# Range marking -------------------------------------------------------------------------------------


async def test_v_then_j_and_k_marks_a_range_and_v_ends_it(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        notes = app.workspace.query_one(NoteList)
        notes.focus()
        ids = [row.meta.id for row in notes.rows]
        await pilot.press("G", "space")  # the last note marked on its own first: it stays marked
        await pilot.press("g", "v", "j", "j")
        await until(pilot, lambda: set(notes.marked) == {ids[0], ids[1], ids[2], ids[3]})
        await pilot.press("k")  # back up: the range shrinks, the mark made before it stays
        await until(pilot, lambda: set(notes.marked) == {ids[0], ids[1], ids[3]})
        assert "(v ends)" in str(notes.border_title)
        await pilot.press("v", "j", "j")  # ended: moving marks nothing more
        await pilot.pause()
        assert set(notes.marked) == {ids[0], ids[1], ids[3]} and "(v ends)" not in str(notes.border_title)


# Undo of triage ------------------------------------------------------------------------------------


async def test_z_undoes_the_last_tag_move_or_to_do_change(running: Running, fixture: Fixture) -> None:
    store = running.app.services.store
    notes = running.q(NoteList)

    async def settled() -> None:
        await running.until(lambda: not notes._loading and not notes.marked)
        await running.pilot.pause()

    notes.select_note(fixture.meeting)
    await running.pilot.press("t")
    await running.until(lambda: isinstance(running.app.screen, TextPrompt))
    await running.pilot.press(*"urgent, -work", "enter")
    await running.until(lambda: {t.title for t in store.note_tags(fixture.meeting)} == {"urgent"})
    await settled()
    await running.pilot.press("z")  # the tag added goes, the one taken off comes back
    await running.until(lambda: {t.title for t in store.note_tags(fixture.meeting)} == {"work"})
    await settled()

    notes.select_note(fixture.meeting)
    await running.pilot.press("m")
    await running.until(lambda: isinstance(running.app.screen, NotebookPicker))
    await running.pilot.press(*"home")
    await running.until(lambda: running.app.screen.query_one("OptionList").option_count == 1)  # type: ignore[attr-defined]
    await running.pilot.press("enter")
    await running.until(lambda: store.get_note(fixture.meeting).parent_id == fixture.home)
    await settled()
    await running.pilot.press("z")
    await running.until(lambda: store.get_note(fixture.meeting).parent_id == fixture.work)
    await settled()

    notes.select_note(fixture.groceries)  # a to-do, not done: done, then undone
    await running.pilot.press("c")
    await running.until(lambda: store.get_note(fixture.groceries).todo_completed > 0)
    await settled()
    await running.pilot.press("z")
    await running.until(lambda: store.get_note(fixture.groceries).todo_completed == 0)
    await settled()
    notes.select_note(fixture.ideas)  # a plain note made a to-do, then back
    await running.pilot.press("T")
    await running.until(lambda: store.get_note(fixture.ideas).is_todo)
    made = "Made 1 note into a to-do."  # not "to-dos"
    await running.until(lambda: any(n.message.startswith(made) for n in running.app._notifications))
    await settled()
    await running.pilot.press("z")
    await running.until(lambda: not store.get_note(fixture.ideas).is_todo)
    await settled()
    await running.pilot.press("z")  # once: nothing more to undo, and nothing changes
    await running.pilot.pause()
    assert not store.get_note(fixture.ideas).is_todo
