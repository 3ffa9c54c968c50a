"""The chat pane's loose ends: the open note deleted by another process while the assistant's
edit of it waits for the person's y (that edit is refused on its card, the rest of the answer
stands), or changed by another process beside the edit (the two are merged), a server that
reports no usage (the size is estimated, and marked so), and a message sent while another window
answers in the conversation.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.integration.test_ui_chat import (
    Host,
    ask,
    edit_script,
    host,
    make_note,
    services,  # noqa: F401 (fixture)
    settle,
    texts,
    until,
)
from tests.support.cli import run_noted
from tests.support.vaults import committed
from textual.message import Message

from noted.ops.notes import trash_note
from noted.ops.trash import empty_trash
from noted.profile import Profile
from noted.providers import AssistantMessage, CallTool, FakeProvider, Reply, UserMessage
from noted.providers.fake import Turn
from noted.services import Services
from noted.ui.chat import ChatPane
from noted.ui.chat.edits import EditCard
from noted.ui.chat.views import AnswerView, ChatInput, NoticeView, UserMessageView


async def test_a_note_deleted_while_its_edit_waits_refuses_the_edit_on_its_card(
    services: Services,  # noqa: F811
) -> None:
    note = make_note(services)
    services.settings.set("ai.tool.edit_current.enabled", True)
    app, _ = host(services, edit_script(), note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Oat milk please")
        await until(pilot, lambda: bool(app.query(".edit-card.-asking")))
        # As `noted trash` then `noted empty-trash` in another shell.
        trash_note(services.store, note, actor="user")
        empty_trash(services.store, actor="user")
        await pilot.press("y")
        await settle(pilot)

        card = app.query_one(EditCard)
        assert card.has_class("-refused") and card.applied is None
        assert "the note was deleted" in str(card.query_one(".card-status").render())
        assert not [n.message for n in app.query(NoticeView) if n.kind == "error"]
        assert app.query(AnswerView).last().text == "Changed."


def _shopping(tmp_path: Path, backend: str, body: str) -> tuple[Services, str]:
    """Services on a note "Shopping" of ``body``: in the profile's notebook, or a Markdown folder's
    file in git."""
    profile = Profile(tmp_path / "profile").ensure()
    if backend == "sqlite":
        services = Services.open(profile, welcome=False)
        return services, make_note(services, body=body)
    vault = tmp_path / "vault"
    committed(vault, {"Home/Shopping.md": body})
    services = Services.open(profile, vault=str(vault))
    return services, services.store.list_notes()[0].id


@pytest.mark.parametrize("backend", ["sqlite", "vault"])
async def test_a_change_made_by_another_process_beside_the_waiting_edit_is_kept_with_it(
    tmp_path: Path, backend: str
) -> None:
    # Before: any change made outside the app's editor refused the edit ("changed by someone else").
    body = "# Shopping\n- milk\n- tea\n"
    opened, note = _shopping(tmp_path, backend, body)
    try:
        for key, value in (
            ("ai.enabled", True),
            ("ai.provider", "fake"),
            ("ai.tool.edit_current.enabled", True),
        ):
            opened.settings.set(key, value)
        script: list[Turn] = [
            [CallTool("editor_replace", {"anchor": "- tea", "text": "- green tea"})],
            [Reply("Changed.")],
        ]
        app, _ = host(opened, script, note_id=note)
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            await ask(pilot, "Green tea please")
            await until(pilot, lambda: bool(app.query(".edit-card.-asking")))
            if backend == "vault":  # the person's editor writes the file
                (tmp_path / "vault" / "Home" / "Shopping.md").write_text(body.replace("- milk", "- oat milk"))
            else:  # `noted edit` in another shell
                done = run_noted(tmp_path / "profile", "edit", "--prepend", "- oat milk", note)
                assert done.returncode == 0, done.stderr
            await pilot.press("y")
            await settle(pilot)

            card = app.query_one(EditCard)
            assert card.has_class("-applied"), str(card.query_one(".card-status").render())
            assert "- oat milk" in opened.store.get_note(note).body
            assert "- green tea" in opened.store.get_note(note).body
    finally:
        opened.close()


async def test_with_a_server_that_reports_no_usage_the_size_is_estimated_after_each_answer(
    services: Services,  # noqa: F811
) -> None:
    # Not vacuous: before, the pane told the status bar nothing after an answer when the server
    # reported no usage, so the figure stayed at the size the chat had when it was opened (0).
    note = make_note(services)
    silent = FakeProvider([[Reply("Tea is on it.")]], usage=False)
    app = Host(services, lambda: services.chat_engine(provider=lambda: silent), note)
    seen: list[Message] = []
    async with app.run_test(size=(100, 40), message_hook=seen.append) as pilot:
        await settle(pilot)
        await ask(pilot, "Is tea on it?")
        await settle(pilot)
    *_, last = [m for m in seen if isinstance(m, ChatPane.UsageChanged)]
    assert last.size > 0 and last.estimated, last


async def test_a_message_refused_by_another_windows_answer_goes_back_in_the_box_and_the_pane_catches_up(
    services: Services,  # noqa: F811
) -> None:
    # Not vacuous: before, "from B" stayed in the log as if sent, the box was empty, and the pane
    # kept its old view after the other window's answer ended (its exchange never showed).
    note = make_note(services)
    transcripts = services.transcripts
    conversation = transcripts.create(note_id=note)
    transcripts.append(conversation.id, [UserMessage("from A")])
    lease = transcripts.run_lease(conversation.id, "tui")  # the other window, answering
    assert lease.acquire()
    app, _ = host(services, [[Reply("Answer to B.")]], note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "from B")
        await until(pilot, lambda: bool(app.query(".notice.-error")))
        assert app.query_one(ChatInput).value == "from B"
        assert "from B" not in texts(app, UserMessageView)
        shown = str(app.query_one(".notice.-error", NoticeView).render())
        assert "another window is answering in this conversation" in shown, shown
        transcripts.append(conversation.id, [AssistantMessage("Answer to A.")])
        lease.release()  # that answer ends
        await until(pilot, lambda: "Answer to A." in [a.text for a in app.query(AnswerView)])
        assert app.query_one(ChatInput).value == "from B"  # still there to send
