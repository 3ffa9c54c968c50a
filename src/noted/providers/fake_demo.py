"""The offline demo behind ``--provider fake``: plausible turns computed from the request alone.

It restates the question; in a chat about an open note whose editing tools are switched on, it
appends the request to the note as a to-do line (so the approve/undo flow can be tried offline);
otherwise it searches: with ``find_notes`` (the question as asked: hybrid search copes with whole
sentences, misspellings and other languages) when that is offered, else with ``search_notes`` for
any of the question's words; it reads the first hit with ``read_note`` when that is offered too,
then answers with what came back as a person would put it (the notes' titles, notebooks and a few
words of each, never the tools' JSON). It says plainly that it is a demo, so nobody takes its words for
a model's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from noted.models import FULL_ID
from noted.providers.base import AssistantMessage, ChatRequest, ToolResultMessage, ToolSpec, UserMessage
from noted.providers.fake import CallTool, FakeAction, Reply
from noted.wording import plural

_NOTE_ID = re.compile(rf"\b{FULL_ID.pattern}\b")
_WORD = re.compile(r"[^\W_]{3,}")
_STOPWORDS = frozenset(
    "the and for are was what which who how why when where does did can could would should about with "
    "this that these those from into have has had you your my our their there them they its it's "
    "please tell show find me all any some of in on at to is be".split()
)
_FOOTER = "\n\n(This is noted's offline demo, not a model: set ai.provider to talk to a real one.)"


def demo_turn(request: ChatRequest) -> list[FakeAction]:
    """The demo's next turn for ``request``."""
    question = _last_question(request)
    results = _results_since_question(request)
    tools = {t.name: t for t in request.tools}
    called = {name for name, _ in results}
    if "editor_append" in tools and question:
        if "editor_append" not in called:
            line = f"- [ ] {_shorten(question, 200)} (added by the offline demo)"
            return [
                Reply("I'll add that to the note as a to-do.\n"),
                CallTool("editor_append", {_text_argument(tools["editor_append"], "text"): line}),
            ]
        return [Reply(_appended(dict(results)["editor_append"]) + _FOOTER)]
    results = [(name, content) for name, content in results if name != "editor_read_note"]
    called = {name for name, _ in results}
    if not results:
        if "find_notes" in tools and question:
            return [
                Reply(f"You asked: “{_shorten(question, 120)}”. Let me search your notes.\n"),
                CallTool(
                    "find_notes", {_text_argument(tools["find_notes"], "query"): _shorten(question, 200)}
                ),
            ]
        if "search_notes" in tools and question:
            words = _keywords(question)
            query = "any:1 " + " ".join(words) if words else question
            return [
                Reply(f"You asked: “{_shorten(question, 120)}”. Let me search your notes.\n"),
                CallTool("search_notes", {_text_argument(tools["search_notes"], "query"): query}),
            ]
        return [Reply(f"You asked: “{_shorten(question, 200)}”.{_FOOTER}")]
    if "read_note" in tools and "read_note" not in called:
        for _, content in results:
            if match := _NOTE_ID.search(content):
                return [CallTool("read_note", {_text_argument(tools["read_note"], "id"): match.group()})]
    return [Reply("\n\n".join(_said(name, content) for name, content in results) + _FOOTER)]


_NOT_ADDED = {"refused": "you did not approve the change", "conflict": "the note changed meanwhile"}
"""Why a to-do line was not added, by the status of the editor tool's result."""


def _appended(result: str) -> str:
    """What became of the to-do line: added (``pending``: the editor tools save it after the
    turn), or not (the person said no, the note moved)."""
    try:
        data = json.loads(result)
    except ValueError:
        data = {}
    if isinstance(data, dict) and data.get("status") == "pending":
        return "Added a to-do line to the note; it is saved when this answer ends."
    if isinstance(data, dict) and data.get("status", "ok") != "ok":
        # By its status, as a model would put it: the result's words are written for the model
        # ("The person declined this change; … Do not try it again unless they ask.").
        return f"Nothing was added: {_NOT_ADDED.get(data['status'], data['status'])}."
    return "Done: the note has a new to-do line."


SHOWN_HITS = 5
"""The most search results the answer names."""


def _said(name: str, content: str) -> str:
    """A tool's result as a person would say it: the notes a search found (title, notebook,
    section, a few words of each), the opening of a note read, or why the call failed; a result
    that is not JSON, a few words of it. Never the JSON itself."""
    try:
        data = json.loads(content)
    except ValueError:
        return _shorten(content, 240)
    if not isinstance(data, dict):
        return f"{name} answered, with nothing I can put in words."
    if "error" in data:
        return f"I could not use {name}: {_shorten(str(data['error']), 200)}"
    if isinstance(hits := data.get("results"), list):
        notes = [h for h in hits if isinstance(h, dict)]
        if not notes:
            return "I found no notes for that."
        count = data.get("total")
        total = count if isinstance(count, int) else len(notes)
        found = f"I found {plural(total, 'note')}" + (
            f"; the first {SHOWN_HITS}:" if total > SHOWN_HITS else ":"
        )
        return "\n".join([found, *(f"- {_hit(h)}" for h in notes[:SHOWN_HITS])])
    if isinstance(body := data.get("body"), str):
        # Its first paragraph of prose: a heading or a to-do list flattened onto one line reads badly.
        prose = [
            p
            for p in body.split("\n\n")
            if p.strip() and not p.lstrip().startswith(("#", "-", "*", "|", "`"))
        ]
        opening = prose[0] if prose else body
        return f"{_where(data)} begins: {_shorten(opening, 300) or '(it is empty)'}"
    return f"{name} answered, with nothing I can put in words."


def _where(note: Mapping[str, Any]) -> str:
    """A note named as a person names it: “Title” (in Notebook)."""
    title = f"“{_shorten(str(note.get('title') or 'Untitled'), 80)}”"
    return f"{title} (in {_shorten(str(note['notebook']), 60)})" if note.get("notebook") else title


def _hit(hit: Mapping[str, Any]) -> str:
    heading = str(hit.get("section_heading") or "")
    under = f", under “{_shorten(heading, 60)}”" if heading else ""
    snippet = _shorten(str(hit.get("snippet") or ""), 120)
    return f"{_where(hit)}{under}" + (f": {snippet}" if snippet else "")


def _last_question(request: ChatRequest) -> str:
    for message in reversed(request.messages):
        if isinstance(message, UserMessage):
            return message.text.strip()
    return ""


def _results_since_question(request: ChatRequest) -> list[tuple[str, str]]:
    """(tool name, result) for the tool results after the last user message."""
    names: dict[str, str] = {}
    results: list[tuple[str, str]] = []
    for message in request.messages:
        if isinstance(message, UserMessage):
            results.clear()
        elif isinstance(message, AssistantMessage):
            names.update((call.id, call.name) for call in message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            results.append((names.get(message.call_id, "tool"), message.content))
    return results


def _keywords(question: str) -> list[str]:
    words = [w for w in _WORD.findall(question.lower()) if w not in _STOPWORDS]
    return words[:8]


def _text_argument(tool: ToolSpec, preferred: str) -> str:
    """The name of the tool's string argument to fill: ``preferred`` if it has it, else its first."""
    properties: Mapping[str, Any] = tool.input_schema.get("properties") or {}
    if preferred in properties or not properties:
        return preferred
    required = [str(name) for name in tool.input_schema.get("required") or ()]
    for name in [*required, *properties]:
        spec = properties.get(name)
        if isinstance(spec, Mapping) and spec.get("type") == "string":
            return str(name)
    return preferred


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
