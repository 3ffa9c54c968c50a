"""The chat pane tells what the assistant did in words (``searched for "tea"``), never by a tool's
name (``search_notes "tea"``): live, on the approval card, and in a saved chat shown again."""

from __future__ import annotations

from tests.integration.test_ui_chat import (  # noqa: F401 (fixtures)
    ask,
    host,
    make_note,
    services,
    settle,
)

from noted.providers import CallTool, Reply
from noted.providers.fake import Turn
from noted.services import Services
from noted.ui.chat.edits import EditCard
from noted.ui.chat.tool_call import ToolCallView


def _titles(app: object) -> list[str]:
    return [str(view.title) for view in app.query(ToolCallView)]  # type: ignore[attr-defined]


async def test_tool_calls_are_told_in_words_live_and_after_a_resume(services: Services) -> None:  # noqa: F811
    # edit_current is off by default, so the replace is refused: said as asked, not as done.
    first, second = make_note(services, "First"), make_note(services, "Second")
    script: list[Turn] = [
        [CallTool("search_notes", {"query": "tea"}), CallTool("editor_replace", {"anchor": "- milk", "text": "x"})],
        [Reply("Done.")],
    ]  # fmt: skip
    app, _ = host(services, script, [[Reply("Other.")]], note_id=first)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Tea?")
        await settle(pilot)
        live = _titles(app)
        # Before: '✓ search_notes "tea"' and '⊘ editor_replace "- milk" text="x"  (refused)'.
        off = 'the tool "editor_replace" is switched off; it is switched on in Settings → Tools → "Edit the open…'
        assert live == ['✓ searched for "tea"', f'⊘ replace "- milk" text="x"  (refused: {off})'], live

        app.pane.set_note(second)
        await settle(pilot)
        app.pane.set_note(first)
        await settle(pilot)
        # The saved chat, drawn again, says it alike, but for why: it keeps only the model's words.
        assert _titles(app) == [t.replace(f": {off}", "") for t in live]


async def test_a_write_asked_about_is_put_in_words_on_its_card(services: Services) -> None:  # noqa: F811
    note = make_note(services)
    services.settings.set("ai.tool.update_note.enabled", True)
    script: list[Turn] = [[CallTool("update_note", {"id": note, "title": "Groceries"})], [Reply("Asked.")]]
    app, _ = host(services, script, note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Rename it")
        await pilot.pause()
        card = app.query_one(EditCard)
        shown = " ".join(str(s.render()) for s in card.query(".card-title"))
        # Before: "Allow update_note?".
        assert shown == 'Allow: update note “Shopping” title="Groceries"?', shown
        await pilot.press("n")
        await settle(pilot)
        assert _titles(app) == [
            '⊘ update note “Shopping” title="Groceries"  (refused: not approved, so nothing was written)'
        ]
