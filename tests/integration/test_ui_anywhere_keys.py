"""F2 (settings) and F3 (changes to review) work over any screen, as the README says: over a
prompt, which keeps what is typed in it, over the Changes view and over the keys' help.

Not vacuous: a modal screen stopped the app's keys, so F2 and F3 did nothing over a prompt, the
Changes view or a dialog (the search screen alone repeated F2).
"""

from __future__ import annotations

from tests.integration.ui_support import Fixture, open_services, until
from textual.message import Message
from textual.notifications import Notify
from textual.widgets import Input

from noted.ui.app import NotedApp
from noted.ui.dialogs.keys import KeysOverlay
from noted.ui.dialogs.prompt import TextPrompt
from noted.ui.screens.changes import ChangesScreen
from noted.ui.screens.settings import SettingsScreen
from noted.ui.widgets.note_list import NoteList
from noted.ui.workspace import Workspace


async def test_f2_and_f3_open_over_a_prompt_that_keeps_what_is_typed(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            notes = app.workspace.query_one(NoteList)
            await until(pilot, lambda: len(notes.rows) == 4)
            notes.select_note(fixture.meeting)
            await pilot.press("t")
            await until(pilot, lambda: isinstance(app.screen, TextPrompt))
            prompt = app.screen
            await pilot.press(*"urgent")
            for key, kind in (("f2", SettingsScreen), ("f3", ChangesScreen)):
                await pilot.press(key)
                await until(pilot, lambda kind=kind: isinstance(app.screen, kind))  # type: ignore[misc]
                assert app.screen_stack[-2] is prompt
                await pilot.press("escape")
                await until(pilot, lambda: app.screen is prompt)
                assert prompt.query_one(Input).value == "urgent"
            await pilot.press("enter")
            await until(
                pilot, lambda: "urgent" in {t.title for t in services.store.note_tags(fixture.meeting)}
            )
    finally:
        services.close()


async def test_f2_over_the_changes_view_and_f3_there_says_where_it_is(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    said: list[str] = []  # every notification, also one that timed out before it was looked for

    def hook(message: Message) -> None:
        if isinstance(message, Notify):
            said.append(message.notification.message)

    try:
        async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
            await until(pilot, lambda: len(app.workspace.query_one(NoteList).rows) == 4)
            await pilot.press("f3")
            await until(pilot, lambda: isinstance(app.screen, ChangesScreen))
            changes = app.screen
            await pilot.press("f2")
            await until(pilot, lambda: isinstance(app.screen, SettingsScreen))
            settings = app.screen
            await pilot.press("f3")  # the view is under the settings: it cannot show twice
            await until(pilot, lambda: any("Changes view is open under this screen" in m for m in said))
            assert app.screen is settings and app.screen_stack[-2] is changes
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is changes)
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, Workspace))
    finally:
        services.close()


async def test_f2_over_the_keys_help_closes_it_and_opens_the_settings(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: len(app.workspace.query_one(NoteList).rows) == 4)
            await pilot.press("f1")
            await until(pilot, lambda: isinstance(app.screen, KeysOverlay))
            await pilot.press("f2")
            await until(pilot, lambda: isinstance(app.screen, SettingsScreen))
            assert not any(isinstance(s, KeysOverlay) for s in app.screen_stack)
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, Workspace))
    finally:
        services.close()
