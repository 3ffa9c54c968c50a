"""A note file's text: what noted reads from it, and edits that change one thing and keep the rest.

A file is ``[BOM] [front matter] body``, with ``\\n`` or ``\\r\\n`` line endings. noted's note body is
the text after the front matter, with ``\\n`` endings; ``FileText.render`` puts the front matter, the
line endings and the byte-order mark back as the file had them, and a final newline when the file
ended with one (an editor that drops it does not change the file's last line), so a file noted
rewrites differs from the old one only where noted changed it.

What noted reads (Obsidian's conventions where it has one):

- Title: a level-1 heading on the body's first line (``# Title``), else front-matter ``title``, else the
  file name without ``.md``.
- Tags: front-matter ``tags`` (a list or a comma-separated string) and inline ``#tag`` / ``#nested/tag``
  in the text at a line's start or after white space (``[#x]`` is none), not in code and not a
  heading's ``#``.
- To-do: ``todo: true`` makes the note a to-do; ``due`` is its due time; ``done`` its completion
  (``true`` or a time). ``source`` is its source URL, ``created`` its creation time.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import Any

import yaml

from noted.errors import InvalidInputError
from noted.markdown import MD_LINK, WIKI_LINK, code_ranges
from noted.store.rules import read_title
from noted.store.transfer.common import TODO_KEYS, dump_yaml, iso_utc, key_line, load_yaml, safe_name, to_ms

BOM = "\ufeff"
SOURCE_KEYS = ("source", "source_url")

_FRONT_END = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
_HEADING = re.compile(r"^#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_INLINE_TAG = re.compile(r"(?<!\S)#([^\s#!\"$%&'()*+,.:;<=>?@\[\\\]^`{|}~]+)")
_KEY = re.compile(r"^(['\"]?)([^\s:'\"]+)\1[ \t]*:")


@dataclass(frozen=True, slots=True)
class FileText:
    """A note file's text split into the parts noted keeps apart."""

    front: str | None
    """The front matter's YAML (between the ``---`` lines, ``\\n`` endings), None when there is none."""
    front_tail: str
    """What follows the closing ``---`` up to the body (its newline and any blank line)."""
    body: str
    crlf: bool = False
    bom: bool = False
    final_newline: bool = True

    @classmethod
    def parse(cls, text: str) -> FileText:
        bom = text.startswith(BOM)
        text = text.removeprefix(BOM)
        crlf = "\r\n" in text
        if crlf:
            text = text.replace("\r\n", "\n")
        final = text.endswith("\n")
        front, tail, body = None, "", text
        if text.startswith("---\n"):
            end = _FRONT_END.search(text, 4)
            if end is not None:
                front = text[4 : end.start()]
                rest = text[end.end() :]
                blank = re.match(r"\n[ \t]*(?:\n|$)|\n", rest)
                cut = blank.end() if blank else 0
                tail, body = text[end.start() : end.end()] + rest[:cut], rest[cut:]
        return cls(front, tail, body, crlf, bom, final)

    def render(self) -> str:
        """The file's text again, with its own line endings, byte-order mark and final newline."""
        text = self.body
        if self.front is not None:
            text = f"---\n{self.front}{self.front_tail}{self.body}"
        if self.final_newline and not text.endswith("\n"):
            text += "\n"
        if self.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        return (BOM if self.bom else "") + text

    # What noted reads ------------------------------------------------------------------------------
    def fields(self) -> dict[str, Any]:
        """The front matter as a mapping ({} when absent or not a mapping of keys)."""
        return {} if self.front is None else _fields(self.front) or {}

    def front_problem(self) -> str | None:
        """Why the front matter reads as no keys (``line 3: …``, counted in the file), or None."""
        if self.front is None or _fields(self.front) is not None:
            return None
        try:
            load_yaml(self.front)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 2}: " if mark is not None else ""
            return f"{where}{getattr(exc, 'problem', None) or 'not YAML'}"
        return "not a list of keys (key: value lines)"

    def time_problems(self) -> list[str]:
        """Why a time in the front matter is ignored (``line 2: "created": …``), for each such key:
        a date no calendar has, or one out of the range noted keeps (``to_ms`` says which)."""
        data, problems = self.fields(), []
        for key in ("created", *TODO_KEYS["due"], *TODO_KEYS["done"]):
            if key in data and not isinstance(data[key], bool):
                try:
                    to_ms(data[key])
                except (ValueError, TypeError) as exc:
                    problems.append(f'line {key_line(self.front or "", key)}: "{key}": {exc}')
        return problems

    def title(self, stem: str) -> str:
        """The first-line heading, else front-matter ``title``, else ``stem`` (the file name)."""
        first = self.body.split("\n", 1)[0]
        match = _HEADING.match(first)
        if match and match.group(1).strip():
            return read_title(match.group(1).strip())
        value = self.fields().get("title")
        if isinstance(value, str | int | float) and str(value).strip() and "\n" not in str(value):
            return read_title(str(value).strip())
        return read_title(stem)

    def title_source(self) -> str:
        """Where ``title`` comes from: ``heading``, ``front`` or ``name``."""
        if _HEADING.match(self.body.split("\n", 1)[0]):
            return "heading"
        return "front" if "title" in self.fields() else "name"

    def tags(self) -> list[str]:
        """Front-matter tags, then inline tags, each once (first spelling kept), in order."""
        seen: dict[str, str] = {}
        for tag in [*front_tags(self.fields()), *(m.group(1) for m in inline_tags(self.body))]:
            seen.setdefault(tag.casefold(), tag)
        return list(seen.values())

    def todo(self) -> tuple[bool, int, int]:
        """``(is_todo, due, completed)`` from the front matter (times in ms, 0 when not set)."""
        data = self.fields()
        is_todo = bool(_first(data, TODO_KEYS["todo"]))
        due = _time(_first(data, TODO_KEYS["due"]))
        done_value = _first(data, TODO_KEYS["done"])
        done = 1 if done_value is True else _time(done_value)
        return is_todo, due, done

    def source_url(self) -> str:
        value = _first(self.fields(), SOURCE_KEYS)
        return str(value) if isinstance(value, str) else ""

    def created(self) -> int:
        return _time(self.fields().get("created"))

    # Edits that change one thing -------------------------------------------------------------------
    def with_body(self, body: str) -> FileText:
        return replace(self, body=body)

    def with_title(self, title: str, stem: str) -> tuple[FileText, bool]:
        """The text with ``title`` where the title comes from, and whether the file must be renamed
        (a title from the file name, that a file name can hold)."""
        source = self.title_source()
        if source == "heading":
            first, sep, rest = self.body.partition("\n")
            return self.with_body(f"# {title}{sep}{rest}"), False
        if source == "front" or safe_name(title) != title:  # a title no file name can hold
            return self.with_key("title", title, ("title",)), False
        return self, title != stem

    def titled(self, title: str, stem: str) -> FileText:
        """The text whose title reads ``title`` in a file named ``stem``: ``with_title``, then
        front-matter ``title`` when the file's name would not carry it (a taken name got `` 2``)."""
        ft = self.with_title(title, stem)[0] if self.title(stem) != title else self
        return ft if ft.title(stem) == title else ft.with_key("title", title, ("title",))

    def with_key(self, name: str, value: object, keys: tuple[str, ...]) -> FileText:
        """The front matter with one key set (``value`` None removes it), every other line kept.

        ``keys``: the spellings the field may have; the first one present is changed, else ``name``
        is added at the end. A file without front matter gets some only when a value is set.
        """
        front = self.front or ""
        blocks = _key_blocks(front)
        key = next((k for k in keys if k in blocks), None)
        if value is None and key is None:
            return self
        if self.front is not None and _fields(self.front) is None:
            raise InvalidInputError(
                f'this note\'s front matter (between its "---" lines) is not YAML noted can read, so it'
                f' cannot set "{name}" there; correct it in the file first'
            )
        if key is not None and len(blocks[key]) > 1:  # YAML reads the last; an edit would lose one
            raise InvalidInputError(
                f'this note\'s front matter has "{key}" {len(blocks[key])} times, so noted cannot set'
                f' "{name}" without losing one; keep one "{key}" in the file first'
            )
        line = (
            ""
            if value is None
            else _dump_key(key or name, value, front[slice(*blocks[key][0])] if key else "")
        )
        if key is not None:
            start, end = blocks[key][0]
            front = front[:start] + line + front[end:]
        else:
            front = front + ("" if not front or front.endswith("\n") else "\n") + line
        if self.front is None:
            return replace(self, front=front, front_tail="---\n\n" if self.body else "---")
        if value is None and not front.strip():  # its last key gone: no empty block left behind
            return replace(self, front=None, front_tail="")
        return replace(self, front=front)

    def with_tags(self, tags: list[str]) -> FileText:
        """Front-matter ``tags`` set to ``tags`` (removed when empty), in the style the file used."""
        data = self.fields()
        old = data.get("tags", data.get("tag"))
        if odd := _not_tags(old):  # (rewritten from the tags noted reads, it would be dropped)
            raise InvalidInputError(
                f"this note's front-matter tags hold {dump_yaml(odd[0], flow=True).strip()}, which is no"
                " tag, so noted cannot change them without losing it; edit the tags in the file"
            )
        value: object = None
        if tags:
            value = ", ".join(tags) if isinstance(old, str) else list(tags)
        return self.with_key("tags", value, ("tags", "tag"))

    def replace_inline_tag(self, old: str, new: str | None) -> FileText:
        """Each inline ``#old`` (and ``#old/…``) renamed to ``#new``, or removed when ``new`` is None."""
        out: list[str] = []
        last = 0
        for match in inline_tags(self.body):
            tag = match.group(1)
            if tag.casefold() != old.casefold() and not tag.casefold().startswith(old.casefold() + "/"):
                continue
            start, end = match.span()
            if new is None:
                if tag.casefold() != old.casefold():
                    continue
                kept = "".join(out) + self.body[last:start]
                if kept[kept.rfind("\n") + 1 :].strip(" \t"):  # after words: the space before it goes
                    while start > last and self.body[start - 1] in " \t":
                        start -= 1
                else:  # it starts the line: the line keeps its indent and loses the space after it
                    while end < len(self.body) and self.body[end] in " \t":
                        end += 1
                out.append(self.body[last:start])
            else:
                out.append(self.body[last:start] + "#" + new + tag[len(old) :])
            last = end
        out.append(self.body[last:])
        return self.with_body("".join(out))


