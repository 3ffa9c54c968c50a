"""The checks an import runs on names and fields before writing, so the store never refuses half-way.

Every rule the store applies on write (one-line titles of bounded length, bounded bodies,
tag names) is applied here to every file first, and the refusal names the file, and the line
when there is one. File names that are not valid UTF-8 are refused too: they would become titles.
"""

from __future__ import annotations

import unicodedata

from noted.errors import InvalidInputError, NotUtf8Error
from noted.store.rules import MAX_BODY, clean_title
from noted.store.transfer.common import FrontMatter, TransferError, key_line, split_front_matter


def shown(text: str) -> str:
    """``text`` fit for a one-line message: control characters and undecodable bytes escaped.

    A file name holding a newline or the byte 0xFF prints as ``a\\nb`` or ``a\\xffb``, so the
    message stays one line and says exactly what is wrong.
    """
    out = []
    for ch in text:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
            out.append(f"\\x{code - 0xDC00:02x}")
        elif unicodedata.category(ch) in ("Cc", "Cs"):
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


def check_utf8_name(rel: str) -> None:
    """Refuse a file or folder name that is not valid UTF-8 (it would become a title)."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        raise NotUtf8Error(
            f"the file name {shown(rel)} is not valid UTF-8; rename it and import again"
        ) from None


def check_title(title: str, rel: str, *, what: str, from_name: bool, line: int | None = None) -> str:
    """``title`` cleaned as the store will clean it, or a refusal naming the file (and line)."""
    try:
        return clean_title(title, what)
    except InvalidInputError as exc:
        where = "its name" if from_name else f"line {line or 2}"
        raise TransferError(f"{shown(rel)}: {where}: {exc.message}; fix it and import again") from None


def check_note(rel: str, text: str, front: FrontMatter, title: str, body: str) -> None:
    """Every field of a note file (its ``text``, parsed) that the store would refuse, refused now."""
    yaml_text = split_front_matter(text)[0] or ""
    check_title(title, rel, what="title", from_name=not front.title, line=key_line(yaml_text, "title"))
    for tag in front.tags or ():
        check_title(tag, rel, what="tag", from_name=False, line=key_line(yaml_text, "tags"))
    if len(body) > MAX_BODY:
        raise TransferError(
            f"{shown(rel)} is too long for a note ({len(body):,} characters; at most {MAX_BODY:,})",
            hint="split it into several files",
        )
