"""The editor's unsaved text is never hidden from the person nor overruled by the app itself.

Pilot tests on the sample profile, at 80×24 (where the layout hides panes) and 120×40. The other
side of a conflict is written through a second store on the same database file, as ``noted edit``
in another shell would; the chat runs the offline demo model (``ai.provider = "fake"``), which
appends the question to the open note as a to-do line. Each test asserts what the store holds,
so a lost side fails it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from tests.integration.test_ui_conflicts import MINE, THEIRS, change_elsewhere
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import TextArea

from noted.ui.app import NotedApp
from noted.ui.dialogs.conflict import ConflictView
from noted.ui.widgets.note_editor import NoteEditor
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer
from noted.ui.widgets.outline import OutlineList

SIZES = [(80, 24), (120, 40)]


@pytest.fixture(params=SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
async def pilot(request: pytest.FixtureRequest, fixture: Fixture) -> AsyncIterator[Pilot[None]]:
    services = open_services(fixture.root, ai_enabled="true", ai_provider="fake")
    services.settings.set("ai.tool.edit_current.enabled", True)  # the editor tools: the demo appends
    app = NotedApp(services)  # with the change feed's follower: the editor hears of writes elsewhere
    try:
        async with app.run_test(size=request.param) as pilot:
            await ready(pilot)
            yield pilot
    finally:
        services.close()


def app_of(pilot: Pilot[None]) -> NotedApp:
    assert isinstance(pilot.app, NotedApp)
    return pilot.app


def on_screen(widget: Widget) -> bool:
    shown = all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))
    return shown and widget.region.area > 0


def text_area(app: NotedApp) -> TextArea:
    return app.workspace.query_one("#editor-body", TextArea)


async def edit_and_type(pilot: Pilot[None], text: str = MINE) -> NoteEditor:
    """Open Release plan (the list's first note) in the editor and type ``text`` at its start."""
    app = app_of(pilot)
    app.workspace.query_one(NoteList).focus()
    await pilot.press("g", "e")
    editor = app.workspace.query_one(NoteEditor)
    await until(pilot, lambda: editor.note is not None and editor.has_focus_within)
    await pilot.press("ctrl+home", *text)
    assert editor.dirty
    return editor


async def editor_changed_elsewhere(pilot: Pilot[None], fixture: Fixture) -> NoteEditor:
    """MINE typed in the editor, while another process changes the note (the header says so)."""
    editor = await edit_and_type(pilot)
    change_elsewhere(fixture)
    header = editor.query_one("#editor-header")
    await until(pilot, lambda: "changed elsewhere" in str(header.render()))
    return editor


def copies(app: NotedApp) -> list[str]:
    """The titles of Release plan's conflict copies."""
    return [m.title for m in app.services.store.list_notes() if m.title.startswith("Release plan (conflict")]


def in_front(app: NotedApp) -> bool:
    """The editor's text has the focus, on screen."""
    return app.focused is text_area(app) and on_screen(text_area(app))


# 1. The editor's text is never left out of reach ---------------------------------------------


async def test_closing_the_chat_gives_the_focus_back_to_the_editor(
    pilot: Pilot[None], fixture: Fixture
) -> None:
    # Before: the focus went to the reader hidden behind the editor (80×24) or to the list, so
    # the next keys went to the reader (h opened History) and Esc hid the editor for good.
    app = app_of(pilot)
    editor = await editor_changed_elsewhere(pilot, fixture)
    await pilot.press("ctrl+t")
    await until(pilot, lambda: app.workspace.chat is not None and app.workspace.chat.has_focus_within)
    await pilot.press("ctrl+t")
    await until(pilot, lambda: in_front(app))
    await pilot.press(*"more ")
    assert editor.body_text.startswith(f"{MINE}more ")
    assert app.services.store.get_note(fixture.release).body.startswith(THEIRS)  # nothing settled


async def test_closing_the_chat_gives_the_focus_back_to_a_heading_of_the_outline(
    pilot: Pilot[None], fixture: Fixture
) -> None:
    app = app_of(pilot)
    await pilot.press("g", "enter", "o")
    outline = app.workspace.query_one(OutlineList)
    await until(pilot, lambda: app.focused is outline)
    await pilot.press("ctrl+t")
    await until(pilot, lambda: app.workspace.chat is not None and app.workspace.chat.has_focus_within)
    await pilot.press("ctrl+t")
    await until(pilot, lambda: app.focused is outline and on_screen(outline))


async def test_a_switch_the_editor_refuses_brings_the_editor_to_the_front(
    pilot: Pilot[None], fixture: Fixture
) -> None:
    # Before: at 80×24 the list stayed in front and Enter opened nothing (the editor, holding the
    # text, was out of reach); now the text is put in front of the person, still unsaved.
    app = app_of(pilot)
    editor = await editor_changed_elsewhere(pilot, fixture)
    app.workspace.action_back()  # to the list (the palette's "Focus notes" does this)
    await until(pilot, lambda: app.focused is app.workspace.query_one(NoteList))
    await pilot.press("j", "enter")  # another note
    await until(pilot, lambda: in_front(app))
    assert editor.note is not None and editor.note.id == fixture.release
    assert editor.dirty and editor.body_text.startswith(MINE)
    assert not isinstance(app.screen, ConflictView)  # a key meant for the list settles nothing
    assert app.services.store.get_note(fixture.release).body.startswith(THEIRS) and not copies(app)


@pytest.mark.parametrize("key", ["enter", "e"])
async def test_enter_or_e_on_the_note_being_edited_goes_to_the_editor(
    pilot: Pilot[None], fixture: Fixture, key: str
) -> None:
    # Before: both did nothing (only Tab reached the editor, and at 80×24 not even that).
    app = app_of(pilot)
    editor = await edit_and_type(pilot)
    app.workspace.action_back()
    notes = app.workspace.query_one(NoteList)
    await until(pilot, lambda: app.focused is notes)
    assert notes.highlighted_id == fixture.release
    await pilot.press(key)
    await until(pilot, lambda: in_front(app))
    assert editor.body_text.startswith(MINE)  # the same text, not the note read again


async def test_ctrl_s_from_the_list_shows_the_editor_and_its_conflict(
    pilot: Pilot[None], fixture: Fixture
) -> None:
    app = app_of(pilot)
    editor = await editor_changed_elsewhere(pilot, fixture)
    app.workspace.action_back()
    await until(pilot, lambda: app.focused is app.workspace.query_one(NoteList))
    await pilot.press("ctrl+s")
    await until(pilot, lambda: isinstance(app.screen, ConflictView))
    await pilot.press("escape")  # Back to editing: to the editor, not to the list
    await until(pilot, lambda: not isinstance(app.screen, ConflictView) and in_front(app))
    assert editor.dirty and editor.body_text.startswith(MINE) and not copies(app)


# 2. The assistant builds on the editor's text -------------------------------------------------


async def test_the_assistant_edits_the_text_in_the_editor_and_no_conflict_follows(
    pilot: Pilot[None], fixture: Fixture
) -> None:
    # Before: the model's edit was based on the stored note, so the person's next save met the
    # app's own assistant as a change made elsewhere.
    app = app_of(pilot)
    editor = await edit_and_type(pilot, "UNSAVED ")
    await pilot.press("ctrl+t")
    await until(pilot, lambda: app.workspace.chat is not None and app.workspace.chat.has_focus_within)
    await pilot.press(*"buy cumin", "enter")
    await until(pilot, lambda: bool(app.workspace.query(".edit-card.-asking")))
    await pilot.press("y")
    store = app.services.store
    await until(pilot, lambda: "buy cumin" in store.get_note(fixture.release).body)
    body = store.get_note(fixture.release).body
    assert body.startswith("UNSAVED Plans") and "buy cumin" in body  # both, in that order
    actors = [r.actor for r in store.note_history(fixture.release)]
    assert actors[0].startswith("assistant:") and actors[1] == "user"  # each its own revision
    # The editor takes the new text (nothing of the person's is unsaved), without taking the focus
    # (at 80x24 that closed the chat) and with its cursor where the person left it.
    await until(pilot, lambda: "buy cumin" in editor.body_text and not editor.dirty)
    assert app.workspace.chat is not None and app.workspace.chat.has_focus_within
    assert text_area(app).cursor_location == (0, len("UNSAVED "))
    await pilot.press("ctrl+t")
    await until(pilot, lambda: in_front(app))
    await pilot.press(*"more ", "ctrl+s")
    await until(pilot, lambda: not editor.dirty)
    assert not isinstance(app.screen, ConflictView) and not copies(app)
    assert store.get_note(fixture.release).body.startswith("UNSAVED more Plans")


# 4. The editor opens where the person was reading ---------------------------------------------


async def test_e_opens_the_editor_at_the_heading_jumped_to(pilot: Pilot[None], fixture: Fixture) -> None:
    # Before: the cursor and the scroll were at the top of the note.
    app = app_of(pilot)
    await pilot.press("g", "enter")
    viewer = app.workspace.query_one(NoteViewer)
    await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == fixture.release)
    await pilot.press("o", "g", "j", "j", "j", "enter")  # outline → "2 Schedule" → go
    page = app.workspace.query_one(NoteScroll)
    await until(
        pilot, lambda: page.scroll_y > 0 and page.line_text(round(page.scroll_y)).strip() == "Schedule"
    )
    await pilot.press("e")
    area = text_area(app)
    await until(pilot, lambda: app.focused is area)
    schedule = area.text.splitlines().index("# Schedule")
    assert area.cursor_location == (schedule, 0)
    # The heading is the editor's top row (once the editor has its width).
    top = area.wrapped_document.location_to_offset((schedule, 0)).y
    await until(pilot, lambda: round(area.scroll_y) == top > 0)


