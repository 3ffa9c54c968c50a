"""Where an indexed chunk is in its note now: the index may not have followed an edit yet.

A chunk keeps the offsets of its text in the body and the hash of what was embedded
(``noted.indexer.chunking``). Until the indexer follows an edit, those offsets cut the new text
anywhere, mid-word too. So a chunk whose text is no longer the note's at its offsets is placed
again: at the section that still has its heading, else at the note's opening, and cut between
words; its score stays the one its old text earned. A note over ``notes.largeNoteChars`` is indexed
from its opening only, so a chunk is placed again among the opening's sections (parsing all of a
39 MB note for it took 20 s).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from noted.indexer.chunking import content_hash
from noted.markdown import outline

_LAST_SPACE = re.compile(r"\s\S*\Z")


@dataclass(frozen=True, slots=True)
class Place:
    """A span of the body and the section it is in (path ``0``, heading "": before any heading)."""

    path: str
    heading: str
    start: int
    end: int


def current_place(place: Place, body: str, *, lead: str, index: int, embedded: str, limit: int) -> Place:
    """``place`` when the chunk it names still holds the text embedded (hash ``embedded``), else
    where that chunk's section is now.

    Args:
        place: The chunk's section and offsets, as the index keeps them.
        body: The note's body now.
        lead: The title line the note's first chunk is led by (``chunking.title_lead``).
        index: The chunk's position in the note (0: the first, led by ``lead``).
        embedded: The hash the index keeps of the chunk's text.
        limit: ``notes.largeNoteChars``: a longer body's chunks are in its opening.
    """
    if place.start == place.end:  # a note of a title alone
        text = lead.strip()
    else:
        text = (lead if index == 0 else "") + body[place.start : place.end]
    if content_hash(text) == embedded:
        return place
    return _placed_again(place, body, limit)


def _placed_again(place: Place, body: str, limit: int) -> Place:
    sections = [s for s in outline(body, limit).sections if body[s.start : s.own_end].strip()]
    if not sections:
        return Place("0", "", 0, 0)
    # The same heading, at the same place when the heading appears more than once.
    same = sorted((s for s in sections if s.heading == place.heading), key=lambda s: s.path != place.path)
    section = same[0] if same else sections[0]
    own = body[section.start : section.own_end]
    start = section.start + len(own) - len(own.lstrip())
    end = section.start + len(own.rstrip())
    most = start + max(place.end - place.start, 240)
    if end > most:  # no longer than the chunk was, cut between words
        cut = _LAST_SPACE.search(body, start, most + 1)
        end = cut.start() if cut is not None and cut.start() > start else most
    return Place(section.path, section.heading, start, end)
