"""The chat engine: one person's message in, a stream of typed events out.

``ChatEngine.run`` sends the conversation to the provider, streams the answer, runs the tool calls
of each round through the one tool registry, sends the results back, and repeats until the model
answers in text. The calls themselves, their approvals and the saving of the open note's edits
are in ``noted.chat.calls``. The engine is headless: the TUI's chat pane and ``noted ask`` only
render its events and answer its approvals.

Rules it keeps:
- The open note is pre-loaded as a synthetic ``editor_read_note`` call at the start of a
  conversation; the system prompt stays the same for every turn so providers can cache it.
- The open note is not pre-loaded when ``editor_read_note`` is switched off.
- After ``MAX_FAILED_ROUNDS`` consecutive rounds whose tool calls all failed, the next round is
  offered no tools, so a confused model must answer in words; a call it makes anyway is not run.
- A write the registry would refuse (switched off, bad arguments) is refused without asking the
  person: approval is asked only for a call that would run.
- Edits of the open note made in one round are saved once after the round, and refused whole if
  the note moved meanwhile. With ``ai.approveWrites`` on, the person sees the diff (or the write
  tool and its arguments) and says yes or no; a no reaches the model as a refusal. In review mode
  the other writes wait as proposals, and the diff is always asked about.
- A request over the token budget is refused with the remedies, never silently cut; the refused
  message is not saved, so the conversation is not stuck over the budget.
- Cancelling stops the stream at once (its HTTP response is closed before ``Cancelled``) and saves
  what was said, so the conversation stays valid: a round cut short is saved with a result for
  every call, those that did not run (or edits not saved) marked so.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from noted.chat.budget import check_budget, estimate_tokens
from noted.chat.calls import RoundCalls
from noted.chat.claim import claimed
from noted.chat.events import (
    BatchApplied,
    Cancelled,
    ChatEvent,
    Done,
    EditsApplied,
    EditsProposed,
    EditsRefused,
    Failed,
    TextDelta,
    UsageReport,
    Waiting,
)
from noted.chat.prompts import preload_messages, system_prompt
from noted.chat.transcripts import Conversation, Entry, Notice, Transcripts
from noted.chat.turns import BREAK, STOP, Ending, call_ids, mark_edits, round_messages, unique_call
from noted.chat.waiting import Stopped, patient_stream
from noted.errors import NotedError
from noted.models import Note, ToolStatus, assistant_actor
from noted.ops.batch_undo import Undone, restore
from noted.ops.notes import undo_edit
from noted.ops.session import EditorSession
from noted.providers import (
    AssistantMessage,
    ChatProvider,
    ChatRequest,
    Message,
    ProviderEvent,
    ToolCallReady,
    ToolSpec,
    Usage,
    UserMessage,
)
from noted.tools import ToolContext, ToolRegistry, ToolResult
from noted.wording import plural

log = logging.getLogger(__name__)

MAX_FAILED_ROUNDS = 5
MAX_ROUNDS = 25


@dataclass(frozen=True, slots=True)
class ChatSetup:
    """What a run needs besides the conversation: built by the composition root."""

    provider: Callable[[], ChatProvider]
    """Builds the configured provider, or raises ``UnavailableError``/``ConfigError`` saying why."""
    registry: ToolRegistry
    context: Callable[[str, EditorSession | None], ToolContext]
    """Builds the tool context for an actor and the open note's session."""
    transcripts: Transcripts
    approve_writes: Callable[[], bool]
    budget: Callable[[], int]
    timeout: Callable[[], float] = lambda: 120.0
    """``ai.timeoutSeconds``: how long the person waits for an answer to begin, retries included."""
    retries: int = 2
    """How often a try that failed in a way worth retrying is tried again within ``timeout``."""
    refresh: Callable[[ToolContext], None] = lambda ctx: None
    """Re-reads the config file if another process changed it and brings a run's context up to
    it (``ai.writes``), so the model built for a run (``ai.allowRemote``) and each tool call
    (its switch, review mode) follow the file as it is now. Blocking: runs in a worker thread."""
    label: str = "tui"
    """Names this process to another window that sends in a conversation while it answers."""


