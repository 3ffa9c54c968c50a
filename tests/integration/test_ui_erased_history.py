"""The history of a note erased outside noted, in the app: the CLI (``noted history <id|title>``),
MCP and the chat reached it (``noted.ops.erased``), the app did not (its history screen opened only
for the open note). The palette's "History of an erased note…" lists the erased notes whose
revisions noted kept, and opens the chosen one's history, where ``r`` writes it again. On a real
Joplin: where noted erases a note itself (every backend's empty trash) nothing is kept."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from tests.integration.ui_support import open_services, until
from tests.support.joplin import JoplinServer, shared_server
from textual.command import CommandList, CommandPalette
from textual.widgets import Label, OptionList

from noted.models import ACTOR_USER, NoteDraft, NotePatch
from noted.store.joplin import JoplinStore
from noted.ui.app import NotedApp
from noted.ui.dialogs.confirm import Confirm
from noted.ui.screens.history import ErasedPicker, HistoryScreen
from noted.ui.widgets.notebook_tree import NotebookTree

pytestmark = pytest.mark.slow


async def test_the_palette_opens_the_history_of_an_erased_note_and_restores_it(tmp_path: Path) -> None:
    joplin: JoplinServer = shared_server(tmp_path.parent)
    profile = tmp_path / "noted"
    profile.mkdir()
    title = f"Plan {secrets.token_hex(3)}"
    store = JoplinStore.open(profile, url=joplin.url, token=joplin.token)
    try:
        folder = store.create_folder(f"Erased {secrets.token_hex(3)}", actor=ACTOR_USER)
        note = store.create_note(NoteDraft("Plan", "first text\n", folder.id), actor=ACTOR_USER)
        store.update_note(note.id, NotePatch(title=title, body="second text\n"), actor=ACTOR_USER)
        kept = store.create_note(NoteDraft("Kept", "here\n", folder.id), actor=ACTOR_USER)  # not erased
    finally:
        store.close()
    joplin.api("DELETE", f"/notes/{note.id}", params={"permanent": "1"})
    services = open_services(profile, backend="joplin", joplin_url=joplin.url, joplin_token=joplin.token)
    try:
        app = NotedApp(services, background=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: bool(app.workspace.query(NotebookTree)))
            await until(pilot, lambda: app.workspace.query_one(NotebookTree).ready)
            await pilot.press("ctrl+p")
            await until(pilot, lambda: isinstance(app.screen, CommandPalette))
            await pilot.press(*"erased note")

            def offered() -> bool:
                option = app.screen.query_one(CommandList).highlighted_option
                return option is not None and str(option.prompt).startswith("History of an erased note")

            await until(pilot, offered)
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ErasedPicker) and bool(app.screen.found))
            picker = app.screen
            assert isinstance(picker, ErasedPicker)
            assert note.id in picker.found and kept.id not in picker.found  # not vacuous: a live note
            await pilot.press(*title)
            await until(pilot, lambda: picker.query_one(OptionList).option_count == 1)
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.loads > 0)
            screen = app.screen
            assert isinstance(screen, HistoryScreen)
            assert [r.title for r in screen.revisions] == [title, "Plan"]
            heading = str(screen.query_one("#history-title", Label).render())
            assert heading == f"History of “{title}” (erased) · 2 revisions", heading
            await pilot.press("r")  # the newest: an erased note's is not "as it is now"
            await until(pilot, lambda: isinstance(app.screen, Confirm))
            await pilot.press("y")
            await until(pilot, lambda: screen.restored and screen.loads > 1)
            heading = str(screen.query_one("#history-title", Label).render())
            assert heading == f"History of “{title}” · 3 revisions", heading  # no longer erased
        back = joplin.api("GET", f"/notes/{note.id}", params={"fields": "title,body,parent_id"})
        assert (back["title"], back["body"], back["parent_id"]) == (title, "second text\n", folder.id)
    finally:
        services.close()
