"""A note's sections ranked for a query: closeness by meaning, and where the query's words are."""

from __future__ import annotations

from noted.search.sections import WORDS_WEIGHT, ChunkScore, query_words, rank_sections

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