class ChatEngine:
    """Runs conversations; one engine serves every conversation of a process."""

    def __init__(self, setup: ChatSetup) -> None:
        self.setup = setup

    async def run(
        self,
        conversation: Conversation,
        text: str,
        *,
        editor: EditorSession | None = None,
        cancel: asyncio.Event | None = None,
        replacing: AbstractSet[str] = frozenset(),
    ) -> AsyncIterator[ChatEvent]:
        """Answer ``text`` in ``conversation``; yields events until Done, Failed or Cancelled.

        When the last saved message of the person is one of ``replacing`` (what their last message
        said as they saw it, and what the edits of it since their last new message replaced, which
        may have been refused), ``text`` replaces it and what followed it: the answer, its tool
        calls and any error, once the new request fits the budget. Notices of changes the answer
        made to notes stay (the changes stay made). Otherwise (a message refused, so never saved)
        ``text`` is simply sent.
        """
        run = _Run(self.setup, conversation, editor, cancel or asyncio.Event())
        async for event in run.go(text, replacing):
            yield event

    def size(self, conversation: Conversation, editor: EditorSession | None = None) -> int:
        """About how many tokens the conversation's next request takes of ``ai.budgetTokens``, as the
        budget check measures it: the system prompt, the tools offered and the saved messages
        (blocking: call it from a thread)."""
        run = _Run(self.setup, conversation, editor, asyncio.Event())
        return estimate_tokens(run.request(self.setup.transcripts.messages(conversation.id)))

    def undo(self, applied: EditsApplied, conversation_id: str | None = None) -> Note:
        """Put the note back as it was before ``applied`` (a new save by the person), and say so
        in ``conversation_id``'s transcript, so a resumed chat shows the change undone.

        Raises ``ConflictError`` when the note changed after the edit, so a later edit is not lost.
        """
        store = self.setup.context("user", None).store
        note = undo_edit(store, applied.before, applied.after_updated_time, actor="user")
        if conversation_id is not None:
            undone = Notice(UNDONE, kind="undone", ticket=applied.after_updated_time)
            self.setup.transcripts.append(conversation_id, [undone])
        return note

    def undo_batch(self, applied: BatchApplied, conversation_id: str | None = None) -> Undone:
        """Undo the batch ``applied`` as the person (``noted.ops.batch_undo.restore``: what changed
        since is left as it is, and named, as are the changes no undo can take back), and say so
        in ``conversation_id``'s transcript, so a resumed chat shows what was undone."""
        store = self.setup.context("user", None).store
        undone = (
            restore(store, applied.batch, actor="user") if applied.batch else Undone(0, (), applied.final)
        )
        if conversation_id is not None:
            notice = Notice(undone.message, kind=UNDONE_BATCH)
            self.setup.transcripts.append(conversation_id, [notice])
        return undone


