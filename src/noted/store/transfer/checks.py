"""The checks an import runs on names and fields before writing, so the store never refuses half-way.

Every rule the store applies on write (one-line titles of bounded length, bounded bodies,
tag names) is applied here to every file first, and the refusal names the file, and the line
when there is one. File names that are not valid UTF-8 are refused too: they would become titles.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path

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


def check_apart(path: Path, keep_out: Sequence[tuple[Path, str]], *, doing: str) -> None:
    """Refuse a folder to import or export (``doing``: "import", "export to") inside one of the
    ``keep_out`` folders, or holding one: exported into the Markdown folder, the export's files
    became notes, doubling at each export, and imported from it, every note and attachment was
    copied beside itself; into the profile, an export would lie among the files noted keeps there;
    and a replacement with ``--force`` deletes what a previous export holds, a folder inside it
    included."""
    where = path.resolve()
    for folder, what in keep_out:
        root = folder.resolve()
        if where.is_relative_to(root):
            place = f"is {what}" if where == root else f"is inside {what} {root}"
            raise TransferError(f"{path} {place}; {doing} a folder outside it")
        if root.is_relative_to(where):
            raise TransferError(f"{path} holds {what} {root}; {doing} a folder outside it")


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
