"""One parse of a note's Markdown for outlines, sections, search-hit sections and chunking.

Headings come from markdown-it-py, so a ``#`` inside a code fence is never a heading. Every
consumer (the viewer's outline, ``read_note(section=…)``, a search hit's section, the chunker)
asks this module, so their section paths always agree.

Section paths are positional: the first top-level heading is ``1``, its second child ``1.2``.
A heading is the child of the nearest heading before it with a smaller level, whatever the jump
(``#`` then ``###`` makes ``1.1``). Text before the first heading is section ``0``, shown to
people as ``top`` (``TOP``), a name ``Outline.find`` also accepts.
"""

from __future__ import annotations

import bisect
import functools
import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

TOP = "top"
"""What section ``0`` (the text before the first heading) is called wherever a person sees it."""


def section_label(path: str, heading: str | None = None) -> str:
    """``§ 2.1 Heading`` for a section, ``§ top`` for the text before the first heading."""
    if path == "0":
        return f"§ {TOP}"
    return f"§ {path} {heading or ''}".rstrip()


@dataclass(frozen=True, slots=True)
class Section:
    """A heading and the text it governs, up to the next heading of the same or a higher level.

    ``start`` is the offset of the heading line; ``body_start`` the offset just after it;
    ``end`` the end of the section including its subsections; ``own_end`` the end of the text
    before its first subsection.
    """

    path: str
    level: int
    heading: str
    start: int
    body_start: int
    end: int
    own_end: int

    @property
    def chars(self) -> int:
        """The length of the whole section, subsections included."""
        return self.end - self.start

    @property
    def depth(self) -> int:
        return 0 if self.path == "0" else self.path.count(".") + 1


@dataclass(frozen=True, slots=True)
class Outline:
    """The sections of one body, in document order (section ``0`` first when it has text)."""

    sections: tuple[Section, ...]
    covers: int | None = None
    """Set when only the body's opening was parsed (``outline(…, limit)``): its length, of ``length``."""
    length: int = 0

    @property
    def partial(self) -> str | None:
        """The one line, wherever an outline is shown, saying it lists the opening only; or None."""
        if self.covers is None:
            return None
        return (
            f"Partial outline: of the first {self.covers:,} of {self.length:,} characters "
            "(notes.largeNoteChars); headings further down are not listed."
        )

    def cut(self, section: Section) -> bool:
        """Whether ``section`` may go on past the opening parsed (it reaches its end)."""
        return self.covers is not None and section.end >= self.covers

    def at(self, offset: int) -> Section | None:
        """The innermost section that contains ``offset``."""
        starts = [s.start for s in self.sections]
        i = bisect.bisect_right(starts, offset) - 1
        while i >= 0:
            section = self.sections[i]
            if section.start <= offset < max(section.end, section.start + 1):
                return section
            i -= 1
        return None

    def find(self, key: str) -> list[Section]:
        """Sections named by a path (``1.2``), by exact heading text (case-insensitive) or ``top``."""
        key = key.strip()
        by_path = [s for s in self.sections if s.path == key]
        if by_path:
            return by_path
        folded = key.lstrip("#").strip().casefold()
        by_heading = [s for s in self.sections if s.path != "0" and s.heading.casefold() == folded]
        if by_heading or folded != TOP:
            return by_heading  # a heading really called "Top" wins over the name of section 0
        return [s for s in self.sections if s.path == "0"]

    @property
    def headings(self) -> tuple[Section, ...]:
        """The sections that have a heading (everything but section ``0``)."""
        return tuple(s for s in self.sections if s.path != "0")


# Characters that can start inline markup; a heading without any is already its own text.
_INLINE_SIGNS = re.compile(r"[*_`~\\\[!<&]")
# What each inline token shows: text, code and an image's alt as they are; breaks as a space;
# emphasis and link markers (their tokens carry no content) and raw HTML tags as nothing.
_INLINE_TEXT: dict[str, str] = {"softbreak": " ", "hardbreak": " ", "html_inline": ""}