async def test_e_opens_the_editor_at_the_first_line_in_view(pilot: Pilot[None], fixture: Fixture) -> None:
    # Scrolled into the schedule's long paragraph (its lines joined, so the top row starts in the
    # middle of one): the cursor goes to the line that row shows, not to the top.
    app = app_of(pilot)
    await pilot.press("g", "enter")
    viewer = app.workspace.query_one(NoteViewer)
    await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == fixture.release)
    page = app.workspace.query_one(NoteScroll)
    # A row some way into the paragraph that starts in the middle of a line: "… scrolling. Line 5 of"
    rows = [page.line_text(row).strip() for row in range(page.line_count)]
    top = next(n for n, text in enumerate(rows) if "Line 5 " in text and not text.startswith("Line"))
    page.scroll_to(y=top, animate=False, immediate=True)
    await until(pilot, lambda: round(page.scroll_y) == top)
    page.focus()
    await pilot.press("e")
    area = text_area(app)
    await until(pilot, lambda: app.focused is area)
    row, column = area.cursor_location
    head = rows[top].partition("Line 5 ")[0].strip()  # the end of line 4, shown first
    assert column == 0 and area.document.get_line(row).startswith("Line 4 ")
    assert area.document.get_line(row).endswith(head) and area.document.get_line(row + 1).startswith(
        "Line 5 "
    )


