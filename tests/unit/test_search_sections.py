"""A note's sections ranked for a query: closeness by meaning, and where the query's words are."""

from __future__ import annotations

from noted.search.sections import WORDS_WEIGHT, ChunkScore, marks, query_words, rank_sections

BODY = "# Locks\nrow and table locks\n# Advisory locks\nlocks whose meaning the application defines\n"


def _chunks(first: float, second: float) -> list[ChunkScore]:
    cut = BODY.index("# Advisory")
    return [
        ChunkScore("1", "Locks", 0, cut, first),
        ChunkScore("2", "Advisory locks", cut, len(BODY), second),
    ]


def test_without_words_the_closest_chunk_decides() -> None:
    ranked = rank_sections(_chunks(0.60, 0.55), BODY, frozenset())
    assert [s.path for s in ranked] == ["1", "2"] and ranked[0].score == 0.60


def test_a_section_holding_the_querys_rarer_words_passes_a_slightly_closer_one() -> None:
    words = query_words(["locks the application defines"])
    # Not vacuous: by closeness alone section 1 comes first (the test above).
    ranked = rank_sections(_chunks(0.60, 0.55), BODY, words)
    assert [s.path for s in ranked] == ["2", "1"]
    # "locks" is in both sections, so it weighs little; far apart in meaning, words do not decide.
    assert [s.path for s in rank_sections(_chunks(0.60 + WORDS_WEIGHT, 0.55), BODY, words)] == ["1", "2"]


def test_words_match_by_their_first_five_letters_a_shorter_one_whole_and_accents_folded() -> None:
    body = "# A\nrestoring the logs\n# B\nlogical café\n"
    cut = body.index("# B")
    chunks = [ChunkScore("1", "A", 0, cut, 0.5), ChunkScore("2", "B", cut, len(body), 0.5)]
    assert query_words(["restore the log", "Café"]) == frozenset({"resto", "log", "cafe"})
    by_path = {s.path: s.score for s in rank_sections(chunks, body, query_words(["restore the log"]))}
    assert by_path["1"] > by_path["2"]  # "restoring" holds "resto"; "logs" and "logical" are not "log"
    by_path = {s.path: s.score for s in rank_sections(chunks, body, query_words(["cafe"]))}
    assert by_path["2"] > by_path["1"]  # "café" folded


def test_the_words_a_note_is_marked_with_are_those_the_search_looked_for() -> None:
    found = marks(['how do the "advisory locks" of Postgres work -table notebook:Work', "Sperren"])
    assert found is not None
    text = "Advisory locks, the locks of POSTGRES; a table; Sperren; how it works; ADVISORY   LOCKS"
    assert [m.group() for m in found.finditer(text)] == [
        "Advisory locks",  # the phrase, whatever the case
        "POSTGRES",
        "Sperren",  # the English (or mended words) searched beside the query
        "works",  # a bare word matches as a prefix, as the keyword search reads it
        "ADVISORY   LOCKS",
    ]  # not "how", "the", "of", "do": words that do not count; not the excluded "table"
    assert marks(["the of a", "notebook:Work tag:x", "-locks"]) is None
    assert marks(['"locks" ("unclosed']) is not None  # a text the grammar refuses is skipped, not fatal
    assert marks(["café"]) is not None and marks(["café"]).search("the cafe") is not None  # type: ignore[union-attr]


def test_a_chinese_or_japanese_word_counts_where_it_is_inside_a_run() -> None:
    # Written without spaces: the word is inside a run of text, as the keyword search finds it.
    body = "# 概要\n这是会议的记录和安排\n# 财务\n我们讨论了季度预算和开支\n"
    cut = body.index("# 财务")
    chunks = [ChunkScore("1", "概要", 0, cut, 0.60), ChunkScore("2", "财务", cut, len(body), 0.55)]
    words = query_words(["季度预算", "会议"])
    assert words == frozenset({"季度预算", "会议"})  # whole: two characters make a word
    # Section 2 holds the rarer, longer word; by closeness alone section 1 comes first.
    assert [s.path for s in rank_sections(chunks, body, query_words(["季度预算"]))] == ["2", "1"]
    assert [s.path for s in rank_sections(chunks, body, frozenset())] == ["1", "2"]
    assert marks(["季度预算"]).search(body) is not None  # type: ignore[union-attr]


def test_a_symbol_counts_whole_and_anywhere() -> None:
    # A search by meaning for "🎉" opened the note at its closest chunk: the symbol counted for nothing.
    body = "# Plans\nthe party is on friday\n# Done\nit went well🎉 in the end\n"
    cut = body.index("# Done")
    chunks = [ChunkScore("1", "Plans", 0, cut, 0.5), ChunkScore("2", "Done", cut, len(body), 0.45)]
    assert query_words(["🎉 party"]) == frozenset({"🎉", "party"})
    assert [s.path for s in rank_sections(chunks, body, query_words(["🎉"]))] == ["2", "1"]
