"""The app's editor on a Joplin note whose title holds a line break (shown as ␊): a body edit saved
with Ctrl+S keeps the title as Joplin has it.

noted refuses such a title itself, but Joplin takes one, so it comes from Joplin. In the middle
of the title the break always survived; at its end, the editor trimmed it away, so the save
renamed the note unasked. Each case reads the title back from Joplin after the save.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from tests.integration.ui_support import open_services, until
from tests.support.joplin import shared_server
from textual.message import Message

from noted.ui.app import NotedApp
from noted.ui.widgets.note_editor import NoteEditor
from noted.ui.widgets.note_list import NoteList


@pytest.mark.parametrize("end", ["\nplan", " plan\n"], ids=["inside", "at-the-end"])
async def test_a_body_edit_saves_a_joplin_title_with_a_break_unchanged(tmp_path: Path, end: str) -> None:
    joplin = shared_server(tmp_path.parent)
    title = f"Release {secrets.token_hex(3)}{end}"
    folder = joplin.api("POST", "/folders", {"title": f"Titles {secrets.token_hex(3)}"})["id"]
    note = joplin.api("POST", "/notes", {"title": title, "body": "Plans.", "parent_id": folder})["id"]
    services = open_services(
        tmp_path / "profile", backend="joplin", joplin_url=joplin.url, joplin_token=joplin.token
    )
    seen: list[Message] = []
    try:
        app = NotedApp(services)
        async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
            notes = app.workspace.query_one(NoteList)
            await until(pilot, lambda: any(r.meta.id == note for r in notes.rows), what="the note listed")
            await pilot.press("g", "e")  # the newest note, first in the list
            editor = app.workspace.query_one(NoteEditor)
            await until(pilot, lambda: editor.note is not None and editor.has_focus_within, what="the editor")
            assert editor.note is not None and editor.note.id == note and editor.note.title == title
            await pilot.press(*"More. ")
            await pilot.press("ctrl+s")
            await until(pilot, lambda: any(isinstance(m, NoteEditor.Saved) for m in seen), what="the save")
        saved = joplin.api("GET", f"/notes/{note}", params={"fields": "title,body"})
        assert saved["body"].startswith("More. Plans.")
        assert saved["title"] == title
    finally:
        services.close()