async def test_text_typed_while_the_change_waits_is_saved_before_the_change_lands(
    pilot: Pilot[None], fixture: Fixture
) -> None:
    # Before: the text typed between sending and y was left unsaved under the model's change, so
    # the editor then said "changed elsewhere" and its next save opened the conflict view.
    app = app_of(pilot)
    editor = await edit_and_type(pilot, "FIRST ")
    await pilot.press("ctrl+t")
    await until(pilot, lambda: app.workspace.chat is not None and app.workspace.chat.has_focus_within)
    await pilot.press(*"buy cumin", "enter")
    await until(pilot, lambda: bool(app.workspace.query(".edit-card.-asking")))
    await pilot.press("ctrl+t")  # back to the editor while the change waits
    await until(pilot, lambda: in_front(app))
    await pilot.press(*"LATER ")
    await pilot.press("ctrl+t")
    await until(pilot, lambda: app.workspace.chat is not None and app.workspace.chat.has_focus_within)
    app.workspace.query_one(".edit-card.-asking").focus()
    await pilot.press("y")
    store = app.services.store
    await until(pilot, lambda: "buy cumin" in store.get_note(fixture.release).body)
    body = store.get_note(fixture.release).body
    assert body.startswith("FIRST LATER Plans") and "buy cumin" in body  # both, the person's first
    actors = [r.actor for r in store.note_history(fixture.release)]
    assert actors[0].startswith("assistant:") and actors[1] == "user"  # the person's save, then the change
    await until(pilot, lambda: "buy cumin" in editor.body_text and not editor.dirty)
    header = editor.query_one("#editor-header")
    assert "changed elsewhere" not in str(header.render())
    await pilot.press("ctrl+t")
    await until(pilot, lambda: in_front(app))
    await pilot.press(*"more ", "ctrl+s")
    await until(pilot, lambda: not editor.dirty)
    assert not isinstance(app.screen, ConflictView) and not copies(app)


async def test_a_line_typed_beside_the_waiting_change_is_merged_and_a_clash_is_worded_for_the_person(
    pilot: Pilot[None], fixture: Fixture
) -> None:
    # Before: the person's change of the last line, next to where the change appends, refused it
    # as a change "by someone else"; only a line both changed refuses it, and the card says it was
    # the person's own typing.
    app = app_of(pilot)
    store = app.services.store
    await edit_and_type(pilot, "FIRST ")

    async def ask_then_type(question: str, line: int, *keys: str) -> None:
        await until(pilot, lambda: app.workspace.chat is None or not app.workspace.chat.running)
        if in_front(app):
            await pilot.press("ctrl+t")
        await until(pilot, lambda: app.workspace.chat is not None and app.workspace.chat.has_focus_within)
        await pilot.press(*question, "enter")
        await until(pilot, lambda: bool(app.workspace.query(".edit-card.-asking")))
        await pilot.press("ctrl+t")  # back to the editor while the change waits
        await until(pilot, lambda: in_front(app))
        area = text_area(app)
        area.move_cursor((area.document.line_count + line, 0))
        await pilot.press("end", *keys)
        await pilot.press("ctrl+t")
        await until(pilot, lambda: app.workspace.chat is not None and app.workspace.chat.has_focus_within)
        app.workspace.query_one(".edit-card.-asking").focus()
        await pilot.press("y")

    await ask_then_type("buy cumin", -2, *" U3")  # the last line (the text ends in a newline)
    await until(pilot, lambda: "buy cumin" in store.get_note(fixture.release).body)
    body = store.get_note(fixture.release).body
    assert "Task 39 of the second week. U3\n" in body and body.startswith("FIRST Plans")
    # The demo's line was the last, without a newline: a line the person adds after it is where
    # the next one would go, a clash.
    await ask_then_type("buy mace", -1, "enter", *"MINE")
    await until(pilot, lambda: bool(app.workspace.query(".edit-card.-refused")))
    card = app.workspace.query(".edit-card.-refused").last()
    said = str(card.query_one(".card-status").render())
    assert "you changed the same lines in the editor" in said and "someone else" not in said
    assert store.get_note(fixture.release).body.endswith("buy cumin (added by the offline demo)\nMINE")
