"""An answer as it streams and as its tool calls end: a long answer streams in time linear in its
length (a new block of the reply restyles that block, not every block before it nor the rest of
the chat), and a write in review mode (``ai.writes = review``) is shown as waiting, not as done."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.integration.test_ui_chat import (
    BODY,
    ask,
    host,
    make_note,
    services,  # noqa: F401 (a fixture)
    settle,
)
from textual.widgets.markdown import MarkdownBlock

from noted.providers import CallTool, Reply
from noted.providers.fake import Turn
from noted.services import Services
from noted.ui.chat.tool_call import ToolCallView
from noted.ui.chat.views import AnswerView

PARAGRAPHS = 40


async def test_streaming_a_long_answer_restyles_each_block_a_few_times(
    services: Services,  # noqa: F811
) -> None:
    # One paragraph a piece: each piece mounts a new Markdown block. A rule that depends on a
    # block's place (``:last-child`` on every child of an answer) made each mount restyle all
    # the blocks before it, so a reply of n paragraphs cost n² restylings and a long answer
    # fell minutes behind the model.
    paragraph = "Line of the answer, ünïcödé 漢字 🙂.\n\n"
    app, _ = host(services, [[Reply(paragraph * PARAGRAPHS, chunk_size=len(paragraph))]])
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
        await ask(pilot, "a long story")
        await settle(pilot)
        answer = app.query_one(AnswerView)
        assert answer.text == paragraph * PARAGRAPHS
        # Not vacuous: the stream mounted a block per paragraph (each counted at least once).
        assert len(blocks) >= PARAGRAPHS
        assert max(styled.values()) <= 6, styled.most_common(3)


async def test_a_write_waiting_for_review_is_not_marked_done(services: Services) -> None:  # noqa: F811
    services.settings.set("ai.writes", "review")
    services.settings.set("ai.tool.update_note.enabled", True)
    note = make_note(services)
    script: list[Turn] = [
        [CallTool("update_note", {"id": note, "body": BODY + "- bread\n"})],
        [Reply("Proposed.")],
    ]
    app, _ = host(services, script)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Add bread")
        await settle(pilot)
        call = app.query_one(ToolCallView)
        # Before: "✓ update_note …", though nothing was written: the change waits as p1.
        assert services.store.get_note(note).body == BODY
        title = str(call.title)
        assert not title.startswith("✓") and "waits for your review" in title, title
