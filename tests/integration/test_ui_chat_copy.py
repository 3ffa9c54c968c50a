"""Copying from the chat (issue 20): Ctrl+Y the last reply, y/Y on a focused message.

The pane runs on real services with a scripted model (``test_ui_chat``'s host). Each test reads
``App.clipboard``, what Textual last sent to the terminal in its OSC 52, after starting it at a
marker, so a key that copied nothing, or copied the wrong message, fails.
"""

from __future__ import annotations

from typing import Any

from tests.integration.test_ui_chat import (
    ask,
    host,
    make_note,
    services,  # noqa: F401 (a fixture)
    settle,
    until,
)
from textual.notifications import Notify
from textual.widgets import OptionList

from noted.providers import Hang, Reply
from noted.services import Services
from noted.ui.chat.views import AnswerView, ChatInput, UserMessageView
from noted.ui.dialogs.code_picker import CodeBlockPicker

UNTOUCHED = "(nothing copied yet)"
FIRST = "Milk and tea."
SECOND = (
    "Two ways:\n\n```sh\nnoted config set ui.theme nord\n```\n\n"
    'or in the file:\n\n```toml\n[ui]\ntheme = "nord"\n```\n'
)


def _notices(seen: list[Any]) -> list[str]:
    return [m.notification.message for m in seen if isinstance(m, Notify)]


async def test_ctrl_y_copies_the_last_reply_from_the_message_box(services: Services) -> None:  # noqa: F811
    note = make_note(services)
    app, _ = host(services, [[Reply(FIRST)]], [[Reply(SECOND)]], note_id=note)
    seen: list[Any] = []
    async with app.run_test(size=(100, 40), message_hook=seen.append) as pilot:
        await settle(pilot)
        app.copy_to_clipboard(UNTOUCHED)
        await pilot.press("ctrl+y")  # nothing said yet
        assert app.clipboard == UNTOUCHED
        assert "There is no reply to copy yet. Nothing was copied." in _notices(seen)

        await ask(pilot, "What is on it?")
        await settle(pilot)
        await ask(pilot, "How do I pick a theme?")
        await settle(pilot)
        assert isinstance(app.focused, ChatInput)
        await pilot.press("ctrl+y")
        # The last reply as written (its Markdown, fences included), not the first one.
        assert app.clipboard == SECOND
        assert f"Copied {len(SECOND.splitlines())} lines: the reply." in _notices(seen)


async def test_y_copies_the_focused_message_and_capital_y_its_code_block(services: Services) -> None:  # noqa: F811
    note = make_note(services)
    app, _ = host(services, [[Reply(SECOND)]], [[Reply(FIRST)]], note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "How do I pick a theme?")
        await settle(pilot)
        await ask(pilot, "And the list?")
        await settle(pilot)
        app.copy_to_clipboard(UNTOUCHED)

        await pilot.press("shift+tab")  # from the message box to the last reply
        replies = list(app.query(AnswerView))
        assert app.focused is replies[-1]
        await pilot.press("y")
        assert app.clipboard == FIRST
        await pilot.press("shift+tab")  # the person's question before it
        assert isinstance(app.focused, UserMessageView)
        await pilot.press("y")
        assert app.clipboard == "And the list?"

        await pilot.press("shift+tab")  # the first reply: two code blocks, so a chooser
        assert app.focused is replies[0]
        await pilot.press("ctrl+y")  # Ctrl+Y too copies the focused message, not the last reply
        assert app.clipboard == SECOND
        await pilot.press("Y")
        await until(pilot, lambda: isinstance(app.screen, CodeBlockPicker))
        assert app.screen.query_one(OptionList).option_count == 2
        await pilot.press("down", "enter")
        await until(pilot, lambda: not isinstance(app.screen, CodeBlockPicker))
        assert app.clipboard == '[ui]\ntheme = "nord"\n'


async def test_the_copy_key_follows_the_keymap_and_the_palette_offers_both(services: Services) -> None:  # noqa: F811
    note = make_note(services)
    app, _ = host(services, [[Reply("Run:\n\n```\nnoted index\n```\n")]], note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "How do I index?")
        await settle(pilot)
        app.set_keymap({"chat.copy": "ctrl+o"})  # what NotedApp does with ui.keymap (a key free in the chat)
        app.copy_to_clipboard(UNTOUCHED)
        await pilot.press("ctrl+y")
        assert app.clipboard == UNTOUCHED
        await pilot.press("ctrl+o")
        assert app.clipboard == "Run:\n\n```\nnoted index\n```\n"

        commands = {c.title: c.callback for c in app.pane.commands()}
        assert "Chat: copy the reply" in commands
        commands["Chat: copy a code block…"]()  # the reply's only block: copied without asking
        assert app.clipboard == "noted index\n"


async def test_a_reply_being_written_is_copied_as_far_as_it_got(services: Services) -> None:  # noqa: F811
    note = make_note(services)
    app, _ = host(services, [[Reply("Half an answer", chunk_size=100), Hang()]], note_id=note)
    seen: list[Any] = []
    async with app.run_test(size=(100, 40), message_hook=seen.append) as pilot:
        await settle(pilot)
        await ask(pilot, "Tell me everything")
        await until(pilot, lambda: any(a.text for a in app.query(AnswerView)))
        assert app.pane.running
        await pilot.press("ctrl+y")
        assert app.clipboard == "Half an answer"
        # Said so: the person must not take a part for the whole answer.
        assert "Copied 1 line: the reply so far." in _notices(seen)
        await pilot.press("escape")
        await settle(pilot)
