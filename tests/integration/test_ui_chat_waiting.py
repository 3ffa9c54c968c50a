"""A change of the assistant waiting for the person's answer (Pilot, real profile, scripted
model): stopping it leaves the keys in the message box.
"""

from __future__ import annotations

from tests.integration.test_ui_chat import (
    edit_script,
    host,
    make_note,
    services,  # noqa: F401 (a fixture)
    settle,
    until,
)
from tests.integration.test_ui_chat import ask as send

from noted.services import Services
from noted.ui.chat.edits import EditCard
from noted.ui.chat.views import ChatInput


async def test_escape_on_a_waiting_change_puts_the_focus_back_in_the_box(services: Services) -> None:  # noqa: F811
    # Before: Esc removed the focused card's buttons and left the focus on the log, so what was
    # typed next went nowhere.
    services.settings.set("ai.tool.edit_current.enabled", True)
    note = make_note(services)
    app, _ = host(services, edit_script(), note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "Oat milk please")
        await until(pilot, lambda: bool(app.query(".edit-card.-asking")))
        assert app.focused is app.query_one(EditCard)
        await pilot.press("escape")
        await settle(pilot)
        box = app.query_one(ChatInput)
        assert app.focused is box and app.query_one(EditCard).has_class("-refused")
        await pilot.press(*"next")
        assert box.text == "next"
