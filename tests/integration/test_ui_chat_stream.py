"""An answer as it streams, ends and is refused, in the chat pane (real profile, scripted model):
a long answer streams in time linear in its length (a new block of the reply restyles that block,
not every block before it nor the rest of the chat); a write in review mode (``ai.writes =
review``) shows as waiting, not done; an accepted write's card says how it ended; a first message
refused over the budget leaves no empty chat."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from tests.integration import test_ui_chat as chat
from tests.integration.test_ui_chat import services  # noqa: F401 (a fixture)
from textual.await_complete import AwaitComplete
from textual.widgets.markdown import MarkdownBlock

from noted.providers import CallTool, Reply
from noted.providers.fake import Turn
from noted.services import Services
from noted.ui.chat.edits import EditCard
from noted.ui.chat.tool_call import ToolCallView
from noted.ui.chat.views import AnswerView, NoticeView

PARAGRAPHS = 40


async def test_streaming_a_long_answer_restyles_each_block_a_few_times(
    services: Services,  # noqa: F811
) -> None:
    # One paragraph a piece: each piece mounts a new Markdown block. A rule that depends on a
    # block's place (``:last-child`` on every child of an answer) made each mount restyle all
    # the blocks before it, so a reply of n paragraphs cost n² restylings and a long answer
    # fell minutes behind the model.
    paragraph = "Line of the answer, ünïcödé 漢字 🙂.\n\n"
    app, _ = chat.host(services, [[Reply(paragraph * PARAGRAPHS, chunk_size=len(paragraph))]])
    styled: Counter[int] = Counter()
    blocks: dict[int, MarkdownBlock] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        sheet = app.stylesheet
        apply = sheet.apply

        def counting(node: Any, **kwargs: Any) -> None:
            if isinstance(node, MarkdownBlock):
                styled[id(node)] += 1
                blocks[id(node)] = node  # kept alive, so ids are not reused
            apply(node, **kwargs)

        sheet.apply = counting  # type: ignore[method-assign]
        await chat.ask(pilot, "a long story")
        await chat.settle(pilot)
        answer = app.query_one(AnswerView)
        assert answer.text == paragraph * PARAGRAPHS
        # Not vacuous: the stream mounted a block per paragraph (each counted at least once).
        assert len(blocks) >= PARAGRAPHS
        assert max(styled.values()) <= 6, styled.most_common(3)


async def test_a_write_waiting_for_review_is_not_marked_done(services: Services) -> None:  # noqa: F811
    services.settings.set("ai.writes", "review")
    services.settings.set("ai.tool.update_note.enabled", True)
    note = chat.make_note(services)
    script: list[Turn] = [
        [CallTool("update_note", {"id": note, "body": chat.BODY + "- bread\n"})],
        [Reply("Proposed.")],
    ]
    app, _ = chat.host(services, script)
    async with app.run_test(size=(100, 40)) as pilot:
        await chat.settle(pilot)
        await chat.ask(pilot, "Add bread")
        await chat.settle(pilot)
        call = app.query_one(ToolCallView)
        # Before: "✓ update_note …", though nothing was written: the change waits as p1.
        assert services.store.get_note(note).body == chat.BODY
        title = str(call.title)
        assert title.startswith("⧖") and "(held as p1 for your review)" in title, title
        # Named by its title as the other tool lines name their notes, not by its id.
        assert note[:8] not in title and "“Shopping”" in title, title
    again, _ = chat.host(services)  # the chat resumed: its line as it was shown
    async with again.run_test(size=(100, 40)) as pilot:
        await chat.settle(pilot)
        assert str(again.query_one(ToolCallView).title) == title


async def test_an_accepted_write_says_on_its_card_how_it_ended(services: Services) -> None:  # noqa: F811
    # Before: the card said "Accepted; saving…" for good, also when the tool, switched off while
    # the card waited, refused and wrote nothing.
    services.settings.set("ai.tool.create_note.enabled", True)  # approval stays on (the default)
    script: list[Turn] = [
        [CallTool("create_note", {"title": "Kept", "body": "x"})],
        [CallTool("create_note", {"title": "Switched off", "body": "x"})],
        [Reply("Done.")],
    ]
    app, _ = chat.host(services, script)
    async with app.run_test(size=(100, 40)) as pilot:
        await chat.ask_for_a_write(pilot, "Two notes")
        await pilot.press("y")
        await chat.until(
            pilot, lambda: len(app.query(".edit-card.-asking")) == 1 and len(app.query(EditCard)) == 2
        )
        services.settings.set("ai.tool.create_note.enabled", False)
        await pilot.press("y")
        await chat.settle(pilot)
        kept, refused = (str(c.query_one(".card-status").render()) for c in app.query(EditCard))
        assert kept == "Done." and "saving" not in refused
        assert "switched off" in refused and app.query(EditCard).last().has_class("-refused")
    assert [n.title for n in services.store.list_notes() if n.title in ("Kept", "Switched off")] == ["Kept"]


async def test_a_message_over_the_budget_leaves_no_empty_chat_behind(services: Services) -> None:  # noqa: F811
    # Before: the refused first message left an empty, untitled conversation in `noted chats`
    # and in the note's list of chats, though nothing of it was kept.
    services.settings.set("ai.budgetTokens", 6_000)  # the tools offered take ~4,500
    app, _ = chat.host(services, [[Reply("Not asked.")]], [[Reply("Short one.")]])
    async with app.run_test(size=(100, 40)) as pilot:
        await chat.settle(pilot)
        await chat.ask(pilot, "words " * 4_000)
        await chat.settle(pilot)
        assert any("over the budget" in n.message for n in app.query(NoticeView))
        assert services.transcripts.recent() == []
        await chat.ask(pilot, "short")  # the next message starts the chat as usual
        await chat.settle(pilot)
        assert [c.title for c in services.transcripts.recent()] == ["short"]


async def test_a_long_paragraph_streams_in_few_drawings_and_ends_drawn_whole(
    services: Services,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each piece that reached the answer re-parsed and re-drew the paragraph it ends: a 32,000-
    # character paragraph took about 30 s to stream (minutes on a busy machine), n² in its length.
    # Counted, not timed: the drawings of the answer, against the pieces the model sent.
    text = " ".join(f"word{i}" for i in range(1_200))  # one paragraph, about 9,700 characters
    pieces = len(text) // 4
    app, _ = chat.host(services, [[Reply(text, chunk_size=4)]])
    appended: list[int] = []
    append = AnswerView.append

    def counting(self: AnswerView, markdown: str) -> AwaitComplete:
        appended.append(len(markdown))
        return append(self, markdown)

    monkeypatch.setattr(AnswerView, "append", counting)
    async with app.run_test(size=(100, 40)) as pilot:
        await chat.settle(pilot)
        await chat.ask(pilot, "a long paragraph")
        await chat.settle(pilot)
        answer = app.query_one(AnswerView)
        # Not vacuous: it streamed, drawn in parts before the end.
        assert len(appended) > 1 and answer.text == text
        assert len(appended) <= pieces // 10, (len(appended), pieces)
        # The final full update: the whole text in one paragraph block.
        assert chat.blocks(answer) == [("MarkdownParagraph", text)]
