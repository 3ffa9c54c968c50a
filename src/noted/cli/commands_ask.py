"""``noted ask``: the assistant from the command line, streamed to stdout.

The answer streams to stdout; tool calls and edits are reported on stderr; approvals are asked on
the terminal (and declined when there is no terminal to ask on, which ends with exit code 4 so a
script notices). ``--json`` prints one report at the end and ``--stream`` JSON lines of events
instead (see ``ask_json``). Ctrl-C stops the answer at once and keeps the conversation consistent.
Provider errors exit non-zero with the remedy.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import select
import signal
import sys
from typing import TYPE_CHECKING

from noted.chat.events import (
    ApprovalRequested,
    BatchApplied,
    Cancelled,
    ChatEvent,
    Done,
    EditsApplied,
    EditsProposed,
    EditsRefused,
    Failed,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    UsageReport,
    Waiting,
)
from noted.chat.transcripts import Conversation
from noted.cli.args import Commands, read_stdin
from noted.cli.ask_json import JsonReport, event_json, print_line
from noted.cli.context import CliContext
from noted.cli.exits import ExitCode
from noted.cli.terminal import shown
from noted.errors import InvalidInputError
from noted.ops.resolve import refuse_trashed, resolve_note
from noted.ops.session import EditorSession  # light: the editing session needs no tool

if TYPE_CHECKING:  # the engine and the tools load only when a question is asked
    from noted.chat.engine import ChatEngine

ANSWER_POLL_SECONDS = 0.1
"""How long the approval prompt waits for a key before letting a pending Ctrl-C run."""


def register(sub: Commands) -> None:
    """Add ``ask`` and ``chats``."""
    p = sub.add("ask", cmd_ask, "Ask the assistant; the answer streams to stdout.")
    p.add_argument("question", help="what to ask (use - to read it from stdin)")
    p.add_argument("--note", metavar="ID|TITLE", help="talk about this note (its editor tools are offered)")
    p.add_argument("--new", action="store_true", help="start a new conversation instead of resuming")
    p.add_argument("--yes", action="store_true", help="approve every write without asking")
    p.add_argument(
        "--stream",
        action="store_true",
        help="print each event as a line of JSON as it comes (implies --json)",
    )
    c = sub.add("chats", cmd_chats, "List, search or delete saved conversations.")
    c.add_argument("--note", metavar="ID|TITLE", help="only conversations about this note")
    c.add_argument("--search", metavar="TEXT", help="only conversations containing TEXT")
    c.add_argument("--delete", metavar="ID", help="delete this conversation (its id or the start of it)")


def _conversation(ctx: CliContext, note_id: str, new: bool) -> tuple[Conversation, bool]:
    """The conversation to ask in, and whether this run started it."""
    transcripts = ctx.services.transcripts
    if not new:
        latest = transcripts.latest_for_note(note_id)
        if latest is not None:
            return latest, False
    return transcripts.create(note_id=note_id), True


def cmd_ask(args: argparse.Namespace, ctx: CliContext) -> int:
    question = read_stdin() if args.question == "-" else args.question
    if not question.strip():
        raise InvalidInputError("the question is empty")
    services = ctx.services
    editor = None
    if args.note is not None:
        note = refuse_trashed(resolve_note(services.store, args.note))  # as edit, tag and move do
        editor = EditorSession.open(services.store, note.id)
    provider = services.provider()  # refuses (ai.enabled, ai.allowRemote…) before anything is saved
    conversation, started = _conversation(ctx, editor.note_id if editor else "", args.new)
    engine = services.chat_engine(provider=lambda: provider, label="noted ask")
    mode = "stream" if args.stream else "json" if ctx.json else "text"
    renderer = _Renderer(args.yes, asyncio.Event(), mode, conversation.id)
    code = asyncio.run(_ask(engine, conversation, question, editor, renderer))
    # Kept only if something of it was; one found empty may be another window's, just started.
    if started:
        services.transcripts.drop_if_empty(conversation.id)
    if mode == "json":
        ctx.emit(renderer.report.payload())
    return code


async def _ask(
    engine: ChatEngine,
    conversation: Conversation,
    question: str,
    editor: EditorSession | None,
    renderer: _Renderer,
) -> int:
    # Ctrl-C asks the engine to stop, as Esc does in the app: the stream is closed, what was said
    # is saved, and the run ends with Cancelled instead of an exception tearing it down.
    cancel = renderer.cancel = asyncio.Event()  # of this run's loop
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, cancel.set)
        handled = True
    except (NotImplementedError, RuntimeError, ValueError):  # no loop signal handling (Windows)
        handled = False
    code = 0
    try:
        async for event in engine.run(conversation, question, editor=editor, cancel=cancel):
            code = renderer.render(event) or code
    finally:
        if handled:
            loop.remove_signal_handler(signal.SIGINT)
    if code == 0 and renderer.declined:
        return ExitCode.WRITE_DECLINED
    return code


class _Renderer:
    """Answers a run's approvals and writes its events: as text (the answer to stdout, the rest to
    stderr), as one JSON object at the end (``json``) or as JSON lines (``stream``)."""

    def __init__(self, approve_all: bool, cancel: asyncio.Event, mode: str, conversation_id: str) -> None:
        self.approve_all = approve_all
        self.cancel = cancel
        self.mode = mode
        self.report = JsonReport(conversation_id)
        self.declined = False
        """A write the model asked for was not approved: the run ends with exit code 4."""
        self.break_before_text = False
        """Text of an earlier round ended without a line break before tool calls: start a new line."""
        self.last = "\n"
        self.lines: dict[str, str] = {}
        """The line of each call started and not finished, said once it ends (``told``)."""

    def render(self, event: ChatEvent) -> int:
        """Handle one event; returns the exit code it calls for (0 for most)."""
        if isinstance(event, ApprovalRequested):
            self._approve(event)
        if self.mode == "text":
            self._text(event)
        elif self.mode == "stream" and not isinstance(event, ApprovalRequested):  # printed by _approve
            print_line(event_json(event))
        else:
            self.report.add(event)
        if isinstance(event, Failed):  # on stderr in every mode: stdout is the answer's, or the JSON's
            message = f"noted: {event.message}" + (f" ({event.remedy})" if event.remedy else "")
            print(shown(message, sys.stderr), file=sys.stderr)
        match event:
            case Cancelled():
                return ExitCode.INTERRUPTED
            case Failed() | EditsRefused(declined=False):  # an edit said yes to, or asked, not written
                return ExitCode.REFUSED
        return 0

    def _approve(self, event: ApprovalRequested) -> None:
        approval = event.approval
        if self.mode == "stream":
            print_line(event_json(event))  # before the prompt, so a reader knows what is asked
        answer = self.approve_all or _confirm(approval.title, self.cancel)
        if self.cancel.is_set():
            return
        approval.decide(answer)
        self.declined = self.declined or not answer
        self.report.approved(event.tool, approval.title, answer)
        if self.mode == "stream":
            print_line({"type": "approval_answer", "tool": event.tool, "approved": answer})

    def _text(self, event: ChatEvent) -> None:
        from noted.chat.turns import outcome, told

        out, err = sys.stdout, sys.stderr
        match event:
            case TextDelta(text=text):
                if self.break_before_text:
                    out.write("\n")
                    self.break_before_text = False
                out.write(shown(text, out))
                out.flush()
                self.last = text[-1:] or self.last
            case ToolCallStarted(call_id=call_id, summary=summary):
                self.break_before_text = self.last != "\n"
                self.lines[call_id] = summary
            case ToolCallFinished(call_id=call_id, name=name, status=status, result=result, reason=reason):
                # Said once it ended, in the words of what it did (``searched for "milk"``).
                kind, said = outcome(status, result, reason)
                line = told(name, self.lines.pop(call_id, name), kind)
                print(shown(f"\n· {line}" + ("" if kind == "done" else f"\n  {said}"), err), file=err)
            case EditsProposed(diff=diff):
                print(shown(diff, err), file=err)
            case (
                EditsApplied(message=message) | EditsRefused(message=message) | BatchApplied(message=message)
            ):
                print(shown(f"· {message}", err), file=err)
            case UsageReport():
                pass
            case Waiting(reason=reason, retry=retry, retries=retries) if reason:
                print(shown(f"· retry {retry} of {retries}: {reason}", err), file=err)
            case Done():
                out.write("\n")
            case Cancelled():
                print("\n(stopped)", file=err)


def _confirm(question: str, cancel: asyncio.Event) -> bool:
    """Ask on the terminal; Ctrl-C here stops the run (sets ``cancel``) instead of answering."""
    if not sys.stdin.isatty():
        print(
            shown(f"{question} no (no terminal to ask on; pass --yes to approve)", sys.stderr),
            file=sys.stderr,
        )
        return False
    # The loop's Ctrl-C handler cannot run while input() blocks the loop; let Ctrl-C interrupt
    # the prompt itself for as long as it is shown. The prompt goes to stderr, like every
    # message that is not the answer.
    try:
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread: Ctrl-C keeps its usual meaning
        previous = None
    try:
        print(shown(f"{question} [y/N] ", sys.stderr), end="", file=sys.stderr, flush=True)
        answer = _read_answer()
    except KeyboardInterrupt:
        cancel.set()
        return False
    except EOFError:
        return False
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return answer.strip().lower() in ("y", "yes")


def _read_answer() -> str:
    """One line typed on the terminal (stdin is one), or EOFError at its end.

    Not one blocking read: Ctrl-C may be delivered to another thread of the process (the loop's
    executor), and then it does not interrupt a read in this one, so the prompt would stay until
    Enter. Between two short waits the interpreter runs the pending handler, which raises
    ``KeyboardInterrupt`` here. Read from the descriptor, not ``sys.stdin``, whose buffer could
    hold a line that the wait would not see; a terminal gives one line per read.
    """
    if os.name == "nt":  # no select() on a console: the plain read, as before
        return input()
    fd = sys.stdin.fileno()
    while not select.select([fd], [], [], ANSWER_POLL_SECONDS)[0]:
        pass
    line = os.read(fd, 4096)
    if not line:
        raise EOFError
    return line.decode(errors="replace")


def cmd_chats(args: argparse.Namespace, ctx: CliContext) -> int:
    transcripts = ctx.services.transcripts
    if args.delete is not None:
        gone = transcripts.find(args.delete)  # the short id the listing shows is enough
        transcripts.delete(gone.id)
        ctx.out(f"Deleted conversation {gone.id[:8]} ({gone.title or 'untitled'}).")
        return 0
    if args.search is not None:
        if not args.search.strip():
            raise InvalidInputError("the search is empty (give words of the conversations)")
        found = transcripts.search(args.search)
    else:
        note_id = resolve_note(ctx.services.store, args.note).id if args.note is not None else None
        found = transcripts.recent(note_id=note_id)
    if ctx.json:
        ctx.emit([_as_dict(c) for c in found])
        return 0
    for c in found:
        ctx.out(f"{c.id[:8]}  {c.title or '(untitled)'}  · {c.message_count} messages")
    if not found:
        ctx.out("No conversations.")
    return 0


def _as_dict(c: Conversation) -> dict[str, object]:
    return {
        "id": c.id,
        "note_id": c.note_id,
        "title": c.title,
        "created_time": c.created_time,
        "updated_time": c.updated_time,
        "messages": c.message_count,
        "input_tokens": c.input_tokens,
        "output_tokens": c.output_tokens,
    }