def _plain_heading(text: str) -> str:
    """The heading's text as a reader sees it, markup removed the CommonMark way.

    A regex cannot tell ``_emph_`` from ``snake_case`` (an underscore inside a word is not
    emphasis), so the inline rules of the same parser decide which markers are markup.
    """
    if _INLINE_SIGNS.search(text):
        token = _commonmark().parseInline(text)[0]
        text = "".join(_INLINE_TEXT.get(c.type, c.content) for c in token.children or ())
    return " ".join(text.split())


@functools.lru_cache(maxsize=1)
def _commonmark() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


@functools.lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    # Only block structure matters here (headings and their lines); skipping the inline pass
    # makes the parse about a quarter faster and leaves each heading's raw text in ``content``.
    # Imported here: most commands (and the app's start) never parse Markdown.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])


def _line_offsets(body: str) -> list[int]:
    return [0, *(match.end() for match in re.finditer("\n", body))]


# A line that may be a top-level heading: up to three spaces, then an ATX opening (1-6 ``#`` and a
# space or the line's end) or a setext underline. No body without one has a heading, so most notes
# skip the parse; a line ends at ``\n``, ``\r`` or the text's end, as markdown-it reads it.
_HEADING_LINE = re.compile(
    r"(?:^|(?<=\r)) {0,3}(?:#{1,6}(?=[ \t\r\n]|\Z)|(?:=+|-+)[ \t]*(?=[\r\n]|\Z))", re.M
)


def _headings(body: str) -> list[tuple[int, int, int, str]]:
    """(level, start offset, body start offset, text) for each heading, in order."""
    if not _HEADING_LINE.search(body):
        return []
    tokens = parser().parse(body)
    lines = _line_offsets(body)
    out: list[tuple[int, int, int, str]] = []
    for i, token in enumerate(tokens):
        if token.type != "heading_open" or token.map is None or token.level != 0:
            continue
        level = int(token.tag[1:])
        first, last = token.map
        start = lines[first] if first < len(lines) else len(body)
        body_start = lines[last] if last < len(lines) else len(body)
        inline = tokens[i + 1]
        out.append((level, start, body_start, _plain_heading(inline.content)))
    return out


def opening(body: str, limit: int) -> str:
    """``body`` itself when it has at most ``limit`` characters, else its opening: cut at the last
    line break within ``limit`` (or at ``limit`` when the opening holds none). What the reader shows
    and the indexer embeds of a note larger than ``notes.largeNoteChars``."""
    if len(body) <= limit:
        return body
    cut = body.rfind("\n", 0, limit)
    return body[: cut + 1] if cut > 0 else body[:limit]


def heading_text(body: str) -> str:
    """The text of ``body``'s headings, one a line: what the keyword index weighs as headings."""
    return "\n".join(text for _, _, _, text in _headings(body) if text)


def outline(body: str, limit: int | None = None) -> Outline:
    """Parse ``body`` into its sections; with ``limit`` (``notes.largeNoteChars``), a longer body's
    ``opening`` only: parsing all of a 39 MB note took 20 s. Its sections are those of the opening,
    the last one cut where the opening ends, and ``Outline.partial`` says so."""
    if limit is not None and len(body) > limit:
        text = opening(body, limit)
        return Outline(outline(text).sections, len(text), len(body))
    found = _headings(body)
    length = len(body)
    sections: list[Section] = []
    first_start = found[0][1] if found else length
    if body[:first_start].strip():
        sections.append(Section("0", 0, "", 0, 0, first_start, first_start))

    # Stack of (level, path, index in sections); counters of children per parent path.
    stack: list[tuple[int, str, int]] = []
    children: dict[str, int] = {}
    for n, (level, start, body_start, text) in enumerate(found):
        while stack and stack[-1][0] >= level:
            stack.pop()
        parent = stack[-1][1] if stack else ""
        children[parent] = children.get(parent, 0) + 1
        path = f"{parent}.{children[parent]}" if parent else str(children[parent])
        own_end = found[n + 1][1] if n + 1 < len(found) else length
        end = length
        for later_level, later_start, _, _ in found[n + 1 :]:
            if later_level <= level:
                end = later_start
                break
        sections.append(Section(path, level, text, start, body_start, end, own_end))
        stack.append((level, path, len(sections) - 1))
    return Outline(tuple(sections))