@functools.lru_cache(maxsize=64)
def _fields(front: str) -> dict[str, Any] | None:
    """Parsed once for the several fields read from one file (callers do not change it); None when
    it is not YAML, or not a mapping of keys (empty front matter has no keys: ``{}``)."""
    try:
        data = load_yaml(front)
    except yaml.YAMLError:
        return None
    return {} if data is None else data if isinstance(data, dict) else None


def front_tags(data: dict[str, Any]) -> list[str]:
    value = data.get("tags", data.get("tag"))
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    tags = (str(t).strip().lstrip("#") for t in items if isinstance(t, str | int | float))
    return [t for t in tags if t]


def _not_tags(value: object) -> list[object]:
    """What of front-matter ``tags`` is no tag to ``front_tags`` (a number alone, a mapping, a null
    item…): ``with_tags`` would drop it."""
    if value is None or isinstance(value, str):
        return []
    if not isinstance(value, list):
        return [value]
    return [t for t in value if isinstance(t, bool) or not isinstance(t, str | int | float)]


def inline_tags(body: str) -> list[re.Match[str]]:
    """Inline ``#tag`` matches outside code and links (a link's target or text: ``[a](#setup)``,
    ``[[#Setup]]``, as Obsidian reads them) and not a heading's marker; digits alone are no tag."""
    found = [m for m in _INLINE_TAG.finditer(body) if m.group(1).rstrip("/") and not m.group(1).isdigit()]
    if not found:
        return []  # most notes: no Markdown parse at all (it is the costliest part of reading a file)
    skip = code_ranges(body)
    if "](" in body or "[[" in body:
        skip += [m.span() for pattern in (MD_LINK, WIKI_LINK) for m in pattern.finditer(body)]
    return [m for m in found if not any(a <= m.start() < b for a, b in skip)]


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> object:
    return next((data[k] for k in keys if k in data), None)


