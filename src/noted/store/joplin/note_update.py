"""What an update of a Joplin note sends, the check made last before it, and what Joplin answers.

Joplin's Data API has no conditional write (no ``If-Match``): a ``PUT`` replaces the note whatever
it holds by then. ``unmoved`` asks for the note's ``updated_time`` again as the last request before
the ``PUT`` (``JoplinApi.send``'s ``check``), so an edit made in Joplin's apps while noted kept its
records (several requests after the read: 17 ms at the median, 125 ms at most, measured on the
terminal app) is met as a conflict; only the ``PUT``'s own round trip is left unguarded.
"""

from __future__ import annotations

from typing import Any

from noted.errors import ConflictError
from noted.models import Note, NotePatch
from noted.store.joplin.base import NOTE_FIELDS, note_of, safe_id
from noted.store.joplin.client import JoplinClient
from noted.store.rules import check_body, clean_title


def payload_of(old: Note, patch: NotePatch) -> dict[str, Any]:
    """The fields of ``old`` that ``patch`` changes, as Joplin takes them."""
    body = patch.body_after(old.body)
    payload: dict[str, Any] = {}
    if body != old.body:
        payload["body"] = check_body(body)
    if patch.title is not None:
        payload["title"] = clean_title(patch.title)
    simple = {
        "parent_id": patch.parent_id,
        "todo_due": patch.todo_due,
        "todo_completed": patch.todo_completed,
        "source_url": patch.source_url,
        "user_created_time": patch.user_created_time,
        "user_updated_time": patch.user_updated_time,
    }
    payload.update({k: v for k, v in simple.items() if v is not None})
    if patch.is_todo is not None:
        payload["is_todo"] = int(patch.is_todo)
    return payload


def unmoved(client: JoplinClient, old: Note) -> None:
    """Raise ``ConflictError`` when Joplin saved the note since ``old`` was read (its apps, a sync)."""
    now = client.get(f"/notes/{safe_id(old.id)}", {"fields": "updated_time"})
    moved = int(now.get("updated_time") or 0) if isinstance(now, dict) else 0
    if moved != old.updated_time:
        raise ConflictError(
            f'note "{old.title}" changed in Joplin while it was being saved; nothing was written',
            current_updated_time=moved,
        )


def saved_note(answer: Any, note_id: str) -> Note | None:
    """The note as Joplin's answer to a ``PUT`` holds it: the whole note saved (None when the
    answer lacks a field, so the caller reads it)."""
    if not isinstance(answer, dict) or answer.get("id") != note_id:
        return None
    return note_of(answer) if all(field in answer for field in NOTE_FIELDS.split(",")) else None