class _Run:
    """The state of one run; split from the engine so the engine holds no per-run state."""

    def __init__(
        self,
        setup: ChatSetup,
        conversation: Conversation,
        editor: EditorSession | None,
        cancel: asyncio.Event,
    ) -> None:
        self.setup = setup
        self.conversation = conversation
        self.editor = editor
        self.cancel = cancel
        self.actor = assistant_actor(conversation.id)
        self.ctx = setup.context(self.actor, editor)
        self.calls = RoundCalls(
            setup.registry, self.ctx, setup.approve_writes, cancel, editor, self.actor, self.refresh
        )
        self.text = ""
        self.unsaved: list[Entry] = []
        """The person's message (and the pre-loaded note), saved once the first request fits the budget."""
        self.keep: int | None = None
        """How many saved entries stay when ``unsaved`` is saved (None: all; see ``replacing``)."""
        self.title: str | None = None
        self.call_ids: set[str] = set()  # the conversation's, which a new call's must not repeat
        self.round: tuple[list[ToolCallReady], list[ToolResult]] | None = None
        """The tool calls of the round being run and the results so far, for a cancel to save."""

    def refresh(self) -> None:
        """The settings as the config file says now (``ChatSetup.refresh``); in a worker thread."""
        self.setup.refresh(self.ctx)

    async def go(self, text: str, replacing: AbstractSet[str] = frozenset()) -> AsyncIterator[ChatEvent]:
        async with claimed(self.setup.transcripts, self.conversation.id, self.setup.label) as busy:
            if busy is not None:  # another window answers in it: nothing of this message is saved
                yield busy
                return
            async for event in self._answer(text, replacing):
                yield event

    async def _answer(self, text: str, replacing: AbstractSet[str]) -> AsyncIterator[ChatEvent]:
        await asyncio.to_thread(self.refresh)
        try:
            provider = self.setup.provider()
        except NotedError as exc:
            yield Failed(exc.message, exc.hint)
            return
        try:
            history = await asyncio.to_thread(self._start, text, replacing)
            async for event in self._rounds(provider, history):
                yield event
        except Stopped:
            await asyncio.to_thread(self._save_partial)
            yield Cancelled(self.text)
        except asyncio.CancelledError:
            await asyncio.shield(asyncio.to_thread(self._save_partial))
            raise
        except NotedError as exc:
            await asyncio.to_thread(self._save_failure, exc.message, exc.hint)
            yield Failed(exc.message, exc.hint)
        except Exception as exc:
            log.exception("chat run failed")
            failed = Failed(
                f"internal error: {type(exc).__name__}", "the details are in the profile's noted.log"
            )
            await asyncio.to_thread(self._save_failure, failed.message, failed.remedy)
            yield failed
        finally:
            await _close(provider)

    def _start(self, text: str, replacing: AbstractSet[str]) -> list[Message]:
        transcripts = self.setup.transcripts
        # The caller's value may be stale (a chat pane keeps it across runs): totals and title
        # come from the saved conversation.
        self.conversation = transcripts.get(self.conversation.id)
        last = transcripts.last_turn(self.conversation.id) if replacing else None
        carried: list[Entry] = []
        if last is not None and last.text in replacing:
            history, self.keep, carried = list(last.history), last.keep, list(last.carried)
        else:
            history = transcripts.messages(self.conversation.id)
        # The person speaks first (some providers require it); on the first turn the open note
        # follows as if the assistant had read it, which saves a round trip. A switched-off
        # reader means the person does not want the note sent, so it is not pre-loaded either.
        new: list[Message] = [UserMessage(text)]
        tool = self.setup.registry.get("editor_read_note")
        if not history and self.editor is not None and tool is not None and self.setup.registry.enabled(tool):
            new += preload_messages(tool.handler(self.ctx, {}))
        # A first message edited names the conversation anew.
        renamed = self.keep is not None and not any(isinstance(m, UserMessage) for m in history)
        if (renamed or not self.conversation.title) and text.strip():
            self.title = text.strip().splitlines()[0][:80]
        self.unsaved = [*carried, *new]
        self.call_ids = call_ids(history + new)
        return history + new

    def request(self, history: list[Message], *, paused: bool = False) -> ChatRequest:
        """The request a round sends: the system prompt, the tools offered (none while ``paused``)
        and ``history``."""
        note = self.editor
        system = system_prompt(
            note_title=note.title if note else None, note_id=note.note_id if note else None
        )
        offered = [] if paused else self.setup.registry.offered(self.ctx)
        specs = tuple(ToolSpec(t.name, t.description, t.input_schema) for t in offered)
        return ChatRequest(system=system, messages=tuple(history), tools=specs)

    async def _rounds(self, provider: ChatProvider, history: list[Message]) -> AsyncIterator[ChatEvent]:
        failed_rounds = 0
        for round_ in range(MAX_ROUNDS):
            if round_:  # the tools offered as switched on now (``go`` read the file for the first)
                await asyncio.to_thread(self.refresh)
            paused = failed_rounds >= MAX_FAILED_ROUNDS
            request = self.request(history, paused=paused)
            check_budget(request, self.setup.budget())
            await self._save_unsaved()
            self.text = ""
            calls: list[ToolCallReady] = []
            usage = (0, 0)
            async for piece in self._stream(provider, request):
                if isinstance(piece, Waiting):
                    yield piece
                elif isinstance(piece, TextDelta):
                    self.text += piece.text
                    yield piece
                elif isinstance(piece, ToolCallReady):
                    calls.append(unique_call(piece, self.call_ids))
                elif isinstance(piece, Usage):
                    usage = (piece.input_tokens, piece.output_tokens)
                    # The conversation's size: this request and its answer, which the next request
                    # carries again (not the sum over requests, which counts the start many times).
                    yield UsageReport(piece.input_tokens, piece.output_tokens, sum(usage))
            if not calls:
                answer = AssistantMessage(self.text)
                await asyncio.to_thread(
                    self.setup.transcripts.append, self.conversation.id, [answer], usage=usage
                )
                yield Done(self.text)
                return
            results: list[ToolResult] = []
            self.round = (calls, results)
            async for event in self.calls.run_calls(calls, results, paused=paused):
                yield event
            change: list[Entry] = []
            async for event in self.calls.commit_edits(results):
                change = change_notice(event, change)
                yield event
            self.round = None
            saved = round_messages(self.text, calls, results)
            history += saved
            await asyncio.to_thread(
                self.setup.transcripts.append, self.conversation.id, [*saved, *change], usage=usage
            )
            self.text = ""
            failed_rounds = failed_rounds + 1 if all(not r.ok for r in results) else 0
        yield Failed(f"the model kept calling tools for {MAX_ROUNDS} rounds", "ask a narrower question")

    async def _save_unsaved(self) -> None:
        """Save the person's message once the first request is known to fit the budget, so a refused
        message does not stay in the conversation and push every later request over too."""
        if self.unsaved:
            new, self.unsaved = self.unsaved, []
            await asyncio.to_thread(
                self.setup.transcripts.append, self.conversation.id, new, title=self.title, keep=self.keep
            )

    async def _stream(
        self, provider: ChatProvider, request: ChatRequest
    ) -> AsyncIterator[ProviderEvent | Waiting]:
        """The provider's events within ``ai.timeoutSeconds``, stopped at once when the person cancels."""
        setup = self.setup
        async for event in patient_stream(
            provider, request, self.cancel, timeout=setup.timeout(), retries=setup.retries
        ):
            yield event

    def _save_partial(self, ending: Ending = STOP, notice: Notice | None = None) -> None:
        """Keep what was said before a cancel (or a failure), as a history every provider accepts:
        the calls of a round cut short are saved with their results, those that did not run marked
        so; then ``notice``, which the person sees when the chat is resumed and the model never does."""
        if self.editor is not None:
            self.editor.discard()
        messages: list[Entry] = []
        if self.round is not None:
            calls, results = self.round
            done = [mark_edits(r, ending.not_saved) for r in results]
            done += [
                ToolResult(c.name, ToolStatus.REFUSED, message=ending.not_run) for c in calls[len(done) :]
            ]
            messages += round_messages(self.text + ending.mark if self.text else "", calls, done)
        elif self.text:
            messages.append(AssistantMessage(self.text + ending.mark))
        if notice is not None:
            messages.append(notice)
        if messages:
            self.setup.transcripts.append(self.conversation.id, messages)

    def _save_failure(self, message: str, remedy: str | None) -> None:
        """Keep a reply that ended in an error, with the error, unless the person's message itself
        was refused before it was saved (over the budget): then nothing of the run is kept."""
        if self.unsaved:
            return
        self._save_partial(BREAK, Notice(message, remedy))


async def _close(provider: ChatProvider) -> None:
    try:
        await provider.aclose()
    except Exception:
        log.debug("closing the provider failed", exc_info=True)


UNDONE = "Undone: the note is back as it was before this change."
UNDONE_BATCH = "undone-batch"
"""The kind of the notice that says what undoing a batch did (``Undone.message``)."""


def change_notice(event: ChatEvent, so_far: list[Entry]) -> list[Entry]:
    """The notice that keeps a round's change of the open note for a resumed chat: its diff once
    proposed, then whether it was saved (and which save it was, for an undo) or refused."""
    match event:
        case EditsProposed(diff=diff, edits=edits):
            return [Notice(f"Proposed: {plural(edits, 'edit')} to the note", kind="change", detail=diff)]
        case EditsApplied(message=message, after_updated_time=after):
            detail = so_far[0].detail if so_far and isinstance(so_far[0], Notice) else ""
            return [Notice(message, kind="change", detail=detail, ticket=after)]
        case EditsRefused(message=message):
            detail = so_far[0].detail if so_far and isinstance(so_far[0], Notice) else ""
            return [Notice(message, kind="change", detail=detail)]
    return so_far
