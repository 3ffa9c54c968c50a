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
        why = str(app.query_one(".tool-why").render())
    assert said.startswith('Not done: note "Shopping" has changed since the assistant read it'), said
    assert "nothing was written" in said and "read_note" not in said and "redo" not in said, said
    # The tool line says why too (it said only "(error)", so "read_note" could not be in it).
    assert '(error: note "Shopping" has changed since the assistant read it' in line, line
    assert line.endswith("…)"), line  # cut to fit: the disclosure holds all of it
    assert "read_note" not in line and "read_note" not in why and why.endswith("nothing was written."), why
    assert "bread" not in services.store.get_note(note).body  # not vacuous: it was refused


async def test_a_read_that_failed_says_why_on_its_line_in_the_persons_words(services: Services) -> None:  # noqa: F811
    """A read tool's error, not held for anyone: its line said only "(error)"; now the reason, cut
    to fit, and the disclosure all of it, without the model's "Pass the path of the one you want"."""
    body = "# Goals\n\n" + "one " * 40 + "\n\n# Goals\n\ntwo\n"
    note = chat.make_note(services, "Plan", body)
    script: list[Turn] = [[CallTool("read_note", {"id": note, "section": "Goals"})], [Reply("Two of them.")]]
    app, _ = chat.host(services, script)
    async with app.run_test(size=(100, 40)) as pilot:
        await chat.settle(pilot)
        await chat.ask(pilot, "Read the goals")
        await chat.until(pilot, lambda: app.query_one(ToolCallView).status is not None)
        await chat.settle(pilot)
        line = str(app.query_one(ToolCallView).title)
        why = str(app.query_one(".tool-why").render())
    assert '(error: section "Goals" matches 2 sections: 1 "Goals"; 2 "Goals")' in line, line
    assert why == 'why: section "Goals" matches 2 sections: 1 "Goals"; 2 "Goals"', why
    assert "Pass the path" not in line + why, line + why
