"""Keyword search of symbols and emoji (``✅``, ``🎉``, ``⭐``, ``→``, ``€``), which people put in
titles and tags.

FTS5's ``unicode61`` makes no word of a symbol: it separates words as punctuation does, so
``noted search 🎉`` said there was nothing to search for (exit 2), and ``🎉 party`` found every
note with "party". A term holding one is found anywhere in the title and body, as a Chinese word
is (``noted.search.anywhere``). Every test keeps a note that must not come back, so that a search
returning everything (or ignoring the symbol) fails.
"""

from __future__ import annotations

import pytest
from tests.support.search_notes import Notes

from noted.errors import QueryError
from noted.search.query import parse_query
from noted.search.sections import marks
from noted.store.sqlite import SqliteStore


@pytest.fixture
def notes(store: SqliteStore) -> Notes:
    n = Notes(store)
    n.add("Launch 🎉", "We will have a party on Friday.")
    n.add("Tasks", "✅ buy the cake\n⭐ the good one\nPrice: 5€, then go → home.")
    n.add("Plain party", "A party with no symbol at all: 5 euros, go home.")
    return n


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("🎉", {"Launch 🎉"}),  # was refused: nothing to search for
        ("✅", {"Tasks"}),
        ("⭐", {"Tasks"}),
        ("→", {"Tasks"}),
        ("€", {"Tasks"}),  # joined to a digit, found anywhere
        ("5€", {"Tasks"}),
        ("🎉 party", {"Launch 🎉"}),  # found every note with "party"
        ("title:🎉", {"Launch 🎉"}),  # was refused: needs a word with letters or digits
        ("body:🎉", set()),
        ('"→ home"', {"Tasks"}),  # found every note with "home"
        ("party -🎉", {"Plain party"}),  # "-🎉" excludes, unlike "-f" (an option's letter)
        ("any:1 🎉 ⭐", {"Launch 🎉", "Tasks"}),
    ],
)
def test_a_symbol_is_found_where_it_is(notes: Notes, query: str, expected: set[str]) -> None:
    assert notes.titles(query) == expected


def test_an_emoji_with_or_without_its_presentation_selector_finds_both(notes: Notes) -> None:
    notes.add("heart", "I ❤️ this")  # U+2764 U+FE0F, as an emoji keyboard types it
    notes.add("bare heart", "I ❤ that")
    assert notes.titles("❤️") == {"heart", "bare heart"}
    assert notes.titles("❤") == {"heart", "bare heart"}


def test_a_sign_is_not_taken_for_the_letter_it_decomposes_to(notes: Notes) -> None:
    # ≠ decomposes to "=" and a combining stroke: folded as a letter's accent, it found every "=".
    notes.add("unequal", "a ≠ b")
    notes.add("equal", "a = b")
    assert notes.titles("≠") == {"unequal"}


def test_the_snippet_and_section_are_those_of_the_symbol(notes: Notes) -> None:
    filler = "Words about something else entirely, at some length. " * 12
    notes.add("long", f"# Start\n\n{filler}\n\n# Done\n\n{filler}The launch went well 🎉 in the end.\n")
    hit = next(h for h in notes.search.search("🎉").hits if h.title == "long")
    assert "🎉" in hit.snippet and hit.snippet.startswith("…")
    assert (hit.section, hit.section_heading) == ("2", "Done")


@pytest.mark.parametrize("query", ["...", "-", "--", "&& -", "+", "=", "$"])
def test_punctuation_and_ascii_signs_alone_are_still_refused(query: str) -> None:
    with pytest.raises(QueryError, match="nothing to search for") as caught:
        parse_query(query)
    assert "letter or digit" in (caught.value.hint or "")


def test_ascii_signs_join_words_as_before() -> None:
    # C++, a+b, key=value are found by their words and ranked by the index, not scanned for.
    assert not any(t.substring for t in parse_query("C++ a+b key=value $HOME").text_terms)
    assert all(t.substring for t in parse_query("✅ 5€ a→b 🎉party").text_terms)


def test_the_reader_marks_a_symbol() -> None:
    pattern = marks(["🎉 party"])
    assert pattern is not None and pattern.search("the 🎉 is here") is not None


def test_a_symbol_with_case_is_found_in_either_case(notes: Notes) -> None:
    # Circled letters are symbols with case, as letters are: "ⓐ" finds "Ⓐ" as "a" finds "A".
    notes.add("graded", "Mark: Ⓐ for the essay")
    notes.add("circled", "Mark: ⓑ for the essay")
    assert notes.titles("ⓐ") == {"graded"}
    hit = next(h for h in notes.search.search("ⓐ").hits if h.title == "graded")
    assert "Ⓐ" in hit.snippet
