"""Search hits' sections come from outlines cached by note version.

Parsing each hit's Markdown on every search was ~95 % of ``search_notes``. These tests check the
cache gives the very answers of a fresh parse (setext headings and all), parses a version once,
and never serves a stale outline after the note changes.
"""

from __future__ import annotations

import random

from noted.models import NoteDraft, NotePatch
from noted.search.keyword import KeywordSearch
from noted.search.query import TextTerm
from noted.search.snippet import OUTLINES, OutlineCache, body_pattern, locate
from noted.store.sqlite import SqliteStore

PIECES = [
    "# Title\n",
    "Intro words.\n",
    "## Alpha\n",
    "Setext\n===\n",
    "Under\n---\n",
    "budget here\n",
    "\n",
    "```\n# not a heading budget\n```\n",
    "text budget\n",
]


def test_cached_sections_are_those_of_a_fresh_parse() -> None:
    rng = random.Random(18)
    pattern = body_pattern([TextTerm("budget")])
    for n in range(300):
        body = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 25)))
        # not vacuous: most of these bodies have a match below some heading
        assert locate(body, pattern, ("note", n, len(body))) == locate(body, pattern), body


def test_one_version_is_parsed_once_and_a_new_version_again() -> None:
    cache = OutlineCache(size=2)
    first = cache.get(("a", 1, 9), "# One\nx\n")
    assert cache.get(("a", 1, 9), "# One\nx\n") is first
    second = cache.get(("a", 2, 9), "# Two\nx\n")
    assert second is not first and second.sections[0].heading == "Two"
    cache.get(("b", 1, 1), "y")
    assert len(cache) == 2  # bounded: the least recently used went


def test_a_search_after_an_edit_shows_the_new_section(store: SqliteStore) -> None:
    folder = store.create_folder("Work", actor="user")
    note = store.create_note(NoteDraft("Plan", "# Costs\n\nthe budget\n", folder.id), actor="user")
    search = KeywordSearch(store)
    assert search.search("budget").hits[0].section_heading == "Costs"
    kept = len(OUTLINES)
    assert search.search("budget").hits[0].section_heading == "Costs"
    assert len(OUTLINES) == kept  # the second search parsed nothing new
    store.update_note(note.id, NotePatch(body="# Money\n\nthe budget\n"), actor="user")
    assert search.search("budget").hits[0].section_heading == "Money"
