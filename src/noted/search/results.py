"""What a search answers, whichever front end asked and whichever mode ran: one result type.

``noted.search.finder.Finder`` makes these; the search screen, ``noted search`` and the search
tools only render them. A ``Hit`` is one note: its score, the arms that found it, up to
``MAX_SECTIONS`` sections best first (the first is where the note opens), and a snippet. A
``Reading`` says how the query was read (the mode, an English translation searched beside it,
misspelt words mended, why only keyword search ran), and ``Results.lines`` words it once for all.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from noted.markdown import section_label

if TYPE_CHECKING:
    from noted.indexer.coverage import IndexCoverage
    from noted.search.translate import Translation

MAX_SECTIONS = 3
"""Sections offered per note: the one that matched best, then the next best."""

LANGUAGE_NAMES = {"es": "Spanish", "de": "German", "fr": "French"}


class Mode(enum.StrEnum):
    """How to search: by the words (Joplin's grammar, all must match), by meaning, or both fused."""

    KEYWORD = "keyword"
    SEMANTIC = "semantic"
    HYBRID = "hybrid"


class Arm(enum.StrEnum):
    """Which search found a note."""

    KEYWORD = "keyword"
    SEMANTIC = "semantic"


@dataclass(frozen=True, slots=True)
class Section:
    """A section of a note: its positional path (``1.2``; ``0`` for the text before the first
    heading), its heading ("" for ``0``) and a snippet of its text closest to the query ("" when
    the search did not read the section's text: the hit's ``snippet`` is then of its first)."""

    path: str
    heading: str
    snippet: str = ""

    def label(self) -> str:
        """``§ 1.2 Heading``, or ``§ top``."""
        return section_label(self.path, self.heading)


@dataclass(frozen=True, slots=True)
class Hit:
    """One note found.

    ``score`` is the fused score (0 to 1) in hybrid mode, the cosine of the best passage by
    meaning, or the BM25 score by keyword (0 for a query of filters only). ``sections`` holds up
    to ``MAX_SECTIONS``, best first: by meaning, the sections of the note's closest passages;
    by keyword alone, the section of the first word found (none when only the title matched).
    ``snippet`` is the passage that matched best by meaning, else text around the first word
    found; ``passage`` the whole passage by meaning ("" when the keyword arm alone found it).
    """

    note_id: str
    title: str
    notebook_id: str
    notebook: str
    updated_time: int
    score: float
    arms: tuple[Arm, ...]
    sections: tuple[Section, ...]
    snippet: str
    passage: str = ""
    is_todo: bool = False
    todo_completed: int = 0
    keyword_score: float | None = None
    semantic_score: float | None = None

    @property
    def section(self) -> Section | None:
        """The section the note opens at: the best one, when there is one."""
        return self.sections[0] if self.sections else None


@dataclass(frozen=True, slots=True)
class Reading:
    """How a query was read."""

    mode: Mode
    relevance: str = ""
    """The preset by meaning (strict, normal, loose); "" by keyword."""
    translation: Translation | None = None
    """The English searched beside the query as typed, when it was taken for another language."""
    corrections: dict[str, str] = field(default_factory=dict)
    """Words no note holds (folded), and the indexed word searched beside each."""
    keyword_only: str | None = None
    """Why only the keyword arm ran in hybrid mode (no usable index), when it did."""

    def line(self) -> str:
        """One line on how the query was read ("" when it was searched just as typed)."""
        parts = []
        if self.translation is not None:
            language = LANGUAGE_NAMES.get(self.translation.language, self.translation.language)
            parts.append(f'read as {language}: searched as typed and in English as "{self.translation.text}"')
        if self.corrections:
            mended = ", ".join(f'"{a}" as "{b}"' for a, b in self.corrections.items())
            parts.append(f"misspelt words searched as the notes spell them: {mended}")
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Results:
    """The hits of one search, best first, and what a person should be told about them."""

    hits: tuple[Hit, ...]
    reading: Reading
    total: int
    """Notes matched: by keyword, all of them (whatever ``limit`` and ``offset``); by meaning or
    both, those ranked up to the page's end (``offset`` + the hits shown, at most ``offset`` +
    ``limit``), which is all of them when fewer matched. Either way a page has more after it only
    when ``offset`` + the hits shown is less than this."""
    offset: int = 0
    suggestion: str = ""
    """By keyword, when nothing matched: the query with its misspelt words corrected, or ""."""
    translation_hint: str = ""
    """By keyword, when nothing matched a query in another language: the English the other modes
    would search beside it, or ""."""
    coverage: IndexCoverage | None = None
    """By meaning or both: how much of the notes searched the index covers."""
    every_word: bool = False
    """By keyword, when nothing matched: the query asked for every one of several words (Joplin's
    AND), which a question typed in words of its own seldom meets."""

    @property
    def mode(self) -> Mode:
        return self.reading.mode

    def lines(self) -> tuple[str, ...]:
        """What to tell the person beside the hits, most important first (no line for a
        search that went as expected)."""
        out = []
        if self.reading.keyword_only:
            out.append(f"keyword results only: {self.reading.keyword_only}")
        elif self.coverage is not None and (notice := self.coverage.notice()):
            missing = self.coverage.missing
            effect = "results may be missing" if missing else "results may be out of date"
            if self.coverage.indexing:
                out.append(f"{notice} (still indexing): {effect}")
            else:  # a `noted index` killed midway, or none running: nothing catches up unless told to
                out.append(
                    f"{notice}: {effect} (run `noted index` to {'finish it' if missing else 'catch up'})"
                )
        if not self.hits:
            out.append(self._nothing())
        if line := self.reading.line():
            out.append(line)
        return tuple(out)

    def _nothing(self) -> str:
        if self.offset and self.total:
            return f"no more results ({self.total} in all)"
        if self.translation_hint:
            return f'no notes match; by meaning or both it is also searched in English as "{self.translation_hint}"'
        if self.suggestion:
            return f'no notes match; did you mean "{self.suggestion}"?'
        if self.every_word:
            return (
                "no note holds every word; any:1 finds notes with any of them, "
                "and search by both (hybrid) takes a question"
            )
        return "no notes are close in meaning" if self.mode is Mode.SEMANTIC else "no notes match"
