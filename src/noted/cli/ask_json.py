"""``noted ask --json``: a run's events as JSON, one object at the end or one line per event.

``--json`` prints one object when the run ends: the answer, the tool calls with their results,
the changes to notes, the approvals asked and how they were answered, and the tokens used.
``--stream`` prints each event as it comes instead, one JSON object a line (``{"type": …}``),
so a script can follow a long answer. Prompts for approvals still go to stderr.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from noted.chat import events as ev
from noted.cli.terminal import shown_json
from noted.models import ToolStatus

if TYPE_CHECKING:  # the tools load only when a question is asked, not for `noted chats`
    from noted.chat.turns import Ending


def event_json(event: ev.ChatEvent) -> dict[str, Any]:
    """One event as a JSON object with a ``type``, for ``--stream``."""
    from noted.chat.turns import outcome

    match event:
        case ev.TextDelta(text=text):
            return {"type": "text", "text": text}
        case ev.ToolCallStarted(call_id=call_id, name=name, arguments=arguments, summary=summary):
            return {
                "type": "tool_call",
                "id": call_id,
                "name": name,
                "arguments": arguments,
                "summary": summary,
            }
        case ev.ToolCallFinished(call_id=call_id, name=name, status=status, result=result, reason=reason):
            kind, said = outcome(status, result, reason)
            return {
                "type": "tool_result", "id": call_id, "name": name, "status": status,
                "outcome": kind, "said": said, "result": result,
            }  # fmt: skip
        case ev.EditsProposed(note_id=note_id, edits=edits, diff=diff):
            return {"type": "edits_proposed", "note_id": note_id, "edits": edits, "diff": diff}
        case ev.ApprovalRequested(approval=approval, tool=tool):
            return {"type": "approval", "tool": tool, "title": approval.title, "detail": approval.detail}
        case ev.EditsApplied(note_id=note_id, edits=edits, message=message):
            return {"type": "edits_applied", "note_id": note_id, "edits": edits, "message": message}
        case ev.BatchApplied(applied=applied, message=message):
            return {"type": "batch_applied", "changes": applied, "message": message}
        case ev.EditsRefused(note_id=note_id, edits=edits, message=message):
            return {"type": "edits_refused", "note_id": note_id, "edits": edits, "message": message}
        case ev.UsageReport(input_tokens=sent, output_tokens=received, conversation_tokens=total):
            return {
                "type": "usage",
                "input_tokens": sent,
                "output_tokens": received,
                "conversation_tokens": total,
            }
        case ev.Waiting(elapsed=elapsed, limit=limit, retry=retry, retries=retries, reason=reason):
            return {
                "type": "waiting", "elapsed": round(elapsed, 1), "limit": limit,
                "retry": retry, "retries": retries, "reason": reason,
            }  # fmt: skip
        case ev.Done(text=text):
            return {"type": "done", "text": text}
        case ev.Failed(message=message, remedy=remedy):
            return {"type": "failed", "message": message, "remedy": remedy}
        case ev.Cancelled(text=text):
            return {"type": "stopped", "text": text}
    raise AssertionError(f"unknown chat event {event!r}")


def print_line(payload: dict[str, Any]) -> None:
    """One JSON line on stdout, flushed so a reader sees it at once."""
    sys.stdout.write(shown_json(json.dumps(payload, ensure_ascii=False, default=str), sys.stdout) + "\n")
    sys.stdout.flush()


@dataclass
class JsonReport:
    """Gathers a run's events into the one object ``--json`` prints."""

    conversation_id: str
    answer: str = ""
    outcome: str = "done"
    error: dict[str, str | None] | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)
    approvals: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] = field(
        default_factory=lambda: {"input_tokens": 0, "output_tokens": 0, "conversation_tokens": 0}
    )
    _new_round: bool = field(default=False, repr=False)
    """Tool calls came since the last text: the next text starts a new line."""
    _held: list[dict[str, Any]] = field(default_factory=list, repr=False)
    """Edits of the open note that worked but wait to be saved: a stop or an error leaves them unsaved."""

    def add(self, event: ev.ChatEvent) -> None:
        """Take one event into the report."""
        from noted.chat.turns import BREAK, STOP, outcome
        from noted.tools.editor import EDIT_TOOLS

        match event:
            case ev.TextDelta(text=text):
                if self.tool_calls and self.answer and not self.answer.endswith("\n") and self._new_round:
                    self.answer += "\n"
                self._new_round = False
                self.answer += text
            case ev.ToolCallStarted(call_id=call_id, name=name, arguments=arguments):
                self._new_round = True
                self.tool_calls.append({"id": call_id, "name": name, "arguments": arguments})
            case ev.ToolCallFinished(call_id=call_id, status=status, result=result):
                for call in self.tool_calls:
                    if call["id"] == call_id:
                        call.update(status=status, outcome=outcome(status, result)[0], result=result)
                        if status is ToolStatus.OK and call["name"] in EDIT_TOOLS:
                            self._held.append(call)
            case ev.EditsApplied(note_id=note_id, edits=edits, message=message):
                self._held.clear()
                self.changes.append({"note_id": note_id, "edits": edits, "saved": True, "message": message})
            case ev.EditsRefused(note_id=note_id, edits=edits, message=message):
                self._refuse_held(message)  # declined, or the note changed: not written
                self.changes.append({"note_id": note_id, "edits": edits, "saved": False, "message": message})
            case ev.UsageReport(input_tokens=sent, output_tokens=received, conversation_tokens=total):
                self.usage["input_tokens"] += sent
                self.usage["output_tokens"] += received
                self.usage["conversation_tokens"] = total
            case ev.Failed(message=message, remedy=remedy):
                self.outcome, self.error = "failed", {"message": message, "remedy": remedy}
                self._cut_short(BREAK)
            case ev.Cancelled():
                self.outcome = "stopped"
                self._cut_short(STOP)

    def _cut_short(self, ending: Ending) -> None:
        """Held edits were not saved and calls left running never ran, as the saved chat says."""
        self._refuse_held(ending.not_saved)
        refused = {"status": ToolStatus.REFUSED, "outcome": "refused"}
        for call in self.tool_calls:
            if "status" not in call:
                call.update(refused, result={"status": ToolStatus.REFUSED, "message": ending.not_run})

    def _refuse_held(self, message: str) -> None:
        """The held edits were not written: their calls say so, as the chat pane and the saved chat do."""
        for call in self._held:
            call.update(status=ToolStatus.REFUSED, outcome="refused")
            call.update(result={"status": ToolStatus.REFUSED, "message": message})
        self._held.clear()

    def approved(self, tool: str, title: str, yes: bool) -> None:
        """Record how an approval was answered."""
        self.approvals.append({"tool": tool, "title": title, "approved": yes})

    def payload(self) -> dict[str, Any]:
        """The object to print."""
        return {
            "conversation_id": self.conversation_id,
            "outcome": self.outcome,
            "answer": self.answer,
            "error": self.error,
            "tool_calls": self.tool_calls,
            "changes": self.changes,
            "approvals": self.approvals,
            "usage": self.usage,
        }
