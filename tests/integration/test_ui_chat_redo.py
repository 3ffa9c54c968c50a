"""Editing and resending the last message, and regenerating the last answer, in the chat pane.

The pane runs on a real profile with scripted ``FakeProvider``s (``test_ui_chat``'s host); the
tests press the keys a person would and read back what the screen shows, what the model was sent
and what a resumed chat reads from the profile.
"""

from __future__ import annotations

from tests.integration.test_ui_chat import (
    ask,
    host,
    make_note,
    services,  # noqa: F401 -- the fixture
    settle,
    texts,
)
from tests.support.chats import transcript_lines

from noted.chat.budget import estimate_tokens
from noted.providers import CallTool, Reply, UserMessage
from noted.services import Services
from noted.ui.chat.edits import EditCard
from noted.ui.chat.views import AnswerView, ChatInput, NoticeView, UserMessageView


def saved(profile: Services, conversation_id: str) -> list[str]:
    """The saved transcript as short lines (what a resumed chat shows)."""
    return transcript_lines(profile, conversation_id)


async def test_up_in_the_empty_box_edits_the_last_message_and_sending_replaces_its_exchange(
    services: Services,  # noqa: F811
) -> None:
    note = make_note(services)
    services.settings.set("ai.tool.edit_current.enabled", True)
    services.settings.set("ai.approveWrites", False)
    app, scripted = host(
        services,
        [[Reply("Hello.")]],
        [[CallTool("editor_append", {"text": "- tea"}, id="e1")], [Reply("Added tea.")]],
        [[Reply("Coffee added.")]],
        note_id=note,
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Hi")
        await settle(pilot)
        await ask(pilot, "Add tea")
        await settle(pilot)
        assert services.store.get_note(note).body.rstrip().endswith("- tea")
        box = app.query_one(ChatInput)
        box.focus()

        await pilot.press("up")
        assert box.text == "Add tea" and app.pane.editing == "Add tea"
        box.value = "Add coffee instead"
        await pilot.press("enter")
        await settle(pilot)

        # On screen: the first exchange, the change card (the change stays made), the new exchange.
        assert texts(app, UserMessageView) == ["Hi", "Add coffee instead"]
        assert [a.text for a in app.query(AnswerView)] == ["Hello.", "Coffee added."]
        assert len(app.query(EditCard)) == 1 and app.pane.chat_log.undoable is not None
        # The model was sent the first exchange and the edited message only.
        request = scripted.providers[-1].requests[0]
        assert [m.text for m in request.messages if isinstance(m, UserMessage)] == [
            "Hi",
            "Add coffee instead",
        ]
        # Saved: a resumed chat shows the edited exchange, not both.
        conversation = app.pane.conversation
        assert conversation is not None
        lines = saved(services, conversation.id)
        assert lines[-3:] == ["notice: change", "user: Add coffee instead", "assistant: Coffee added."]
        assert "user: Add tea" not in lines and "assistant: Added tea." not in lines
        assert services.store.get_note(note).body.rstrip().endswith("- tea")

        # Resumed (a new chat, then Ctrl+R and Enter on it): the edited exchange only, the card kept.
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert texts(app, UserMessageView) == []
        await pilot.press("ctrl+r", "enter")
        await settle(pilot)
        assert texts(app, UserMessageView) == ["Hi", "Add coffee instead"]
        assert [a.text for a in app.query(AnswerView)] == ["Hello.", "Coffee added."]
        assert len(app.query(EditCard)) == 1


async def test_up_in_a_box_with_text_moves_the_cursor_and_emptying_the_box_ends_the_edit(
    services: Services,  # noqa: F811
) -> None:
    app, _ = host(services, [[Reply("One.")]], [[Reply("Two.")]])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "First")
        await settle(pilot)
        box = app.query_one(ChatInput)
        box.focus()
        box.value = "line one\nline two"
        await pilot.press("up")
        assert box.text == "line one\nline two" and box.cursor_location[0] == 0
        assert app.pane.editing is None

        box.value = ""
        await pilot.press("up")
        assert app.pane.editing == "First"
        await pilot.press("ctrl+u")  # clear the line: a new message after all
        await pilot.pause()
        assert app.pane.editing is None
        await ask(pilot, "Second")
        await settle(pilot)
        assert texts(app, UserMessageView) == ["First", "Second"]


