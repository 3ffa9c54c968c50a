"""The chat's message box (Pilot, real profile, scripted model): several lines, typed or pasted, are
sent whole by Enter, and the box grows with them up to a bound, then scrolls.
"""

from __future__ import annotations

from tests.integration.test_ui_chat import (
    host,
    make_note,
    services,  # noqa: F401 (a fixture)
    settle,
)
from textual import events

from noted.providers import Reply, UserMessage
from noted.services import Services
from noted.ui.chat.views import ChatInput, UserMessageView


async def test_ctrl_j_adds_a_line_and_enter_sends_every_line(services: Services) -> None:  # noqa: F811
    app, scripted = host(services, [[Reply("Noted.")]], note_id=make_note(services))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        box = app.query_one(ChatInput)
        box.focus()
        await pilot.press("a", "b", "ctrl+j", "c", "d")
        # Before: an Input, where Enter sent and no key made a second line.
        assert box.text == "ab\ncd"
        assert not app.query(UserMessageView)  # Ctrl+J sent nothing
        await pilot.press("enter")
        await settle(pilot)
        assert [m.text for m in app.query(UserMessageView)] == ["ab\ncd"]
        sent = [m for m in scripted.providers[0].requests[0].messages if isinstance(m, UserMessage)]
        assert sent[0].text == "ab\ncd"  # the model gets the lines, not one joined line
        assert box.text == ""


async def test_a_pasted_block_keeps_its_lines_and_the_box_grows_then_scrolls(services: Services) -> None:  # noqa: F811
    app, scripted = host(services, [[Reply("Noted.")]], note_id=make_note(services))
    code = "def f():\n    return 1\n\nprint(f())"
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        box = app.query_one(ChatInput)
        box.focus()
        one_line = box.outer_size.height
        app.post_message(events.Paste(code))
        await pilot.pause()
        assert box.text == code  # the indent and the empty line too
        assert box.outer_size.height == one_line + 3  # one row a line
        app.post_message(events.Paste("\n".join(str(n) for n in range(20))))
        await pilot.pause()
        assert box.outer_size.height == 8  # six lines and the frame, whatever the length
        assert box.max_scroll_y > 0
        await pilot.press("enter")
        await settle(pilot)
        sent = app.query(UserMessageView).last().text
        assert sent.startswith(code) and sent.endswith("\n18\n19")
        await pilot.pause()
        assert box.outer_size.height == one_line  # empty again: back to one line