def _time(value: object) -> int:
    """The time in ms, 0 when not set or not a time noted keeps (``time_problems`` says why)."""
    if value in (None, "", False, True) or isinstance(value, bool):
        return 0
    try:
        return to_ms(value)
    except (ValueError, TypeError, OverflowError):
        return 0


def yaml_time(ms: int) -> str:
    """A time as front matter shows it: ``2026-12-04T10:00:00Z`` (the year always in four digits)."""
    return iso_utc(ms, "seconds")


def _key_blocks(front: str) -> dict[str, list[tuple[int, int]]]:
    """Each top-level key's spans in the front matter (one, unless the key is repeated): its line
    and the indented or list lines below."""
    blocks: dict[str, list[tuple[int, int]]] = {}
    key, start, offset = None, 0, 0
    for line in front.splitlines(keepends=True):
        match = _KEY.match(line) if line[:1] not in (" ", "\t", "-", "#", "\n") else None
        if match or (line.strip() and line[:1] not in (" ", "\t", "-")):
            if key is not None:
                blocks.setdefault(key, []).append((start, offset))
            key, start = (match.group(2), offset) if match else (None, offset)
        offset += len(line)
    if key is not None:
        blocks.setdefault(key, []).append((start, offset))
    return blocks


def _dump_key(key: str, value: object, was: str = "") -> str:
    """``key: value`` as YAML; a list in the style the key had (``was``): ``[a, b]`` on its line, or
    its items indented as they were, so that a tag added is a one-line change."""
    text = dump_yaml({key: value})
    if isinstance(value, list) and value:
        if re.match(r"[^:]*:[ \t]*\[", was):
            text = f"{key}: {dump_yaml(value, flow=True).strip()}"
        elif indent := re.search(r"^([ \t]+)- ", was, re.MULTILINE):
            text = re.sub(r"^- ", indent.group(1) + "- ", text, flags=re.MULTILINE)
    first, _, rest = text.partition("\n")
    return first + _comment(was.partition("\n")[0]) + "\n" + rest


def _comment(line: str) -> str:
    """The YAML comment ending ``line`` (``  # csv``, kept on the key's new line), else ``""``."""
    key, _, value = line.rstrip("\r").partition(":")
    at = len(key) + 1
    if (opening := value.lstrip()[:1]) in ("'", '"'):  # (a ``#`` inside quotes is the value's)
        at = line.find(opening, at + len(value) - len(value.lstrip()) + 1) + 1 or len(line)
    found = re.compile(r"[ \t]+#.*").search(line.rstrip("\r"), at)
    return found.group(0) if found else ""