def section_text(body: str, section: Section) -> str:
    """The text of a section with its heading line and its subsections."""
    return body[section.start : section.end]


def outline_lines(tree: Outline) -> list[str]:
    """The tab-separated outline used by ``read_note(outline=true)``: ``path\\tchars\\theading``.

    Section ``0`` keeps its path (the key to read it by) and is headed ``(top)`` so the line
    says what it is rather than ending in an empty column.
    """
    return [f"{s.path}\t{s.chars}\t{f'({TOP})' if s.path == '0' else s.heading}" for s in tree.sections]


NOTE_SUFFIXES = (".md", ".markdown")
"""A linked file with one of these is a note's."""
_FILE_SUFFIX = re.compile(r"\.(?=[^.]*[A-Za-z])[A-Za-z0-9]{1,10}")
"""What ends a file's name as its type: ``.png``, ``.tar.gz``'s ``.gz``, ``.mp4``; not ``.05`` of
``Meeting 2024.01.05`` nor ``.2 plan`` of ``v1.2 plan``, names of notes."""


def names_file(name: str) -> bool:
    """Whether a link to ``name`` (a path or a wiki name) leads to an attachment's file rather than
    to a note: it ends in a file type that is not a note's. Obsidian reads ``[[Meeting 2024.01.05]]``
    as the note ``Meeting 2024.01.05.md``, and so does noted."""
    suffix = posixpath.splitext(name)[1]
    return bool(_FILE_SUFFIX.fullmatch(suffix)) and suffix.lower() not in NOTE_SUFFIXES


_NOTE_LINK = re.compile(r":/([0-9a-f]{32})\b")
WIKI_LINK = re.compile(r"(!?)\[\[([^\[\]\n|#^]*)(?:#\^?([^\[\]\n|]*))?(?:\|([^\[\]\n]*))?\]\]")
"""An Obsidian wiki link or embed: ``!``, the name, the ``#heading`` and the ``|alias``."""


def link_marks(name: str) -> list[str]:
    """Text that every link to a note by the name ``name`` holds (a wiki link ``[[name``,
    ``[[folder/name]]`` or ``…/name#…``, ``…/name|…``; a Markdown link ``…name.md``), as written and
    percent-encoded: a body without any of them links no note of that name."""
    marks: list[str] = []
    for form in dict.fromkeys((name, quote(name))):
        marks += [f"[[{form}", f"/{form}]]", f"/{form}#", f"/{form}|", f"{form}.md"]
    return marks


def linked_ids(body: str) -> set[str]:
    """Ids referenced as ``:/id`` in a body (notes or resources)."""
    return set(_NOTE_LINK.findall(body))


MD_LINK = re.compile(
    r"\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)"
)
"""A Markdown link or image; group 1 is its target (found outside ``code_ranges`` by ``link_spans``)."""
_HTML_LINK = re.compile(r"""<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"'\n]*)["']""", re.IGNORECASE)
_REFERENCE = re.compile(
    r"""^ {0,3}\[(?!\^)(?:[^\[\]\n]|\\.)+\]:[ \t]*\n?[ \t]*(<[^<>\n]*>|[^\s<>]+)"""
    r"""(?=[ \t\r]*$|[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\))[ \t\r]*$)""",
    re.MULTILINE,
)
"""A reference definition, ``[r]: target "title"`` (not a footnote's ``[^1]:``); group 1 is its target."""
_AUTOLINK = re.compile(r"<(:/[0-9a-fA-F]{32}[^<>\s]*|[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*)>")
"""An autolink, ``<https://…>``, and Joplin's ``<:/id>``; group 1 is its target, inside the brackets."""
_WIKI_ID = re.compile(r"!?\[\[(:/[0-9a-fA-F]{32})(?:#([^\[\]\n|]*))?(?:\|([^\[\]\n]*))?\]\]")
"""A wiki link or embed to an id, ``[[:/id#heading|shown]]``: the id, the heading, the shown text."""
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)


