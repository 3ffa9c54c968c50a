"""Keyword search of Chinese, Japanese and Korean words, written without spaces between them.

FTS5's ``unicode61`` keeps a run of such characters as one token ("我们明天开会讨论预算" is one
word to the index), so a word inside the run was never found: these terms are matched as
substrings of the title and body, with the query's other words and filters applied as before.
Every test keeps a note that must not come back, so that a search returning everything fails.
"""

from __future__ import annotations

import pytest
from tests.support.search_notes import Notes

from noted.store.sqlite import SqliteStore


@pytest.fixture
def notes(store: SqliteStore) -> Notes:
    n = Notes(store)
    n.add("cn", "我们明天开会讨论预算")
    n.add("jp", "東京の会議メモ")
    n.add("ko", "내일 회의에서 예산을 논의합니다")
    n.add("mixed", "The budget for Q3: 预算已经批准")
    n.add("english", "A meeting about the budget, nothing else")
    return n


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("预算", {"cn", "mixed"}),  # at the end of a run
        ("开会", {"cn"}),  # in the middle of one
        ("会議", {"jp"}),
        ("メモ", {"jp"}),  # Katakana after Han and Hiragana
        ("東京", {"jp"}),  # at the start: found before too, as a prefix
        ("회의", {"ko"}),  # Hangul joined to its particle
        ("讨论预算", {"cn"}),
        ('"会議メモ"', {"jp"}),
    ],
)
def test_a_word_inside_a_run_is_found(notes: Notes, query: str, expected: set[str]) -> None:
    assert notes.titles(query) == expected


def test_other_terms_and_filters_still_apply(notes: Notes) -> None:
    assert notes.titles("预算 budget") == {"mixed"}  # AND with an indexed word
    assert notes.titles("预算 -budget") == {"cn"}
    assert notes.titles("budget -预算") == {"english"}
    assert notes.titles("any:1 会議 회의") == {"jp", "ko"}
    assert notes.titles("any:1 会議 meeting") == {"jp", "english"}
    assert notes.titles("title:预算") == set()
    notes.add("titled 预算", "no such word in the body")
    assert notes.titles("title:预算") == {"titled 预算"}
    assert notes.titles("body:预算") == {"cn", "mixed"}


def test_trash_is_left_out(notes: Notes, store: SqliteStore) -> None:
    gone = notes.add("gone", "预算")
    store.trash_note(gone, actor="user")
    assert notes.titles("预算") == {"cn", "mixed"}


def test_the_snippet_and_section_are_those_of_the_match(notes: Notes) -> None:
    filler = "这是一段很长的文字。" * 40
    notes.add("long", f"# 开始\n\n{filler}\n\n# 财务\n\n{filler}关于季度的预算讨论。\n")
    hit = next(h for h in notes.search.search("季度").hits if h.title == "long")
    assert "季度" in hit.snippet and hit.snippet.startswith("…")
    assert (hit.section, hit.section_heading) == ("2", "财务")


def test_a_word_with_voiced_kana_names_its_section(notes: Notes) -> None:
    # ガ is カ with a voicing mark: the match must be found where it is, not looked for as カ.
    filler = "これは長い文章です。" * 40
    notes.add("gas", f"# 概要\n\n{filler}\n\n# 光熱費\n\n{filler}今月のガス代は高い。\n")
    hit = next(h for h in notes.search.search("ガス代").hits if h.title == "gas")
    assert "ガス代" in hit.snippet and (hit.section, hit.section_heading) == ("2", "光熱費")
    assert notes.titles("カス代") == set()  # as the index compares words: a voiced kana is another letter


@pytest.mark.parametrize(
    ("query", "typed"),
    [
        ("東京ärger", "東京Ärger"),  # case, beyond the 26 ASCII letters
        ("東京arger", "東京Ärger"),  # and diacritics, as the index folds them ("arger" finds "Ärger")
        ("αθηνα会議", "ΑΘΗΝΑ会議"),  # Greek
        ("москва会議", "Москва会議"),  # Cyrillic
        ("TOKYO駅", "tokyo駅"),  # ASCII, as before
        ("東京*RGER", "東京Ärger"),  # ``*``: any run
        ("[駅]?", "[駅]?"),  # GLOB's own signs are letters here
    ],
)
def test_a_mixed_word_is_found_whatever_its_case_and_accents_as_words_are(
    notes: Notes, query: str, typed: str
) -> None:
    notes.add("typed", f"メモ {typed} の件")
    assert notes.titles(query) == {"typed"}
    hit = next(h for h in notes.search.search(query).hits if h.title == "typed")
    assert typed in hit.snippet
