"""Input rules every backend applies the same way: titles, attachment names and extensions.

The operations of ``noted.ops`` apply them too, before their first write, so nothing is half
written and a write's rehearsal (``noted.tools.rehearsal``) meets the refusal.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from noted.errors import InvalidInputError

MAX_TITLE = 1_000
MAX_BODY = 50_000_000
"""The longest note body, in characters, on every backend."""
_EXTENSION = re.compile(r"^[A-Za-z0-9]{1,16}$")


def clean_title(title: str, what: str = "title") -> str:
    """A title with surrounding whitespace removed; newlines and huge titles are refused."""
    title = title.strip()
    if "\n" in title or "\r" in title:
        raise InvalidInputError(f"a {what} must be one line")
    if len(title) > MAX_TITLE:
        raise InvalidInputError(f"a {what} may have at most {MAX_TITLE} characters (got {len(title)})")
    return title


def clean_notebook_title(title: str) -> str:
    """A notebook's title as ``clean_title`` makes it, or an error when that leaves it empty."""
    title = clean_title(title, "notebook title")
    if not title:
        raise InvalidInputError("a notebook needs a title")
    return title


def clean_tag_title(title: str) -> str:
    """A tag's title as ``clean_title`` makes it, or an error when that leaves it empty."""
    title = clean_title(title, "tag")
    if not title:
        raise InvalidInputError("a tag needs a title")
    return title


def check_body(body: str) -> str:
    """``body`` unchanged, or an error when it is longer than ``MAX_BODY``."""
    if len(body) > MAX_BODY:
        raise InvalidInputError(f"a note body may have at most {MAX_BODY:,} characters (got {len(body):,})")
    return body


def attachment_name(filename: str) -> str:
    """The bare file name of an attachment (any folder part dropped), or an error when empty."""
    name = PurePath(filename.replace("\\", "/")).name
    if not name:
        raise InvalidInputError("an attachment needs a file name")
    return name


def file_extension(filename: str) -> str:
    """The lower-case extension of ``filename`` when it is a plausible one, else ``""``."""
    suffix = PurePath(filename).suffix.lstrip(".").lower()
    return suffix if _EXTENSION.match(suffix) else ""
