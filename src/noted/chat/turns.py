"""The pieces of a chat round that need no engine state: texts the model reads, the one-line
summary of a tool call, the messages a round is saved as, and how a cancelled stream is settled.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from noted.models import ToolStatus
from noted.ops.tool_words import tool_words
from noted.providers import (
    AssistantMessage,
    Message,
    ProviderEvent,
    ToolCall,
    ToolCallReady,
    ToolResultMessage,
)
from noted.tools import ToolResult
from noted.tools.editor import EDIT_TOOLS
from noted.tools.proposals import PENDING

DECLINED = "The person declined this change; nothing was written. Do not try it again unless they ask."
PAUSED = (
    "Not run: no tools are offered in this round because the tool calls of the last rounds all failed. "
    "Answer the person in words, saying what went wrong."
)
NOT_OFFERED = "not run: the tool calls of the last rounds all failed, so no tools were offered"
"""``PAUSED`` as the person is told it."""
SEND_AGAIN = "fix that call and send them again"
"""Ends the refusal of each write of a round that holds one that would be refused."""
FINAL = "(cannot be undone)"
"""Marks a change of a batch that no undo can take back (a write tool without ``Tool.undo``)."""
NOT_RUN = "Not run: the person stopped the answer before this call ran."
NOT_SAVED = "Not saved: the person stopped the answer before the edits of this turn were saved."
STOPPED = "\n\n[stopped by the person]"
BROKE_OFF = "\n\n[the answer broke off on an error]"


@dataclass(frozen=True, slots=True)
class Ending:
    """How an answer cut short ended, as its saved round and the chat pane say it."""

    mark: str
    """Follows the text the answer had written."""
    not_saved: str
    """The result of each edit of the open note that was held and never saved."""
    not_run: str
    """The result of each call of the round that never ran."""


STOP = Ending(STOPPED, NOT_SAVED, NOT_RUN)
"""The person stopped the answer (Esc, Ctrl-C)."""
BREAK = Ending(
    BROKE_OFF,
    "Not saved: the answer broke off on an error before the edits of this turn were saved.",
    "Not run: the answer broke off on an error before this call ran.",
)
"""The answer ended in an error (its notice says which)."""
CLOSE_WAIT = 5.0
"""Seconds a cancelled provider stream may take to close its connection before it is left behind."""


def summary(name: str, arguments: dict[str, Any], titles: Mapping[str, str] | None = None) -> str:
    """One line for people, in words of what the call would do (``noted.ops.tool_words``):
    ``search for "budget" limit=5``; an argument named in ``titles`` (the id of the note a write
    changes) is shown as that title: ``update note “Shopping” …``. ``told`` says it of a call that ran."""
    parts: list[str] = []
    for key, value in arguments.items():
        # Line breaks inside a value (an appended paragraph) would break the one line.
        if titles and key in titles:
            shown = f"“{' '.join(titles[key].split())}”"
        elif isinstance(value, str):
            shown = f'"{" ".join(value.split())}"'
        else:
            shown = json.dumps(value, ensure_ascii=False)
        if len(shown) > 40:
            shown = shown[:39] + "…"
        # A title after a note is the note's new one: named as such, not beside the old as its twin.
        bare = (
            key in ("query", "id", "anchor")
            or (key == "title" and not parts)
            or bool(titles and key in titles)
        )
        parts.append(shown if bare else f"{key}={shown}")
    line = f"{tool_words(name).to_do} {' '.join(parts)}".strip()
    return line if len(line) <= 100 else line[:99] + "…"


def told(name: str, line: str, kind: str) -> str:
    """``line`` (a ``summary``) as it ended: in the words of what the call did when it ran
    (``kind`` done: ``searched for "budget"``), else as it was asked (``update note “Shopping”``,
    which a refusal or a hold for review follows)."""
    words = tool_words(name)
    if kind == "done" and line.startswith(words.to_do):
        return words.done + line[len(words.to_do) :]
    return line


def outcome(status: ToolStatus, result: Any, reason: str = "") -> tuple[str, str]:
    """What became of a tool call, as a word and as the chat pane's tool line and ``noted ask`` say
    it: ``held`` (a write that waits for the person's review as a proposal: nothing written yet),
    ``done``, or its status (``refused``, ``error``…) and why: ``reason``, the person's words
    (``ToolResult.for_person``), else the ``result``'s own (a saved chat's, or a line of the pane)."""
    if status is ToolStatus.OK:
        if isinstance(result, dict) and result.get("status") == PENDING:
            return "held", f"held as {result.get('proposal', 'a proposal')} for your review"
        return "done", "done"
    why = reason or (result.get("error") or result.get("message") if isinstance(result, dict) else None)
    return str(status), f"{status}: {why}" if why else str(status)


def round_messages(text: str, calls: list[ToolCallReady], results: list[ToolResult]) -> list[Message]:
    """A model turn with tool calls, and one result answering each call by id (as sent and saved)."""
    turn = AssistantMessage(text, tuple(ToolCall(c.id, c.name, c.arguments) for c in calls))
    answers = [
        ToolResultMessage(c.id, json.dumps(r.for_model(), ensure_ascii=False), not r.ok)
        for c, r in zip(calls, results, strict=True)
    ]
    return [turn, *answers]


def call_ids(messages: list[Message]) -> set[str]:
    """The ids of the tool calls in ``messages``."""
    return {c.id for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls}


def unique_call(call: ToolCallReady, taken: set[str]) -> ToolCallReady:
    """``call``, its id made unique among ``taken`` (the conversation's, which it joins) by a suffix.
    Some providers number calls from 1 in each session: in a resumed chat two calls had one id, and
    results answered the wrong one, sent back to the model and drawn again."""
    call_id, n = call.id, 1
    while call_id in taken:
        n += 1
        call_id = f"{call.id}_{n}"
    taken.add(call_id)
    return call if call_id == call.id else dataclasses.replace(call, id=call_id)


def mark_edits(result: ToolResult, message: str, person: str | None = None) -> ToolResult:
    """``result``, or a refusal carrying ``message`` (and the ``person``'s words, where they differ)
    when it is an edit of the open note that will not be written (declined, or cut short), so the
    model does not believe it was saved."""
    if result.ok and result.name in EDIT_TOOLS:
        return ToolResult(result.name, ToolStatus.REFUSED, message=message, person=person)
    return result


async def settle(step: asyncio.Future[ProviderEvent] | None) -> None:
    """Cancel a pending read of a provider stream and let it unwind, so the stream's own cleanup
    (closing the HTTP response) runs now rather than whenever the loop gets to it."""
    if step is None:
        return
    if not step.done():
        step.cancel()
        await asyncio.wait({step}, timeout=CLOSE_WAIT)
    if step.done() and not step.cancelled():
        step.exception()  # retrieved, so a failure after the cancel is not reported as lost
