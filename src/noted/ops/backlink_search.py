"""Finding the notes that may link to a note: every note whose text holds one of its names (keyword
search, page by page), and a cheap look at a body for the text every such link holds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from noted.markdown import link_marks
from noted.search.keyword import MAX_LIMIT

if TYPE_CHECKING:  # links.py imports this module
    from noted.ops.links import PhraseSearch

BACKLINK_PAGE = MAX_LIMIT
"""How many notes mentioning a name each search for backlinks asks for; the next page follows
until every one is read (a name used in more notes is still found in all of them)."""


def mentioning(keyword: PhraseSearch, name: str, folders: frozenset[str] | None) -> Iterator[list[str]]:
    """The ids of every note (in ``folders``) whose text holds ``name`` as a phrase, a page at a time."""
    phrase = '"' + name.replace('"', " ") + '"'
    offset = 0
    while True:
        try:
            results = keyword.search(
                phrase, limit=BACKLINK_PAGE, offset=offset, folder_ids=folders, snippets=False
            )
        except Exception:  # a name the query grammar cannot take: other names still find links
            return
        page = [hit.note_id for hit in getattr(results, "hits", ())]
        yield page
        offset += len(page)
        if not page or offset >= getattr(results, "total", 0):
            return


def may_link(body: str, marks: list[str]) -> bool:
    """Whether ``body`` may hold a link with one of ``marks``: a body with no ``[[`` and no ``](``
    has no link at all (``WIKI_LINK``, ``MD_LINK``), and is not case-folded to look."""
    if "[[" not in body and "](" not in body:
        return False
    folded = body.casefold()
    return any(mark in folded for mark in marks)


def link_marks_of(names: list[str], note_id: str) -> list[str]:
    """Text that every link to the note holds (case-folded): ``[[name``, ``name.md``, ``:/id``…"""
    return [f":/{note_id}", *(mark.casefold() for name in names for mark in link_marks(name))]
