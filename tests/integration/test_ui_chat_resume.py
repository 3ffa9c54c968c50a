"""Resuming a saved chat in the pane (Pilot, real profile, scripted model): what the person saw before
is what they see again, a reply that ended in an error included, and the list of chats gives times.
"""

from __future__ import annotations

import re
import time

from tests.integration.test_ui_chat import (
    Host,
    ask,
    host,
    make_note,
    services,  # noqa: F401 (a fixture)
    settle,
)
from textual.widgets.option_list import Option

from noted.providers import CallTool, Fail, Reply
from noted.providers.fake import Turn
from noted.services import Services
from noted.ui.chat.edits import DiffView, EditCard
from noted.ui.chat.picker import ConversationPicker
from noted.ui.chat.views import AnswerView, NoticeView


async def test_a_reply_that_ended_in_an_error_is_shown_when_the_chat_is_resumed(services: Services) -> None:  # noqa: F811
    note = make_note(services)
    failing: list[Turn] = [[Reply("Half of it"), Fail("the server answered 500: boom", status=500)]]
    app, _ = host(services, failing, note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Tell me")
        await settle(pilot)
        assert any("boom" in n.message for n in app.query(NoticeView) if n.kind == "error")

    again = Host(services, None, note)  # the app opened again: the chat is read from the profile
    async with again.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        # Not vacuous: before, the resumed chat showed the question alone.
        errors = [n for n in again.query(NoticeView) if n.kind == "error"]
        assert len(errors) == 1 and "boom" in errors[0].message
        assert any(a.text.startswith("Half of it") for a in again.query(AnswerView))


async def test_the_list_of_chats_gives_the_time_of_day(services: Services) -> None:  # noqa: F811
    note = make_note(services)
    app, _ = host(services, [[Reply("One.")]], note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "First chat")
        await settle(pilot)
        await pilot.press("ctrl+r")
        picker = app.query_one(ConversationPicker)
        assert picker.shown
        option: Option = picker.get_option_at_index(0)
        saved = services.transcripts.recent(note_id=note)[0].updated_time / 1000
        # Not vacuous: before, only the date was shown, so two chats of one day looked alike.
        shown = re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", str(option.prompt))
        assert shown and shown.group() == time.strftime("%Y-%m-%d %H:%M", time.localtime(saved))


async def test_a_resumed_chat_keeps_its_change_cards_and_whether_they_were_undone(
    services: Services,  # noqa: F811
) -> None:
    services.settings.set("ai.tool.edit_current.enabled", True)
    services.settings.set("ai.approveWrites", False)
    note = make_note(services)
    first_run: list[Turn] = [
        [CallTool("editor_replace", {"anchor": "- milk", "text": "- oat milk"})],
        [Reply("Changed.")],
    ]
    second_run: list[Turn] = [
        [CallTool("editor_replace", {"anchor": "- tea", "text": "- green tea"})],
        [Reply("Again.")],
    ]
    app, _ = host(services, first_run, second_run, note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Oat milk please")
        await settle(pilot)
        await pilot.press("ctrl+z")  # the first change undone
        await settle(pilot)
        assert app.query_one(EditCard).has_class("-undone")
        await ask(pilot, "Green tea please")
        await settle(pilot)
        assert "green tea" in services.store.get_note(note).body

    again = Host(services, None, note)  # the app opened again: the chat is read from the profile
    async with again.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        # Not vacuous: before, the resumed chat showed no card at all, so the undone edit read
        # (from its tool call's ✓) as if it still stood.
        first, second = again.query(EditCard)
        assert first.has_class("-undone") and "Undone" in str(first.query_one(".card-status").render())
        assert second.has_class("-applied") and not second.has_class("-undone")
        assert "+- green tea" in str(second.query_one(DiffView).render())