def code_ranges(body: str) -> list[tuple[int, int]]:
    """Character ranges of code blocks and inline code, where a link is only text."""
    if "`" not in body and "    " not in body and "~~~" not in body and "\t" not in body:
        return []
    starts = _line_offsets(body)
    ranges = []
    for token in _commonmark().parse(body):
        if token.type in ("fence", "code_block") and token.map:
            first, last = token.map
            ranges.append((starts[first], starts[last] if last < len(starts) else len(body)))
    ranges.extend((m.start(), m.end()) for m in _CODE_SPAN.finditer(body))
    return ranges


@dataclass(frozen=True, slots=True)
class LinkSpan:
    """Where a link's target sits in a body, and the target as written."""

    start: int
    end: int
    target: str
    autolink: bool = False
    """Written ``<target>``: a target that is no URL or ``:/id`` is put back as ``[name](target)``."""
    shown: str | None = None
    """Written as a wiki link to an id, ``[[:/id#heading|shown]]`` (the span is all of it, and
    ``shown`` its alias or ""): a new target makes it a Markdown link, ``[shown](target)``."""


def link_spans(body: str, *, in_code: bool = False) -> list[LinkSpan]:
    """Targets of Markdown links and images, of HTML ``src``/``href`` and of wiki links to an id
    (``[[:/id]]``), outside code, in order; ``in_code``: those in code too (no Markdown parse: a
    quick look for candidates)."""
    found = [
        (pattern, match)
        for pattern in (MD_LINK, _HTML_LINK, _REFERENCE, _AUTOLINK)
        for match in (pattern.finditer(body) if pattern is not _REFERENCE or "]:" in body else ())
    ]
    wiki = list(_WIKI_ID.finditer(body)) if "[[:/" in body else []
    if not found and not wiki:
        return []  # (no Markdown parse for the code: most notes link nothing)
    code = code_ranges(body) if not in_code else []
    spans: list[LinkSpan] = []
    taken: list[tuple[int, int]] = []
    for pattern, match in found:
        start, end = match.span(1)
        if any(a <= start < b for a, b in [*code, *taken]):
            continue  # (an autolink's brackets may be an inline link's ``(<target>)``)
        spans.append(LinkSpan(start, end, match.group(1), autolink=pattern is _AUTOLINK))
        taken.append(match.span())
    for match in wiki:
        start, end = match.span()
        if not any(a <= start < b or start <= a < end for a, b in [*code, *taken]):
            heading = f"#{quote(match.group(2).strip())}" if match.group(2) and match.group(2).strip() else ""
            spans.append(LinkSpan(start, end, match.group(1) + heading, shown=(match.group(3) or "").strip()))
    spans.sort(key=lambda s: s.start)
    return spans


def replace_spans(body: str, replacements: list[tuple[LinkSpan, str]]) -> str:
    """``body`` with each span's target replaced (spans must not overlap)."""
    out, last = [], 0
    for span, text in sorted(replacements, key=lambda r: r[0].start):
        start, end = span.start, span.end
        if span.autolink and not _AUTOLINK.fullmatch(f"<{text}>"):  # ``<a b.pdf>`` would be no link
            start, end = start - 1, end + 1
            text = f"[{posixpath.basename(unquote(text.partition('#')[0])) or text}]({text})"
        elif span.shown is not None:
            name = posixpath.splitext(posixpath.basename(unquote(text.partition("#")[0])))[0]
            text = f"{'!' if body[start] == '!' else ''}[{span.shown or name or text}]({text})"
        out.append(body[last:start])
        out.append(text)
        last = end
    out.append(body[last:])
    return "".join(out)
