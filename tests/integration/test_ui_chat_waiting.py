"""A change of the assistant waiting for the person's answer (Pilot, real profile, scripted
model): stopping it leaves the keys in the message box, and no line saying an edit worked; and an
answer that waits for another window's (the conversation's run lease) is refused, saving nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import pytest
from tests.integration.test_ui_chat import (
    BODY,
    Host,
    ask,
    edit_script,
    host,
    make_note,
    services,  # noqa: F401 (a fixture)
    settle,
    until,
)
from textual.pilot import Pilot
from textual.widgets import Static

from noted.chat.transcripts import Notice
from noted.models import ToolStatus
from noted.ops.session import EditorSession
from noted.providers import Reply, ToolResultMessage, UserMessage
from noted.providers.fake import Turn
from noted.services import Services
from noted.ui.chat.edits import EditCard
from noted.ui.chat.tool_call import ToolCallView
from noted.ui.chat.views import AnswerView, ChatInput, NoticeView


@asynccontextmanager
async def waiting(
    profile: Services, note: str, *then: Sequence[Turn]
) -> AsyncIterator[tuple[Host, Pilot[None]]]:
    """The chat about ``note``, a change of it waiting for y or n (its card focused); ``then``:
    the scripts of the answers after it."""
    profile.settings.set("ai.tool.edit_current.enabled", True)
    app, _ = host(profile, edit_script(), *then, note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Oat milk please")
        await until(pilot, lambda: bool(app.query(".edit-card.-asking")))
        yield app, pilot


async def test_escape_on_a_waiting_change_puts_the_focus_back_in_the_box(services: Services) -> None:  # noqa: F811
    # Before: Esc removed the focused card's buttons and left the focus on the log, so what was
    # typed next went nowhere.
    async with waiting(services, make_note(services)) as (app, pilot):
        assert app.query_one(EditCard).has_focus
        await pilot.press("escape")
        await settle(pilot)
        box = app.query_one(ChatInput)
        assert app.focused is box and app.query_one(EditCard).has_class("-refused")
        await pilot.press(*"next")
        assert box.text == "next"


async def test_stopping_a_waiting_change_marks_its_edit_not_saved(services: Services) -> None:  # noqa: F811
    # Before: the edit's line kept its ✓ after Esc, though nothing was written (the saved chat,
    # resumed, said refused).
    note = make_note(services)
    async with waiting(services, note) as (app, pilot):
        held = app.query_one(ToolCallView)
        assert held.status == ToolStatus.OK  # the tool worked; the save waits for y or n
        await pilot.press("escape")
        await settle(pilot)
        call = app.query_one(ToolCallView)
        assert call is held and call.status == ToolStatus.REFUSED and str(call.title).startswith("⊘")
    assert services.store.get_note(note).body == BODY


async def test_opening_another_note_says_the_waiting_change_was_stopped(services: Services) -> None:  # noqa: F811
    # Before: the card went with the chat without a word where the person was looking.
    first, second = make_note(services, "First"), make_note(services, "Second")
    async with waiting(services, first) as (app, pilot):
        app.pane.set_note(second)
        await settle(pilot)
        said = [n.message for n in app._notifications]
        assert any(m.startswith("Stopped the change the assistant proposed to “First”") for m in said)
        assert services.store.get_note(first).body == BODY  # nothing written


async def test_each_note_keeps_its_own_draft_in_the_message_box(services: Services) -> None:  # noqa: F811
    # Before: the unsent text followed the person to the next note's chat, where Enter sent it
    # about the wrong note.
    first, second = make_note(services, "First"), make_note(services, "Second")
    app, _ = host(services, note_id=first)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        box = app.query_one(ChatInput)
        box.focus()
        await pilot.press(*"about first")
        app.pane.set_note(second)
        await settle(pilot)
        assert box.text == ""
        await pilot.press(*"about second")
        app.pane.set_note(first)
        await settle(pilot)
        assert box.text == "about first"
        app.pane.set_note(second)
        await settle(pilot)
        assert box.text == "about second"


async def test_regenerating_drops_a_declined_change_with_its_answer(services: Services) -> None:  # noqa: F811
    # Before: Ctrl+G kept the declined card on screen and in the saved chat, so a resumed chat
    # showed two identical declined cards.
    note = make_note(services)
    async with waiting(services, note, [[Reply("Fine.")]]) as (app, pilot):
        await pilot.press("n")
        await settle(pilot)
        assert app.query_one(EditCard).has_class("-refused")
        app.query_one(ChatInput).focus()
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert not app.query(EditCard) and app.query(AnswerView).last().text == "Fine."
        conversation = app.pane.conversation
        assert conversation is not None
        kept = [e for e in services.transcripts.transcript(conversation.id) if isinstance(e, Notice)]
        assert not [n for n in kept if n.kind == "change"]  # a resumed chat shows no card either


async def test_an_error_marks_the_held_edit_not_saved(
    services: Services,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the edit's line kept its ✓ after the error, though nothing was written, and the saved
    # chat said "the person stopped the answer" of an answer nobody stopped. The error: a fault
    # of the program in the commit of the accepted edit (a note deleted meanwhile was such an
    # error once; it is now that edit's refusal, tests/integration/test_ui_chat_gone.py).
    note = make_note(services)

    def broken(*_: object) -> None:
        raise RuntimeError("the commit broke")

    async with waiting(services, note) as (app, pilot):
        held = app.query_one(ToolCallView)
        assert held.status == ToolStatus.OK
        monkeypatch.setattr(EditorSession, "commit", broken)
        await pilot.press("y")
        await until(pilot, lambda: bool(app.query(".notice.-error")))
        await settle(pilot)
        call = app.query_one(ToolCallView)
        assert call is held and call.status == ToolStatus.REFUSED and str(call.title).startswith("⊘")
        assert "broke off on an error" in str(call.query_one(".tool-result", Static).render())
        card = app.query_one(EditCard)  # it said "Accepted; saving…" for good
        assert card.has_class("-refused") and "broke off on an error" in str(
            card.query_one(".card-status", Static).render()
        )
    conversation = services.transcripts.recent()[0]
    results = [m for m in services.transcripts.messages(conversation.id) if isinstance(m, ToolResultMessage)]
    edit = results[-1].content
    assert "broke off on an error" in edit and "stopped" not in edit, edit


async def test_sending_while_another_window_answers_says_so_and_saves_nothing(services: Services) -> None:  # noqa: F811
    # The other window is this test's process holding the conversation's run lease, as another
    # app's answer does (tests/integration/test_chat_lease.py runs two real processes).
    note = make_note(services)
    transcripts = services.transcripts
    conversation = transcripts.create(note_id=note)
    transcripts.append(conversation.id, [UserMessage("from A")])
    lease = transcripts.run_lease(conversation.id, "tui")
    assert lease.acquire()
    app, scripted = host(services, [[Reply("Answer to B.")]], note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "from B")
        await until(pilot, lambda: bool(app.query(".notice.-error")))
        shown = str(app.query_one(".notice.-error", NoticeView).render())
        assert "another window is answering in this conversation: the app (pid " in shown, shown
        lease.release()
    assert scripted.providers == [] or not scripted.providers[0].requests  # the model was not asked
    assert transcripts.messages(conversation.id) == [UserMessage("from A")]  # nothing of B saved
