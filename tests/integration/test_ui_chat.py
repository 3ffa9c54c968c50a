"""The chat pane on a real profile (SQLite store, settings file, transcripts) driven by Pilot.

A small host app mounts ``ChatPane`` on real ``Services``; only the model is replaced, by scripted
``FakeProvider``s handed out one per answer, so each test says exactly what the model does. The
tests press keys as a person would and assert on the store, the saved transcripts and the widgets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import pytest_textual_snapshot
from tests.support.polling import wait_for_async
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.pilot import Pilot
from textual.selection import Selection
from textual.widgets import Collapsible, Markdown
from textual.widgets._collapsible import CollapsibleTitle
from textual.widgets.markdown import MarkdownBlock
from textual.worker import WorkerState

from noted.chat.engine import ChatEngine
from noted.models import NoteDraft, NotePatch
from noted.profile import Profile
from noted.providers import AssistantMessage, CallTool, FakeProvider, Hang, Reply, UserMessage
from noted.providers.fake import Turn
from noted.services import Services
from noted.ui.chat import ChatPane
from noted.ui.chat.edits import DiffView, EditCard
from noted.ui.chat.picker import ConversationPicker
from noted.ui.chat.tool_call import ToolCallView
from noted.ui.chat.views import AnswerView, ChatInput, NoticeView, SetupNotice, UserMessageView

BODY = "# Shopping\n- milk\n- tea\n"
ROOT = Path(__file__).resolve().parents[2]


class _TopLevelSnapshots(pytest_textual_snapshot.SVGImageExtension):  # type: ignore[misc]
    """Keep SVG snapshots in the repository's top-level ``snapshots/`` folder."""

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(ROOT / "snapshots" / test_location.basename)


@pytest.fixture(autouse=True)
def _snapshots_at_top_level(monkeypatch: pytest.MonkeyPatch) -> None:
    # snap_compare looks the extension up when it runs; point it at snapshots/.
    monkeypatch.setattr(pytest_textual_snapshot, "SVGImageExtension", _TopLevelSnapshots)


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    s.settings.set("ai.enabled", True)
    s.settings.set("ai.provider", "fake")
    yield s
    s.close()


def make_note(services: Services, title: str = "Shopping", body: str = BODY) -> str:
    folders = services.store.list_folders()
    folder = folders[0] if folders else services.store.create_folder("Home", actor="user")
    return services.store.create_note(NoteDraft(title, body, parent_id=folder.id), actor="user").id


class Scripted:
    """Hands out one ``FakeProvider`` per answer, each playing the next script, and keeps them."""

    def __init__(self, *scripts: Sequence[Turn]) -> None:
        self._scripts = list(scripts)
        self.providers: list[FakeProvider] = []

    def __call__(self) -> FakeProvider:
        provider = FakeProvider(list(self._scripts.pop(0)) if self._scripts else [])
        self.providers.append(provider)
        return provider


class Host(App[None]):
    """The smallest app that mounts the pane, as the real app will."""

    def __init__(
        self, services: Services, engine: Callable[[], ChatEngine] | None, note_id: str | None
    ) -> None:
        super().__init__()
        self.services = services
        self.engine = engine
        self.note_id = note_id
        self.messages: list[Message] = []

    def compose(self) -> ComposeResult:
        pane = ChatPane(self.services, engine_factory=self.engine)
        pane.set_note(self.note_id)
        yield pane  # no Footer: it belongs to the real app, and rebuilds itself on every focus change

    def on_mount(self) -> None:
        self.query_one(ChatInput).cursor_blink = False  # deterministic snapshots

    @property
    def pane(self) -> ChatPane:
        return self.query_one(ChatPane)


def host(services: Services, *scripts: Sequence[Turn], note_id: str | None = None) -> tuple[Host, Scripted]:
    scripted = Scripted(*scripts)
    return Host(services, lambda: services.chat_engine(provider=scripted), note_id), scripted


async def until(pilot: Pilot[None], ready: Callable[[], bool]) -> None:
    await wait_for_async(ready, what="the pane's expected state", interval=0.01, pause=pilot.pause)


async def settle(pilot: Pilot[None]) -> None:
    """Wait until no worker runs (a finished answer starts a refresh, so wait more than once)."""
    app = pilot.app

    def idle() -> bool:
        return all(w.state not in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers)

    await until(pilot, idle)
    await pilot.pause()
    await until(pilot, idle)
    await pilot.pause()


