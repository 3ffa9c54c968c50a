"""A write the person approves is applied to the note as it was when they were asked.

While an approval card waits, the note may change: the person saves it in another window, their
editor writes its file in a Markdown folder, ``git pull`` brings a new version. The yes was given
to the model's change of the note the card stood on, so ``update_note`` runs on that version
(``base_updated_time``), as the open note's edits do (``noted.ops.session.EditorSession``): a
new body is merged line by line with what changed meanwhile when the two touch different lines
(the same rule, ``noted.ops.conflicts.carried_text``, as an accepted proposal's),
and refused as stale (nothing written, the model told to read the note again) when they clash, or
when it retitles a note retitled meanwhile. An append, a prepend or a ``replace_text`` is
worked out by the tool on the note as it is then: it overwrites nothing. A call that gives its own
``base_updated_time`` keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from noted.errors import NotedError
from noted.models import Note
from noted.ops.conflicts import carried_text
from noted.providers import ToolCallReady
from noted.store.protocol import ReadsNotesFromText, Store
from noted.tools import ToolRegistry
from noted.tools.proposals import note_key

BASE = "base_updated_time"


def asked_on(
    registry: ToolRegistry, store: Store, calls: Sequence[ToolCallReady], asked: Sequence[int]
) -> dict[int, Note]:
    """The note each ``asked`` call would change as it is now, when the call takes a base and gives
    none; only the round's first call on a note (a later one follows the earlier one's write).
    Blocking."""
    found: dict[int, Note] = {}
    named: set[str] = set()
    for index in asked:
        call = calls[index]
        tool = registry.get(call.name)
        key = note_key(tool) if tool is not None else None
        note_id = call.arguments.get(key) if key else None
        if tool is None or BASE not in tool.input_schema.get("properties", {}) or BASE in call.arguments:
            continue
        if not isinstance(note_id, str) or note_id in named:
            continue
        named.add(note_id)
        try:
            found[index] = store.get_note(note_id)
        except NotedError:
            continue  # the tool says what is wrong with the id
    return found


def as_approved(store: Store, arguments: Mapping[str, Any], seen: Note | None) -> dict[str, Any]:
    """``arguments`` to run now for a call approved on the note ``seen`` (None: as they are).
    Blocking."""
    args = dict(arguments)
    try:
        # A Markdown folder without a watcher has not followed an edit of the file yet: read it.
        read = store.note_as_filed if isinstance(store, ReadsNotesFromText) else store.get_note
        now = read(seen.id) if seen is not None else None
    except NotedError:
        now = None  # gone: the tool says so
    if seen is None or now is None:
        return args
    args[BASE] = seen.updated_time  # the store refuses it if the note changed after all
    if now.updated_time == seen.updated_time:
        return args
    title, body = (args.get(k) if isinstance(args.get(k), str) else None for k in ("title", "body"))
    text = carried_text((seen.title, seen.body), seen.updated_time, now, title, body)
    if text is None:
        return args  # both retitled it, or changed the same lines: stale
    if text[1] is not None:
        args["body"] = text[1]
    args[BASE] = now.updated_time
    return args
