"""The editor tools: read and edit the note open beside the chat, through its ``EditorSession``.

They are offered only in a chat about an open note (``Tool.editor``), and
``editor_replace_selection`` only while something is selected. The editing tools share one switch,
``ai.tool.edit_current.enabled`` ("Edit the open note", off by default). ``editor_read_note`` only
reads, so it has its own switch, on by default like every read tool: a person chatting about a note
expects the assistant to see it even when it may not change it.

Anchors are exact substrings of the working copy (earlier edits of the turn included) that must
occur exactly once. Edits change the working copy only; the engine saves it once after the turn
(see ``editor``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noted.ops.session import EditorSession
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.tools import schema as s
from noted.tools.base import READ, Annotations, Payload, Tool, ToolContext, ToolError
from noted.tools.notes import READ_INPUTS, READ_OUTPUTS, read_text
from noted.tools.payloads import match_positions, times

EDIT_SETTING = "edit_current"
EXCERPT_CONTEXT = 60
EXCERPT_NEW = 300
PENDING = (
    "Applied to the working copy. It is saved once, after your turn; editor_read_note shows the text "
    "with your edits."
)


def _session(ctx: ToolContext) -> EditorSession:
    if ctx.editor is None:  # the registry refuses first; this keeps a direct call honest
        raise ToolError("no note is open in this chat")
    return ctx.editor


def _anchor(session: EditorSession, anchor: str) -> int:
    found = match_positions(session.text, anchor)
    if len(found) == 1:
        return found[0]
    if not found:
        raise ToolError(
            "anchor not found: it must be exact text from the note, spaces and line breaks included "
            "(editor_read_note shows the text as it is now, with your edits)",
            field="anchor",
            person="the text that was to mark the place of the edit is not in the note",
        )
    lines = ", ".join(str(session.text.count("\n", 0, p) + 1) for p in found[:10])
    raise ToolError(
        f"anchor matches {times(len(found))} (on lines {lines}); it must match exactly once: include "
        "more of the text around it",
        field="anchor",
    )


def _excerpt(text: str, start: int, end: int) -> str:
    new = text[start:end]
    if len(new) > EXCERPT_NEW:
        new = new[: EXCERPT_NEW // 2] + " … " + new[-EXCERPT_NEW // 2 :]
    before = text[max(0, start - EXCERPT_CONTEXT) : start]
    after = text[end : end + EXCERPT_CONTEXT]
    return (
        ("…" if start > EXCERPT_CONTEXT else "")
        + before
        + new
        + after
        + ("…" if end + EXCERPT_CONTEXT < len(text) else "")
    )


def _edit(session: EditorSession, start: int, end: int, new: str, what: str) -> Payload:
    session.replace_range(start, end, new, what)
    return {
        "status": "pending",
        "pending_edits": len(session.edits),
        "body_length": len(session.text),
        "excerpt": _excerpt(session.text, start, start + len(new)),
        "message": PENDING,
    }


def _editor_read_note(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    session = _session(ctx)
    with session.lock:
        text, selection = session.text, session.selection
        pending = len(session.edits)

    def how(offset: int, section: str | None) -> str:
        where = f'section="{section}", ' if section is not None else ""
        return f"call editor_read_note with {where}offset={offset}"

    out: Payload = {"id": session.note_id, "title": session.title, "pending_edits": pending}
    if selection is not None:
        start, end = selection
        chosen = text[start:end]
        out["selection"] = {
            "start": start,
            "end": end,
            "text": chosen if len(chosen) <= 8_000 else chosen[:8_000] + "…",
        }
    return {**out, **read_text(text, args, how, limit=ctx.settings.get(LARGE_NOTE_CHARS))}


def _editor_append(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    session = _session(ctx)
    with session.lock:
        end = len(session.text)
        joint = "\n" if session.text and not session.text.endswith("\n") else ""
        return _edit(session, end, end, joint + args["text"], "append")


def _editor_insert_before(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    session = _session(ctx)
    with session.lock:
        at = _anchor(session, args["anchor"])
        return _edit(session, at, at, args["text"], "insert before anchor")


def _editor_insert_after(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    session = _session(ctx)
    with session.lock:
        at = _anchor(session, args["anchor"]) + len(args["anchor"])
        return _edit(session, at, at, args["text"], "insert after anchor")


def _editor_replace(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    session = _session(ctx)
    with session.lock:
        at = _anchor(session, args["anchor"])
        return _edit(session, at, at + len(args["anchor"]), args["text"], "replace anchor")


def _editor_replace_selection(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    session = _session(ctx)
    with session.lock:
        if session.selection is None:
            raise ToolError("nothing is selected in the open note (an earlier edit may have replaced it)")
        start, end = session.selection
        return _edit(session, start, end, args["text"], "replace selection")


_ANCHOR = s.string(
    "Exact text now in the note (your earlier edits included) that occurs exactly once.",
    minLength=1,
    maxLength=s.MAX_TEXT,
)
_EDIT_OUT = s.obj(
    {
        "status": s.string("Always pending: the edit is saved after your turn.", enum=["pending"]),
        "pending_edits": s.integer("Edits made to the working copy in this turn so far."),
        "body_length": s.integer("Length of the working copy now."),
        "excerpt": s.string("The changed text with a little context."),
        "message": s.string(),
    },
    ("status", "pending_edits", "body_length", "excerpt", "message"),
)
_EDIT = Annotations(read_only=False, destructive=False, idempotent=False)
_OVERWRITE = Annotations(read_only=False, destructive=True, idempotent=False)


def _edit_tool(
    name: str, title: str, description: str, handler: Any, inputs: dict[str, Payload], **kw: Any
) -> Tool:
    required = tuple(inputs)
    examples = kw.pop("examples")
    annotations = kw.pop("annotations", _EDIT)
    return Tool(
        name=name,
        title=title,
        description=description + " Edits are saved together once your turn ends; if the note changed "
        "meanwhile, none is saved and every edit result tells you so.",
        input_schema=s.obj(inputs, required),
        output_schema=_EDIT_OUT,
        annotations=annotations,
        handler=handler,
        setting_id=EDIT_SETTING,
        editor=True,
        examples=examples,
        **kw,
    )


EDITOR_READ_NOTE = Tool(
    name="editor_read_note",
    title="Read the open note",
    description=(
        "Read the note open beside this chat, as it is with your pending edits of this turn, plus "
        "the person's selection (start, end, text) when there is one. Paging works as in read_note: "
        "the body is capped at max_chars (default 8000, 0 = all); read on with offset, or ask for "
        "outline=true and then one section. Use it before editing, to copy exact anchor text."
    ),
    input_schema=s.obj(dict(READ_INPUTS)),
    output_schema=s.obj(
        {
            "id": s.string(),
            "title": s.string(),
            "pending_edits": s.integer(),
            "selection": s.obj(
                {"start": s.integer(), "end": s.integer(), "text": s.string()}, ("start", "end", "text")
            ),
            **READ_OUTPUTS,
        },
        ("id", "title", "pending_edits"),
    ),
    annotations=READ,
    handler=_editor_read_note,
    editor=True,
    examples=({}, {"outline": True}, {"section": "2.1"}, {"offset": 8000}),
)

_TEXT = s.text("The text to add, exactly as it should appear (include line breaks you want).", min_length=1)
_NEW = s.text("The text to put in its place (empty to delete it).")

EDITOR_TOOLS = (
    EDITOR_READ_NOTE,
    _edit_tool(
        "editor_append",
        "Append to the open note",
        "Add text at the end of the open note, on a new line.",
        _editor_append,
        {"text": _TEXT},
        examples=({"text": "## Next steps\n- book the venue"},),
    ),
    _edit_tool(
        "editor_insert_before",
        "Insert before text in the open note",
        "Insert text just before the anchor, an exact piece of the open note that occurs once.",
        _editor_insert_before,
        {"anchor": _ANCHOR, "text": _TEXT},
        examples=({"anchor": "## Budget", "text": "## Timeline\nStarts in May.\n\n"},),
    ),
    _edit_tool(
        "editor_insert_after",
        "Insert after text in the open note",
        "Insert text just after the anchor, an exact piece of the open note that occurs once.",
        _editor_insert_after,
        {"anchor": _ANCHOR, "text": _TEXT},
        examples=({"anchor": "- milk\n", "text": "- bread\n"},),
    ),
    _edit_tool(
        "editor_replace",
        "Replace text in the open note",
        "Replace the anchor, an exact piece of the open note that occurs once, with new text.",
        _editor_replace,
        {"anchor": _ANCHOR, "text": _NEW},
        examples=({"anchor": "due Friday", "text": "due Monday"},),
        annotations=_OVERWRITE,
    ),
    _edit_tool(
        "editor_replace_selection",
        "Replace the selection in the open note",
        "Replace the text the person selected in the open note (editor_read_note shows it) with new text.",
        _editor_replace_selection,
        {"text": _NEW},
        examples=({"text": "A shorter, clearer paragraph."},),
        annotations=_OVERWRITE,
        needs_selection=True,
    ),
)