async def ask(pilot: Pilot[None], text: str) -> None:
    """Type ``text`` and send it with Enter (the text is set at once: Pilot takes ~70 ms a key)."""
    prompt = pilot.app.query_one(ChatInput)
    prompt.focus()
    prompt.value = text
    await pilot.press("enter")


async def ask_for_a_write(pilot: Pilot[None], text: str) -> None:
    """``ask`` once the pane is idle, and wait until a card asks to approve a write."""
    await settle(pilot)
    await ask(pilot, text)
    await until(pilot, lambda: bool(pilot.app.query(".edit-card.-asking")))


def texts(app: App[None], kind: type[Any]) -> list[str]:
    out = []
    for widget in app.query(kind):
        out.append(widget.text if isinstance(widget, AnswerView) else str(widget.render()))
    return out


def blocks(markdown: Markdown) -> list[tuple[str, str]]:
    return [(type(b).__name__, b.source or "") for b in markdown.query_children(MarkdownBlock)]


# Keys ------------------------------------------------------------------------------------------


def test_every_chat_binding_has_an_id_a_description_and_a_tooltip() -> None:
    bindings = [*ChatPane.BINDINGS, *ChatInput.BINDINGS, *ConversationPicker.BINDINGS]
    ids = {b.id for b in bindings if isinstance(b, Binding) and b.id and b.description and b.tooltip}
    assert len(ids) == len(bindings)  # none is missing a part, no id is used twice
    wanted = {
        "chat.send",
        "chat.cancel",
        "chat.interrupt",
        "chat.accept",
        "chat.reject",
        "chat.undo",
        "chat.new",
        "chat.history",
    }
    assert wanted <= ids
    assert all(i in ChatPane.HELP for i in wanted)  # F1 names every remappable id


# Chat with a tool call -------------------------------------------------------------------------


async def test_an_answer_streams_as_markdown_with_a_tool_call_disclosure(services: Services) -> None:
    note = make_note(services)
    answer = "Tea is on the list.\n\n```text\nunclosed fence"
    app, scripted = host(
        services,
        [[Reply("Let me look."), CallTool("search_notes", {"query": "tea"})], [Reply(answer)]],
        note_id=note,
    )
    usage: list[ChatPane.UsageChanged] = []

    def record(message: Message) -> None:
        if isinstance(message, ChatPane.UsageChanged):
            usage.append(message)

    async with app.run_test(size=(100, 40), message_hook=record) as pilot:
        await settle(pilot)
        await ask(pilot, "Is tea on it?")
        await settle(pilot)

        assert texts(app, UserMessageView) == ["Is tea on it?"]
        assert [a.text for a in app.query(AnswerView)] == ["Let me look.", answer]
        # What is shown once the answer is done is the whole text parsed at once (the fence the
        # model left open included), block for block as a fresh Markdown widget shows it.
        final = app.query(AnswerView).last()
        reference = Markdown(answer)
        await app.mount(reference)
        await pilot.pause()
        assert final.source == answer and final.query("MarkdownFence")
        assert blocks(final) == blocks(reference)
        await reference.remove()

        call = app.query_one(ToolCallView)
        assert isinstance(call, Collapsible) and call.tool_name == "search_notes" and call.status == "ok"
        title = call.query_one(CollapsibleTitle)
        assert title.focusable and call.collapsed
        title.focus()
        await pilot.press("enter")
        assert not call.collapsed  # Enter opened it, no mouse needed
        shown = "\n".join(str(s.render()) for s in call.query(".tool-json"))
        assert '"query": "tea"' in shown and '"results"' in shown
        await pilot.press("enter")
        assert call.collapsed

    # What the person saw is what was saved.
    conversation = services.transcripts.latest_for_note(note)
    assert conversation is not None and conversation.title == "Is tea on it?"
    saved = services.transcripts.messages(conversation.id)
    assert saved[0] == UserMessage("Is tea on it?") and saved[-1] == AssistantMessage(answer)
    # The status bar is told the conversation's size, which grows with each request.
    totals = [u.size for u in usage]
    assert totals and totals[-1] > 0 and totals == sorted(totals)


# Edits: approve, reject, undo ------------------------------------------------------------------


def edit_script() -> list[Turn]:
    return [[CallTool("editor_replace", {"anchor": "- milk", "text": "- oat milk"})], [Reply("Changed.")]]


