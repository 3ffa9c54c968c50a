"""Small builders for the tools' JSON Schemas (draft 2020-12), and the fragments they share.

Input schemas are closed (``additionalProperties: false``) so a misspelt field is an error naming
it rather than silently ignored. Output schemas describe exactly what the handlers return; the
registry checks every payload against them.
"""

from __future__ import annotations

from typing import Any

from noted.tools.base import Payload

MAX_QUERY = 1_000
MAX_TITLE = 1_000
MAX_TEXT = 1_000_000
"""The largest body, or piece of one, a model may send in one call (characters)."""
MAX_TAG = 200
MAX_TAGS = 50
MAX_OFFSET = 1_000_000_000
"""The largest offset a paged tool takes (rows or characters): beyond any notebook or note, and far
below what SQLite's 64-bit integers or a client's JSON numbers (2**53) can hold."""
FIRST_MS = -62_135_596_800_000
LAST_MS = 253_402_300_799_999
"""The first and last milliseconds of years 1 to 9999, the times a tool can read and write back."""
LIST_DEFAULT = 50
"""How many rows a listing tool returns when the call gives no ``limit``."""
EXAMPLE_ID = "0123456789abcdef0123456789abcdef"


def obj(properties: dict[str, Payload], required: tuple[str, ...] = (), *, closed: bool = True) -> Payload:
    """An object with these properties."""
    schema: Payload = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    return schema


def string(description: str = "", **kw: Any) -> Payload:
    return _described({"type": "string", **kw}, description)


def integer(description: str = "", **kw: Any) -> Payload:
    return _described({"type": "integer", **kw}, description)


def boolean(description: str = "", **kw: Any) -> Payload:
    return _described({"type": "boolean", **kw}, description)


def number(description: str = "", **kw: Any) -> Payload:
    return _described({"type": "number", **kw}, description)


def array(items: Payload, description: str = "", **kw: Any) -> Payload:
    return _described({"type": "array", "items": items, **kw}, description)


def nullable(schema: Payload) -> Payload:
    """``schema`` or null."""
    kind = schema["type"]
    return {**schema, "type": [kind, "null"]}


def _described(schema: Payload, description: str) -> Payload:
    if description:
        schema["description"] = description
    return schema


def offset(description: str) -> Payload:
    """Where a page starts. Every integer a tool takes declares both bounds (a unit test checks)."""
    return integer(description, minimum=0, maximum=MAX_OFFSET, default=0)


def time_arg(description: str) -> Payload:
    """A time as the tools return it (a string) or in milliseconds since 1970."""
    kinds = ["string", "integer"]
    return _described({"type": kinds, "maxLength": 40, "minimum": FIRST_MS, "maximum": LAST_MS}, description)


def note_id(description: str = "The note's id (32 hex digits).") -> Payload:
    return string(description, minLength=1, maxLength=64)


def notebook_id(description: str = "A notebook's id (32 hex digits).") -> Payload:
    return string(description, minLength=1, maxLength=64)


def tag_list(description: str) -> Payload:
    return array(string(minLength=1, maxLength=MAX_TAG), description, maxItems=MAX_TAGS)


def text(description: str, *, min_length: int = 0) -> Payload:
    return string(description, minLength=min_length, maxLength=MAX_TEXT)


# Output fragments ---------------------------------------------------------------------------

TIME = string("ISO 8601 UTC time with milliseconds.")
OPT_TIME = nullable(string("ISO 8601 UTC time with milliseconds, or null when not set."))

NOTE_REF: dict[str, Payload] = {
    "id": string(),
    "title": string(),
    "notebook_id": string(),
    "notebook": string("The notebook's title."),
    "updated_time": TIME,
}

NOTE_FIELDS: dict[str, Payload] = {
    **NOTE_REF,
    "created_time": TIME,
    "tags": array(string(), "Tag titles."),
    "is_todo": boolean(),
    "todo_completed": boolean(),
    "todo_completed_time": OPT_TIME,
    "todo_due": OPT_TIME,
    "source_url": string(),
    "in_trash": boolean("True when the note is in the trash (restore_note brings it back)."),
    "is_conflict": boolean(
        "True when the note is a conflict copy made by Joplin's sync (the other side of a note changed "
        "on two machines). It cannot be edited: tell the person, who settles it with `noted conflicts`."
    ),
}
NOTE_REQUIRED = tuple(NOTE_FIELDS)

PAGE_FIELDS: dict[str, Payload] = {
    "body": string("The text returned (the body, or the section asked for)."),
    "body_length": integer("Length of the whole body, or of the section, in characters."),
    "body_offset": integer("Where the returned text starts in it."),
    "body_returned_chars": integer("How many characters were returned."),
    "has_more": boolean("True when text follows what was returned."),
    "truncated": string("Present when has_more: how to read the rest."),
}
PAGE_REQUIRED = ("body", "body_length", "body_offset", "body_returned_chars", "has_more")

OFFSET_PAGE: dict[str, Payload] = {
    "total": integer("How many there are over all pages, before limit and offset."),
    "offset": integer(),
    "has_more": boolean(),
    "next_offset": integer("The offset of the next page, when has_more."),
}
"""The paging fields of a listing paged by ``offset`` (``payloads.offset_page``), beside its rows."""
OFFSET_PAGE_REQUIRED = ("total", "offset", "has_more")

WRITE_RESULT: dict[str, Payload] = {
    **NOTE_REF,
    "body_length": integer(),
    "tags": array(string()),
    "is_todo": boolean(),
    "todo_completed": boolean(),
    "in_trash": boolean(),
}
WRITE_REQUIRED = tuple(WRITE_RESULT)
