"""A write refused after the person accepted it says why on its card in their words, not the
words the model is given (real profile, scripted model)."""

from __future__ import annotations

from tests.integration import test_ui_chat as chat
from tests.integration.test_ui_chat import services  # noqa: F401 (a fixture)

from noted.models import NotePatch
from noted.providers import CallTool, Reply
from noted.providers.fake import Turn
from noted.services import Services
from noted.ui.chat.edits import EditCard
from noted.ui.chat.tool_call import ToolCallView


async def test_a_stale_write_says_on_its_card_why_in_the_persons_words(services: Services) -> None:  # noqa: F811
    # Before: "Not done: note "Shopping" has changed since you read it (…); nothing was written.
    # Call read_note again and redo your change on what it says now.": the model's instruction.
    services.settings.set("ai.tool.update_note.enabled", True)  # approval stays on (the default)
    note = chat.make_note(services)
    read = services.store.get_note(note).updated_time
    script: list[Turn] = [
        [CallTool("update_note", {"id": note, "append": "- bread\n", "base_updated_time": read})],
        [Reply("It changed.")],
    ]
    app, _ = chat.host(services, script)
    async with app.run_test(size=(100, 40)) as pilot:
        await chat.ask_for_a_write(pilot, "Add bread")
        # The person edits the note while the card waits: the write, accepted, finds it moved.
        services.store.update_note(note, NotePatch(body=chat.BODY + "- eggs\n"), actor="user")
        await pilot.press("y")
        await chat.settle(pilot)
        said = str(app.query_one(EditCard).query_one(".card-status").render())
        line = str(app.query_one(ToolCallView).title)
    assert said.startswith('Not done: note "Shopping" has changed since the assistant read it'), said
    assert "nothing was written" in said and "read_note" not in said and "redo" not in said, said
    assert "read_note" not in line, line  # the tool line's reason too
    assert "bread" not in services.store.get_note(note).body  # not vacuous: it was refused