async def test_regenerate_sends_the_same_messages_again_and_replaces_the_answer(
    services: Services,  # noqa: F811
) -> None:
    note = make_note(services)
    app, scripted = host(services, [[Reply("Tea.")]], [[Reply("Milk.")]], [[Reply("Honey.")]], note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Anything?")
        await settle(pilot)
        await ask(pilot, "What is on it?")
        await settle(pilot)
        app.query_one(ChatInput).focus()

        await pilot.press("ctrl+g")
        await settle(pilot)

        first, again = scripted.providers[1].requests, scripted.providers[2].requests
        assert again == first  # the very same request: the history and the message
        assert texts(app, UserMessageView) == ["Anything?", "What is on it?"]
        assert [a.text for a in app.query(AnswerView)] == ["Tea.", "Honey."]
        conversation = app.pane.conversation
        assert conversation is not None
        assert saved(services, conversation.id)[-2:] == ["user: What is on it?", "assistant: Honey."]
        assert "assistant: Milk." not in saved(services, conversation.id)


async def test_regenerate_and_edit_are_offered_only_once_something_was_said(
    services: Services,  # noqa: F811
) -> None:
    app, _ = host(services, [[Reply("One.")]])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        titles = {c.title for c in app.pane.commands()}
        assert (
            "Chat: regenerate the last answer" not in titles and "Chat: edit the last message" not in titles
        )
        assert "Chat: choose the model…" in titles
        await ask(pilot, "Hi")
        await settle(pilot)
        titles = {c.title for c in app.pane.commands()}
        assert {"Chat: regenerate the last answer", "Chat: edit the last message"} <= titles


async def test_the_edit_key_follows_the_keymap_and_up_still_moves_the_cursor(
    services: Services,  # noqa: F811
) -> None:
    app, _ = host(services, [[Reply("One.")]])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "First")
        await settle(pilot)
        app.set_keymap({"chat.edit": "ctrl+o"})  # what NotedApp does with ui.keymap
        box = app.query_one(ChatInput)
        box.focus()
        box.value = "line one\nline two"
        # Not vacuous: with ↑ bound on the box itself, moving chat.edit away left ↑ bound to nothing.
        await pilot.press("up")
        assert box.cursor_location[0] == 0
        box.value = ""
        await pilot.press("up")
        assert app.pane.editing is None and box.text == ""
        await pilot.press("ctrl+o")
        assert app.pane.editing == "First" and box.text == "First"


async def test_up_on_a_message_does_not_pull_the_last_message_into_the_box(
    services: Services,  # noqa: F811
) -> None:
    app, _ = host(services, [[Reply("One.")]])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "First")
        await settle(pilot)
        app.query(AnswerView).last().focus()  # Shift+Tab from the box reaches it
        await pilot.press("up")  # a short chat: the log has nothing to scroll, so ↑ goes on
        assert app.pane.editing is None and app.query_one(ChatInput).text == ""


async def test_an_edit_refused_over_the_budget_then_edited_again_still_replaces_the_saved_exchange(
    services: Services,  # noqa: F811
) -> None:
    app, scripted = host(services, [[Reply("One.")]], [[Reply("never sent")]], [[Reply("Two.")]])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Short?")
        await settle(pilot)
        services.settings.set("ai.budgetTokens", estimate_tokens(scripted.providers[0].requests[0]) + 300)
        box = app.query_one(ChatInput)
        box.focus()
        await pilot.press("up")
        box.value = "lorem ipsum " * 1000
        await pilot.press("enter")
        await settle(pilot)
        assert any("over the budget" in n.message for n in app.query(NoticeView))
        # The refused edit was never saved: the saved chat still holds the first exchange.
        conversation = app.pane.conversation
        assert conversation is not None
        assert saved(services, conversation.id) == ["user: Short?", "assistant: One."]

        await pilot.press("up")  # the refused text back; shortened, it goes
        box.value = "Shorter?"
        await pilot.press("enter")
        await settle(pilot)

        assert texts(app, UserMessageView) == ["Shorter?"]
        # Not vacuous: matching only the refused text (never saved), the engine appended the edit
        # after the exchange the screen had dropped, and a resumed chat showed both.
        assert saved(services, conversation.id) == ["user: Shorter?", "assistant: Two."]
