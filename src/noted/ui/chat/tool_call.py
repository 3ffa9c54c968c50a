"""A tool call in the chat: a keyboard-focusable disclosure showing its name, arguments and result.

Built on ``Collapsible``: its title takes focus and Enter toggles it, so a person can read what
the assistant did without a mouse. The title is the engine's one-line summary with a state mark;
the body is the arguments and the result as indented JSON, cut to a readable size (a note body in
a result would otherwise fill the screen).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from textual.content import Content
from textual.markup import escape
from textual.widgets import Collapsible, Static

from noted.chat.turns import outcome, told
from noted.models import ToolStatus

MAX_STRING = 300
"""Characters kept of one string value (a note body, a snippet) before it is cut."""
MAX_LINES = 40
"""Lines of JSON shown for the arguments or the result."""
MAX_CHARS = 4_000
"""Characters of JSON shown for the arguments or the result."""
MAX_REASON = 100
"""Characters of why a call failed kept on its line; the disclosure shows all of it."""

_MARKS: dict[ToolStatus | None, str] = {
    None: "…", ToolStatus.OK: "✓", ToolStatus.ERROR: "✗", ToolStatus.REFUSED: "⊘", ToolStatus.CONFLICT: "⚠",
    ToolStatus.INTERNAL: "✗",
}  # fmt: skip
"""The mark of each way a call ends; ``None`` while it runs."""


def _shorten(value: Any) -> Any:
    """``value`` with long strings cut and long lists trimmed, keeping its shape."""
    if isinstance(value, str):
        if len(value) <= MAX_STRING:
            return value
        return value[:MAX_STRING] + f"… (+{len(value) - MAX_STRING:,} characters)"
    if isinstance(value, Mapping):
        return {str(k): _shorten(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [_shorten(v) for v in value[:20]]
        if len(value) > 20:
            items.append(f"… (+{len(value) - 20} more)")
        return items
    return value


def pretty_json(value: Any) -> str:
    """Indented JSON of ``value`` for people, cut to ``MAX_LINES`` lines and ``MAX_CHARS``."""
    text = json.dumps(_shorten(value), indent=2, ensure_ascii=False, default=str)
    lines = text.splitlines()
    cut = len(lines) > MAX_LINES or len(text) > MAX_CHARS
    text = "\n".join(lines[:MAX_LINES])[:MAX_CHARS]
    if cut:
        text += "\n… (cut; the model saw all of it)"
    return text


def status_of(content: str, is_error: bool) -> ToolStatus:
    """The status of a saved tool result: ``ok``, or the ``status`` its error payload names."""
    if not is_error:
        return ToolStatus.OK
    value = _decode(content)
    status = value.get("status") if isinstance(value, dict) else None
    try:
        return ToolStatus(str(status))
    except ValueError:  # an older or hand-edited transcript: a failure all the same
        return ToolStatus.ERROR


def _decode(content: str) -> Any:
    """A saved tool result (JSON text) as a value; text that is not JSON is shown as is."""
    try:
        return json.loads(content)
    except ValueError:
        return content


class ToolCallView(Collapsible):
    """One tool call: collapsed to its summary, Enter shows the arguments and the result."""

    HELP = """\
## Tool call

What the assistant asked a tool to do. **Enter** shows or hides the arguments it sent and the
result it got back. ✓ worked, ✗ failed, ⊘ refused (switched off, or you said no),
⚠ the note changed meanwhile, ⧖ held for your review in the Changes view ({app.changes}).
"""

    def __init__(self, call_id: str, name: str, arguments: Mapping[str, Any], summary: str) -> None:
        arguments_view = Static(Content(pretty_json(dict(arguments))), classes="tool-json")
        result_view = Static(Content("(running…)"), classes="tool-json tool-result")
        why_view = Static(classes="tool-why")
        why_view.display = False  # until a call fails, with the person's reason
        super().__init__(
            why_view,
            Static("arguments", classes="tool-label"),
            arguments_view,
            Static("result", classes="tool-label"),
            result_view,
            title=_title(summary or name, None),
            collapsed=True,
            classes="tool-call -running",
        )
        self.call_id = call_id
        self.tool_name = name
        self.summary = summary or name
        self.status: ToolStatus | None = None
        """How the call ended; ``None`` while it runs."""
        self._result = result_view
        self._why = why_view

    def finish(self, status: ToolStatus, result: Mapping[str, Any] | str, reason: str = "") -> None:
        """Show how the call ended and what it returned; ``reason`` is why it failed in the
        person's words (``ToolCallFinished.reason``), on the line cut to fit and whole inside (a
        saved chat keeps only the model's words, so its lines name the status alone)."""
        self.status = status
        self.remove_class("-running")
        self.add_class("-ok" if status is ToolStatus.OK else "-failed")
        value = _decode(result) if isinstance(result, str) else dict(result)
        self._result.update(Content(pretty_json(value)))
        kind, said = outcome(status, value)
        line = told(self.tool_name, self.summary, kind)
        self._why.display = bool(reason)
        self._why.update(Content(f"why: {reason}"))
        # A write in review mode worked, but wrote nothing yet: a ✓ would say it was done.
        self.title = escape(f"⧖ {line}  ({said})") if kind == "held" else _title(line, status, reason)

    def refuse(self, why: str) -> None:
        """End the call as refused by noted itself (stopped, or its edits not saved), saying ``why``."""
        self.finish(ToolStatus.REFUSED, {"status": ToolStatus.REFUSED, "message": why}, why)


def _title(summary: str, status: ToolStatus | None, reason: str = "") -> str:
    mark = _MARKS[status]
    if len(reason) > MAX_REASON:
        cut = reason.rfind(" ", 0, MAX_REASON)  # at a word's end, where there is one
        reason = reason[: cut if cut > 0 else MAX_REASON].rstrip(" ,;:(") + "…"
    tail = "" if status in (ToolStatus.OK, None) else f"  ({status}: {reason})" if reason else f"  ({status})"
    # The title is parsed as markup, and a summary holds brackets from JSON arguments.
    return escape(f"{mark} {summary}{tail}")
