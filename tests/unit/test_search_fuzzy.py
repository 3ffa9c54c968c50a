"""Misspelt words are corrected from the index's own vocabulary."""

from __future__ import annotations

import pytest

from noted.models import NoteDraft
from noted.search import fuzzy
from noted.search.keyword import KeywordSearch
from noted.store.sqlite import SqliteStore


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [("rebase", "rebase", 0), ("rebse", "rebase", 1), ("cofnig", "config", 1), ("stahs", "stash", 1),
     ("explian", "explain", 1), ("ammend", "amend", 1), ("interactve", "interactive", 1),
     ("abc", "xyz", 3), ("kitten", "sitting", 3)],
)  # fmt: skip
def test_distance_counts_a_swap_of_neighbours_as_one_edit(a: str, b: str, expected: int) -> None:
    assert fuzzy.distance(a, b, limit=5) == expected


def test_distance_stops_past_the_limit() -> None:
    assert fuzzy.distance("kitten", "sitting", limit=2) == 3
    assert fuzzy.distance("a", "abcdef", limit=2) == 3  # lengths alone rule it out


def _add(store: SqliteStore, folder: str, title: str, body: str) -> None:
    store.create_note(NoteDraft(title, body, parent_id=folder), actor="user")


def test_a_word_no_note_holds_is_corrected_to_the_closest_word_of_several_notes(store: SqliteStore) -> None:
    folder = store.create_folder("Main", actor="user").id
    for n in range(3):
        _add(store, folder, f"Rebasing {n}", "rebase your branch interactively; config the editor")
    _add(store, folder, "Typo", "a note that says rebasr once")  # in one note only: no correction
    search = KeywordSearch(store)
    found = search.corrections(["rebse", "cofnig", "rebase", "xyzzy", "the", "Rébse"])
    # Known words, short words and words with nothing close are left out; keys are folded.
    assert found == {"rebse": "rebase", "cofnig": "config"}


def test_a_correction_is_preferred_in_more_notes_when_two_are_as_close(store: SqliteStore) -> None:
    folder = store.create_folder("Main", actor="user").id
    for n in range(4):
        _add(store, folder, f"Stash {n}", "stash the work")
    for n in range(2):
        _add(store, folder, f"Stack {n}", "stack the plates")
    # "stach" is one edit from both "stash" and "stack": the word of more notes wins.
    assert KeywordSearch(store).corrections(["stach"]) == {"stach": "stash"}


def test_keyword_search_that_finds_nothing_suggests_the_corrected_query(store: SqliteStore) -> None:
    folder = store.create_folder("Main", actor="user").id
    for n in range(2):
        _add(store, folder, f"Rebasing {n}", "rebase your branch interactively")
    search = KeywordSearch(store)
    missed = search.search("rebse branch tag:x OR")
    assert missed.total == 0 and missed.suggestion == "rebase branch tag:x OR"
    assert search.search(missed.suggestion.replace(" tag:x OR", "")).total == 2
    # Found something, or a quoted phrase: nothing is suggested (the words were not the problem).
    assert search.search("rebase").suggestion == ""
    assert search.search('"rebse branch"').suggestion == ""


def test_two_edits_are_allowed_only_in_long_words(store: SqliteStore) -> None:
    folder = store.create_folder("Main", actor="user").id
    for n in range(2):
        _add(store, folder, f"Partitions {n}", "partitioned tables and their language")
    # "partioned" (9 letters) is two edits from "partitioned"; "langsame" (8, German for slow)
    # is two from "language" too, but a short word two edits away is more often another word.
    assert KeywordSearch(store).corrections(["partioned", "langsame"]) == {"partioned": "partitioned"}


def test_a_word_that_begins_an_indexed_word_is_not_misspelt(store: SqliteStore) -> None:
    folder = store.create_folder("Main", actor="user").id
    for n in range(2):
        _add(store, folder, f"Garden {n}", "gardening gardeners")
        _add(store, folder, f"Harden {n}", "harden the steel")
    # "gardeni" is one edit from "garden"... but keyword search finds it as the start of
    # "gardening", so it is no misspelling; "hardem" begins nothing and is one edit from "harden".
    assert KeywordSearch(store).corrections(["gardeni", "hardem"]) == {"hardem": "harden"}


def test_notes_holding_counts_the_notes_with_a_word_of_every_prefix(store: SqliteStore) -> None:
    folder = store.create_folder("Main", actor="user").id
    _add(store, folder, "Deleting rows", "DELETE removes rows from a table")
    _add(store, folder, "Dropping", "DROP TABLE removes the table and its rows")
    _add(store, folder, "Views", "a view is a stored query")
    counts = KeywordSearch(store).notes_holding([("delet",), ("row",), ("delet", "row"), ("drop", "row"),
                                                 ("view", "row"), ('quo"te',), ()])  # fmt: skip
    # A group of prefixes is a word of each in one note ("deleting", "rows"); quotes are safe;
    # an empty group is no question.
    assert counts == {("delet",): 1, ("row",): 2, ("delet", "row"): 1, ("drop", "row"): 1, ("view", "row"): 0,
                      ('quo"te',): 0}  # fmt: skip
