"""The chat pane catches up with another process's changes when it gets the focus (Pilot, real
profile, scripted model): a reply added to its conversation elsewhere, the note it is about
retitled elsewhere. Before, the pane showed them only on its next turn.

The other process is played by writes to the same profile that pass the pane by (the transcripts
and ``noted.ops``): the pane is told nothing either way, and follows no feed of chats.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from tests.integration import test_ui_chat as chat
from tests.integration.test_ui_chat import Host, services  # noqa: F401 (a fixture)
from textual.pilot import Pilot

from noted.models import NotePatch
from noted.ops.notes import update_note
from noted.providers import AssistantMessage, Reply, UserMessage
from noted.services import Services
from noted.ui.chat.views import AnswerView, ChatInput, NoticeView


@asynccontextmanager
async def answered(profile: Services, reply: str) -> AsyncIterator[tuple[Host, Pilot[None]]]:
    """The chat about a note, one question answered with ``reply``, the focus in another pane."""
    app, _ = chat.host(profile, [[Reply(reply)]], note_id=chat.make_note(profile))
    async with app.run_test(size=(100, 40)) as pilot:
        await chat.settle(pilot)
        await chat.ask(pilot, "Is oat milk on it?")
        await chat.settle(pilot)
        app.set_focus(None)
        await chat.settle(pilot)
        yield app, pilot


async def test_a_reply_added_elsewhere_shows_when_the_pane_gets_the_focus(services: Services) -> None:  # noqa: F811
    async with answered(services, "Oat milk is on the list.") as (app, pilot):
        conversation = app.pane.conversation
        assert conversation is not None
        # As `noted ask` about the same chat, in another shell.
        services.transcripts.append(
            conversation.id, [UserMessage("And eggs?"), AssistantMessage("Eggs are there too.")]
        )
        app.query_one(ChatInput).focus()
        await chat.until(pilot, lambda: "Eggs are there too." in chat.texts(app, AnswerView))
        # Not vacuous: before, the log kept its one answer until the next message was sent.
        assert chat.texts(app, AnswerView) == ["Oat milk is on the list.", "Eggs are there too."]


async def test_the_note_retitled_elsewhere_shows_in_the_empty_chat_on_focus(services: Services) -> None:  # noqa: F811
    note = chat.make_note(services)
    app, _ = chat.host(services, note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await chat.settle(pilot)
        assert any("Shopping" in n.message for n in app.query(NoticeView))
        app.set_focus(None)
        await chat.settle(pilot)
        update_note(services.store, note, NotePatch(title="Groceries"), actor="user")  # `noted edit`
        app.query_one(ChatInput).focus()
        await chat.until(pilot, lambda: any("Groceries" in n.message for n in app.query(NoticeView)))


async def test_focus_with_nothing_changed_reads_nothing_again(services: Services) -> None:  # noqa: F811
    async with answered(services, "Yes.") as (app, pilot):
        shown = app.query_one(AnswerView)
        app.query_one(ChatInput).focus()
        await chat.settle(pilot)
        assert app.query_one(AnswerView) is shown  # the log was not drawn again