async def test_accepting_a_proposed_edit_with_y_writes_the_note(services: Services) -> None:
    services.settings.set("ai.tool.edit_current.enabled", True)  # approval stays on (the default)
    note = make_note(services)
    app, _ = host(services, edit_script(), note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Oat milk please")
        await until(pilot, lambda: bool(app.query(".edit-card.-asking")))

        card = app.query_one(EditCard)
        assert app.focused is card  # the keys act on the question, not in the input
        assert "+- oat milk" in str(card.query_one(DiffView).render())
        assert services.store.get_note(note).body == BODY  # nothing written before the answer
        await pilot.press("y")
        await settle(pilot)

        assert services.store.get_note(note).body == BODY.replace("- milk", "- oat milk")
        assert card.has_class("-applied") and card.applied is not None
        assert app.query(AnswerView).last().text == "Changed."


async def test_rejecting_a_proposed_edit_with_its_button_writes_nothing(services: Services) -> None:
    services.settings.set("ai.tool.edit_current.enabled", True)
    note = make_note(services)
    app, scripted = host(services, edit_script(), note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Oat milk please")
        await until(pilot, lambda: bool(app.query(".edit-card.-asking")))
        await pilot.click("#card-reject")
        await settle(pilot)

        card = app.query_one(EditCard)
        assert card.has_class("-refused") and card.applied is None
        # The edit tool's line said ✓ while the edit was held; declined, it must say refused
        # (before the fix it kept ✓ and status "ok").
        call = app.query_one(ToolCallView)
        assert call.status == "refused" and str(call.title).startswith("⊘")
    assert services.store.get_note(note).body == BODY
    # The model was told no (not that its edit was saved).
    last_request = scripted.providers[0].requests[-1]
    assert "declined" in last_request.messages[-1].content  # type: ignore[union-attr]


async def test_u_undoes_an_applied_edit_and_restores_the_note(services: Services) -> None:
    services.settings.set("ai.tool.edit_current.enabled", True)
    services.settings.set("ai.approveWrites", False)
    note = make_note(services)
    app, _ = host(services, edit_script(), note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Oat milk please")
        await settle(pilot)
        assert "oat milk" in services.store.get_note(note).body

        assert "Chat: undo the last edit" in [c.title for c in app.pane.commands()]  # also in the palette
        assert isinstance(app.focused, ChatInput)  # the person is back in the message box
        await pilot.press("ctrl+z")  # undoes from there (u, which would be typed, works on the card)
        await settle(pilot)

        assert services.store.get_note(note).body == BODY
        assert app.query_one(EditCard).has_class("-undone")
        # Once: again, there is nothing more to undo, and it says so (before, it said nothing).
        await pilot.press("ctrl+z")
        await until(pilot, lambda: any("Nothing to undo" in n.message for n in app._notifications))
        assert services.store.get_note(note).body == BODY


async def test_undo_is_refused_when_the_note_changed_after_the_edit(services: Services) -> None:
    services.settings.set("ai.tool.edit_current.enabled", True)
    services.settings.set("ai.approveWrites", False)
    note = make_note(services)
    app, _ = host(services, edit_script(), note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Oat milk please")
        await settle(pilot)
        edited = services.store.get_note(note)
        later = edited.body + "- honey\n"
        services.store.update_note(
            note, NotePatch(body=later), actor="user", base_updated_time=edited.updated_time
        )

        app.query_one(EditCard).focus()
        await pilot.press("u")
        await settle(pilot)

        assert services.store.get_note(note).body == later  # the person's later change is kept
        status = str(app.query_one(EditCard).query_one(".card-status").render())
        assert status.startswith("Not undone:") and "changed" in status


# Cancelling ------------------------------------------------------------------------------------

HALF: list[Turn] = [[Reply("Half an answer", chunk_size=100), Hang()]]
"""An answer that stops half-way and waits, until it is stopped."""


async def half_answered(pilot: Pilot[None]) -> None:
    """Ask, once the pane is idle, and wait until the first half of ``HALF`` shows."""
    await settle(pilot)
    await ask(pilot, "Tell me everything")
    await until(pilot, lambda: any(a.text for a in pilot.app.query(AnswerView)))


async def test_escape_stops_a_hanging_answer_and_the_pane_says_stopped(services: Services) -> None:
    note = make_note(services)
    app, scripted = host(services, HALF, note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await half_answered(pilot)
        assert app.pane.running
        await pilot.press("escape")
        await settle(pilot)

        assert not app.pane.running
        assert "stopped" in texts(app, NoticeView)
        assert scripted.providers[0].cancelled == 1  # the model's stream was really stopped
    conversation = services.transcripts.latest_for_note(note)
    assert conversation is not None
    last = services.transcripts.messages(conversation.id)[-1]
    assert isinstance(last, AssistantMessage) and last.text.startswith("Half an answer")


async def test_ctrl_c_stops_an_answer_unless_text_is_selected_which_it_copies(services: Services) -> None:
    # Textual gives Ctrl+C to "copy the selection", then to a hint about Ctrl+Q: mid-answer it
    # stopped nothing. Each press below would stop the answer if the copies were not tried first.
    note = make_note(services)
    app, scripted = host(services, HALF, note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await half_answered(pilot)
        box = app.query_one(ChatInput)
        box.value = "a draft"
        box.select_all()
        await pilot.press("ctrl+c")
        assert app.clipboard == "a draft" and app.pane.running  # the box's selection is copied

        box.move_cursor(box.document.end)
        await pilot.pause()  # (moving the box's cursor clears the screen's selection, when it is handled)
        block = app.query_one(AnswerView).query(MarkdownBlock).first()
        app.screen.selections = {block: Selection(None, None)}  # the answer selected on screen
        await pilot.press("ctrl+c")
        assert app.clipboard == "Half an answer" and app.pane.running

        app.screen.selections = {}
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert not app.pane.running and scripted.providers[0].cancelled == 1
        assert "stopped" in texts(app, NoticeView)


async def test_opening_another_note_mid_answer_stops_it_and_keeps_what_was_said(services: Services) -> None:
    first, second = make_note(services, "First"), make_note(services, "Second")
    app, scripted = host(services, HALF, note_id=first)
    async with app.run_test(size=(100, 40)) as pilot:
        await half_answered(pilot)
        app.pane.set_note(second)
        await settle(pilot)

        assert not app.pane.running and scripted.providers[0].cancelled == 1
        assert not app.query(AnswerView) and app.pane.conversation is None  # the second note's fresh chat
    conversation = services.transcripts.latest_for_note(first)
    assert conversation is not None
    last = services.transcripts.messages(conversation.id)[-1]
    assert isinstance(last, AssistantMessage) and last.text.startswith("Half an answer")


# Conversations per note ------------------------------------------------------------------------


async def test_switching_notes_resumes_each_notes_conversation(services: Services) -> None:
    first, second = make_note(services, "First"), make_note(services, "Second")
    first_script: list[Turn] = [
        [Reply("Looking."), CallTool("search_notes", {"query": "first"})],
        [Reply("About it.")],
    ]
    app, _ = host(services, first_script, [[Reply("About the second.")]], note_id=first)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "What is this?")
        await settle(pilot)
        chat_of_first = app.pane.conversation
        assert chat_of_first is not None and chat_of_first.note_id == first

        app.pane.set_note(second)
        await settle(pilot)
        assert app.pane.conversation is None and not app.query(UserMessageView)  # a fresh chat
        await ask(pilot, "And this?")
        await settle(pilot)

        app.pane.set_note(first)
        await settle(pilot)
        assert app.pane.conversation is not None and app.pane.conversation.id == chat_of_first.id
        assert texts(app, UserMessageView) == ["What is this?"]
        assert [a.text for a in app.query(AnswerView)] == ["Looking.", "About it."]
        # The saved tool call comes back with its result; the note pre-loaded for the model does not.
        calls = list(app.query(ToolCallView))
        assert [(c.tool_name, c.status) for c in calls] == [("search_notes", "ok")]


async def test_ctrl_n_starts_a_new_chat_and_the_chat_list_resumes_an_earlier_one(services: Services) -> None:
    note = make_note(services)
    app, _ = host(services, [[Reply("One.")]], [[Reply("Two.")]], note_id=note)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "First chat")
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert app.pane.conversation is None and not app.query(UserMessageView)
        await ask(pilot, "Second chat")
        await settle(pilot)
        assert len(services.transcripts.recent(note_id=note)) == 2

        app.set_keymap({"chat.history": "f2"})  # keys are remapped by binding id (ui.keymap)
        await pilot.press("f2")
        picker = app.query_one(ConversationPicker)
        assert picker.shown and app.focused is picker
        await pilot.press("j", "enter")  # newest first: the second row is the first chat
        await settle(pilot)
        assert texts(app, UserMessageView) == ["First chat"]
        assert app.pane.conversation is not None and app.pane.conversation.title == "First chat"


# When the assistant cannot answer ---------------------------------------------------------------


async def test_with_the_assistant_off_the_pane_says_how_to_set_it_up(services: Services) -> None:
    services.settings.set("ai.enabled", False)
    app, scripted = host(services, [[Reply("never")]], note_id=make_note(services))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        notice = app.query_one(SetupNotice)
        lines = str(notice.render()).splitlines()
        assert notice.display and len(lines) == 2
        assert "ai.enabled" in lines[0] and "noted config set ai.enabled true" in lines[1]

        await ask(pilot, "Hello?")
        await settle(pilot)
        assert scripted.providers == [] and services.transcripts.recent() == []  # nothing sent or saved

        services.settings.set("ai.enabled", True)  # e.g. from the settings screen
        await settle(pilot)
        assert not notice.display


async def test_a_provider_error_shows_its_remedy(services: Services) -> None:
    # A remote endpoint without ai.allowRemote: the message names the setting to switch.
    services.settings.set("ai.provider", "openai")
    services.settings.set("ai.baseUrl", "https://models.example.com/v1")
    services.settings.set("ai.model", "m")
    app = Host(services, None, make_note(services))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        prompt = app.query_one(ChatInput)
        prompt.focus()
        app.post_message(events.Paste("Hello\nthere?"))  # a pasted paragraph keeps every line
        await pilot.pause()
        assert prompt.value == "Hello\nthere?"
        await ask(pilot, "Hello?")
        await settle(pilot)
        errors = [n for n in app.query(NoticeView) if n.kind == "error"]
        assert errors and "ai.allowRemote" in (errors[-1].remedy or "")


# Snapshots -------------------------------------------------------------------------------------


def snapshot_app(services: Services) -> Host:
    services.settings.set("ai.tool.edit_current.enabled", True)
    services.settings.set("ai.approveWrites", False)
    note = make_note(services)
    script: list[Turn] = [
        [Reply("Let me check."), CallTool("search_notes", {"query": "tea"})],
        [CallTool("editor_replace", {"anchor": "- milk", "text": "- oat milk"})],
        [Reply("Done: the list now says **oat milk**.\n\n- milk → oat milk\n- tea stays")],
    ]
    app, _ = host(services, script, note_id=note)
    return app


async def _exchange(pilot: Pilot[None]) -> None:
    await settle(pilot)
    await ask(pilot, "Switch to oat milk")
    await settle(pilot)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_after_a_scripted_exchange(
    services: Services, snap_compare: Any, size: tuple[int, int]
) -> None:
    assert snap_compare(snapshot_app(services), terminal_size=size, run_before=_exchange)


def test_snapshot_with_the_assistant_off(services: Services, snap_compare: Any) -> None:
    services.settings.set("ai.enabled", False)
    app, _ = host(services, note_id=make_note(services))
    assert snap_compare(app, terminal_size=(80, 24), run_before=settle)


async def test_a_refused_tool_calls_line_is_shown_whole_in_a_narrow_pane(services: Services) -> None:
    # edit_current is off by default, so the call is refused; its line is longer than the pane.
    note = make_note(services)
    long = "a much longer replacement text than the pane is wide"
    script: list[Turn] = [
        [CallTool("editor_replace", {"anchor": "- milk", "text": long})],
        [Reply("Could not.")],
    ]
    app, _ = host(services, script, note_id=note)
    async with app.run_test(size=(44, 30)) as pilot:
        await settle(pilot)
        await ask(pilot, "Change it")
        await settle(pilot)
        call = app.query_one(ToolCallView)
        assert call.status == "refused"
        title = call.query_one(CollapsibleTitle)
        # Before the fix the title was one line cut at the pane's edge ("… (ref"): the words
        # after the cut were on no line of the screen.
        shown = " ".join(
            "".join(s.text for s in title.render_line(y)).strip() for y in range(title.size.height)
        )
        assert "(refused: the tool" in shown and shown.endswith("…)"), shown
        assert title.region.right <= call.region.right
