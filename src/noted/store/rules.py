"""Input rules every backend applies the same way: titles, attachment names and extensions.

The operations of ``noted.ops`` apply them too, before their first write, so nothing is half
written and a write's rehearsal (``noted.tools.rehearsal``) meets the refusal.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePath

from noted.errors import InvalidInputError

MAX_TITLE = 1_000
MAX_BODY = 50_000_000
"""The longest note body, in characters, on every backend."""
_EXTENSION = re.compile(r"^[A-Za-z0-9]{1,16}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
BIDI_CONTROLS = frozenset(map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]))
"""The invisible characters that reorder the text around them (embeddings, overrides, isolates):
``photo\u202egnp.exe`` reads ``photoexe.png``. Other format characters (the marks of right-to-left
text, soft hyphens, zero-width joiners of emoji and scripts) change no order and stay."""


def _hidden(char: str) -> bool:
    """Whether ``char`` is an invisible character that makes a title or name read otherwise."""
    return char in BIDI_CONTROLS


def _format_char(text: str) -> str | None:
    return next((c for c in text if _hidden(c)), None)


def plain_text(text: str) -> str:
    """``text`` with control characters and those that reorder text made spaces, on one line: a
    name noted did not choose (an MCP client's), as a log line or a list may show it."""
    return " ".join("".join(" " if _CONTROL.match(c) or _hidden(c) else c for c in text).split())


def clean_title(title: str, what: str = "title") -> str:
    """A title with surrounding whitespace removed and tabs made spaces; newlines, other control
    characters (an escape sequence in a title would drive the terminal of whoever lists it) and
    huge titles are refused."""
    title = title.strip().replace("\t", " ")
    if "\n" in title or "\r" in title:
        raise InvalidInputError(f"a {what} must be one line")
    control = _CONTROL.search(title)
    if control is not None:
        raise InvalidInputError(
            f"a {what} must not hold control characters (it holds U+{ord(control.group()):04X})"
        )
    hidden = _format_char(title)
    if hidden is not None:
        raise InvalidInputError(
            f"a {what} must not hold the invisible characters that reorder text, such as a right-to-left "
            f"override (it holds U+{ord(hidden):04X})"
        )
    if len(title) > MAX_TITLE:
        raise InvalidInputError(f"a {what} may have at most {MAX_TITLE} characters (got {len(title)})")
    return title


def control_picture(char: str) -> str:
    """The sign that shows a control character: ␀ … ␟ for C0, ␡ for DEL, � for C1."""
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    return "\u2421" if code == 0x7F else "\ufffd"


DIRECTION_MARKS = frozenset("\u061c\u200e\u200f")
"""The invisible marks of a direction (Arabic letter mark, left-to-right and right-to-left marks)."""
TERMINAL_TEXT: dict[int, str | None] = {
    **{code: control_picture(chr(code)) for code in [*range(0x20), *range(0x7F, 0xA0)]},
    **dict.fromkeys(map(ord, BIDI_CONTROLS | DIRECTION_MARKS)),
}
"""How text noted did not write reaches a terminal, in the app (``noted.ui.patches.control_text``)
and on the command line (``noted.cli.terminal``), as a ``str.translate`` table: each control
character as its picture (written as it is, ``ESC`` drives the terminal), and the bidi controls and
marks of a direction left out (written as they are, a title can read reversed; the app's layout
counts them 0 cells wide, while some terminals give each a cell)."""


def read_title(title: str) -> str:
    """A title read from a file (a Markdown folder's name, heading or front matter) as ``clean_title``
    takes it: tabs made spaces, other control characters and hidden format characters shown by
    their signs (a file may be named so; its note must still open, and no title drives a terminal)."""
    title = _CONTROL.sub(lambda match: control_picture(match.group()), title.replace("\t", " "))
    return "".join("\ufffd" if _hidden(c) else c for c in title)


def _shows_nothing(title: str) -> bool:
    """Whether ``title`` is empty or only invisible format characters (a byte order mark, zero-width
    spaces and joiners): a list would show it as nothing, and no one could name it."""
    return all(unicodedata.category(c) == "Cf" for c in title)


def clean_notebook_title(title: str) -> str:
    """A notebook's title as ``clean_title`` makes it, or an error when that leaves it showing nothing."""
    title = clean_title(title, "notebook title")
    if _shows_nothing(title):
        raise InvalidInputError("a notebook needs a title")
    return title


def clean_tag_title(title: str) -> str:
    """A tag's title as ``clean_title`` makes it, or an error when that leaves it showing nothing."""
    title = clean_title(title, "tag")
    if _shows_nothing(title):
        raise InvalidInputError("a tag needs a title")
    return title


def check_body(body: str) -> str:
    """``body`` unchanged, or an error when it is longer than ``MAX_BODY``."""
    if len(body) > MAX_BODY:
        raise InvalidInputError(f"a note body may have at most {MAX_BODY:,} characters (got {len(body):,})")
    return body


def attachment_name(filename: str) -> str:
    """The bare file name of an attachment (any folder part dropped, and leading dots: a Markdown
    folder hides dot-names, and ``.gitignore`` would be the folder's own), or an error when that
    leaves it empty or it holds what ``clean_title`` refuses."""
    name = PurePath(filename.replace("\\", "/")).name.lstrip(".")
    if not name:
        raise InvalidInputError("an attachment needs a file name")
    return clean_title(name, "file name")


def file_extension(filename: str) -> str:
    """The lower-case extension of ``filename`` when it is a plausible one, else ``""``."""
    suffix = PurePath(filename).suffix.lstrip(".").lower()
    return suffix if _EXTENSION.match(suffix) else ""
