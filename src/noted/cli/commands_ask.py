"""``noted ask``: the assistant from the command line, streamed to stdout.

The answer streams to stdout; tool calls and edits are reported on stderr; approvals are asked on
the terminal (and declined when there is no terminal to ask on). Ctrl-C stops the answer at once
and keeps the conversation consistent. Provider errors exit non-zero with the remedy.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncIterator

from noted.chat.events import (
    ApprovalRequested,
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
)
from noted.chat.transcripts import Conversation
from noted.cli.args import Subparsers, command
from noted.cli.context import CliContext
from noted.cli.resolve import resolve_note
from noted.errors import InvalidInputError
from noted.tools import EditorSession


def register(sub: Subparsers) -> None:
    """Add ``ask`` and ``chats``."""
    p = command(sub, "ask", cmd_ask, "Ask the assistant; the answer streams to stdout.")
    p.add_argument("question", help="what to ask (use - to read it from stdin)")
    p.add_argument("--note", metavar="ID|TITLE", help="talk about this note (its editor tools are offered)")
    p.add_argument("--new", action="store_true", help="start a new conversation instead of resuming")
    p.add_argument("--yes", action="store_true", help="approve every write without asking")
    c = command(sub, "chats", cmd_chats, "List, search or delete saved conversations.")
    c.add_argument("--note", metavar="ID|TITLE", help="only conversations about this note")
    c.add_argument("--search", metavar="TEXT", help="only conversations containing TEXT")
    c.add_argument("--delete", metavar="ID", help="delete this conversation")


def _conversation(ctx: CliContext, note_id: str, new: bool) -> Conversation:
    transcripts = ctx.services.transcripts
    if not new:
        latest = transcripts.latest_for_note(note_id)
        if latest is not None:
            return latest
    return transcripts.create(note_id=note_id)


def cmd_ask(args: argparse.Namespace, ctx: CliContext) -> int:
    question = sys.stdin.read() if args.question == "-" else args.question
    if not question.strip():
        raise InvalidInputError("the question is empty")
    services = ctx.services
    editor = None
    if args.note:
        note = resolve_note(services.store, args.note)
        editor = EditorSession.open(services.store, note.id)
    provider = services.provider()  # refuses (ai.enabled, ai.allowRemote…) before anything is saved
    conversation = _conversation(ctx, editor.note_id if editor else "", args.new)
    engine = services.chat_engine(provider=lambda: provider)
    return asyncio.run(_ask(engine.run(conversation, question, editor=editor), args.yes))


async def _ask(events: AsyncIterator[ChatEvent], approve_all: bool) -> int:
    code = 0
    async for event in events:
        code = _render(event, approve_all) or code
    return code


def _render(event: ChatEvent, approve_all: bool) -> int:
    out, err = sys.stdout, sys.stderr
    match event:
        case TextDelta(text=text):
            out.write(text)
            out.flush()
        case ToolCallStarted(summary=summary):
            print(f"\n· {summary}", file=err)
        case ToolCallFinished(name=name, status=status, result=result) if status != "ok":
            print(f"  {name}: {status}: {result.get('error', '')}", file=err)
        case EditsProposed(diff=diff):
            print(diff, file=err)
        case ApprovalRequested(approval=approval):
            approval.decide(approve_all or _confirm(approval.title))
        case EditsApplied(message=message) | EditsRefused(message=message):
            print(f"· {message}", file=err)
        case UsageReport():
            pass
        case Done():
            out.write("\n")
        case Cancelled():
            print("\n(stopped)", file=err)
            return 130
        case Failed(message=message, remedy=remedy):
            print(f"noted: {message}" + (f" ({remedy})" if remedy else ""), file=err)
            return 1
    return 0


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        print(f"{question} no (no terminal to ask on; pass --yes to approve)", file=sys.stderr)
        return False
    try:
        answer = input(f"{question} [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def cmd_chats(args: argparse.Namespace, ctx: CliContext) -> int:
    transcripts = ctx.services.transcripts
    if args.delete:
        transcripts.delete(args.delete)
        ctx.out(f"Deleted conversation {args.delete}.")
        return 0
    if args.search:
        found = transcripts.search(args.search)
    else:
        note_id = resolve_note(ctx.services.store, args.note).id if args.note else None
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
