"""Hybrid search while the index is still being built, or behind an edit: a note the index has not
read yet is ranked by its words, not sunk for having no vectors.

On a 10,000-note profile with part of it indexed, "pleashclaix straitcree" put the only note
holding both words 23rd (0.3: the keyword arm's share) under notes found by meaning alone.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.unit.test_hybrid import Profile

from noted.indexer.coverage import index_coverage
from noted.indexer.engine import Indexer
from noted.models import NoteDraft, NotePatch
from noted.search.hybrid import fuse
from noted.search.results import Arm
from noted.store.sqlite import SqliteStore

FILLERS = 12
LAST_ID = "f" * 32
"""The scan goes in id order, so a note with this id is the one a part-way scan has not reached."""


@pytest.fixture
def profile(store: SqliteStore, tmp_path: Path) -> Iterator[Profile]:
    yield Profile(store, tmp_path / "config.toml")


def _add(profile: Profile, note_id: str, title: str, body: str) -> str:
    draft = NoteDraft(title, body, parent_id=profile.folder, id=note_id)
    return profile.store.create_note(draft, actor="user").id


def _fillers(profile: Profile) -> None:
    """Notes holding one of the query's words each, close to it by meaning (the fake model)."""
    for i in range(FILLERS):
        word = "pleashclaix" if i % 2 else "straitcree"
        _add(profile, f"{i:032x}", f"Filler {i}", word)


def _indexer(profile: Profile, batch: int = 32) -> Indexer:
    indexer = Indexer(profile.store, profile.store.db, profile.embedder, batch_notes=batch)
    indexer.prepare()
    return indexer


def test_a_note_the_scan_has_not_reached_is_ranked_by_its_words(profile: Profile) -> None:
    _fillers(profile)
    target = _add(profile, LAST_ID, "Both", "pleashclaix and straitcree together")
    _indexer(profile, batch=FILLERS).step()  # the first scan, stopped before the last note
    coverage = index_coverage(profile.store, profile.store.db)
    assert (coverage.notes_indexed, coverage.notes_total, coverage.complete) == (FILLERS, FILLERS + 1, False)
    results = profile.search("pleashclaix straitcree", relevance="loose")
    by_meaning = [h for h in results.hits if Arm.SEMANTIC in h.arms]
    # Not vacuous: the fillers are found by both arms (so they outrank a lone keyword hit at 0.3)…
    assert len(by_meaning) == FILLERS and all(Arm.KEYWORD in h.arms for h in by_meaning)
    # …and the one note holding both words, with no vectors yet, is the keyword arm's best.
    assert results.hits[0].note_id == target and results.hits[0].arms == (Arm.KEYWORD,)
    assert results.hits[0].score == pytest.approx(1.0)
    assert any("the index covers 12 of 13 notes" in line for line in results.lines())


def test_a_note_edited_since_it_was_indexed_is_ranked_by_its_new_words(profile: Profile) -> None:
    _fillers(profile)
    target = _add(profile, LAST_ID, "Later", "nothing about it yet")
    _indexer(profile).run_until_idle()
    note = profile.store.get_note(target)
    patch = NotePatch(body="pleashclaix and straitcree now")
    profile.store.update_note(target, patch, base_updated_time=note.updated_time, actor="user")
    # Its vectors are of the old text, far from the query: by meaning it is not found at all.
    hits = profile.search("pleashclaix straitcree", relevance="loose").hits
    assert hits[0].note_id == target and hits[0].arms == (Arm.KEYWORD,)
    assert [h.note_id for h in hits[1:]] == [h.note_id for h in hits[1:] if Arm.SEMANTIC in h.arms]


def test_fuse_scores_an_unread_note_by_its_keyword_score_at_least() -> None:
    keyword = [("new", 10.0), ("old", 6.0), ("kw-2", 2.0)]
    semantic = [("sem", 0.8), ("old", 0.7), ("kw-2", 0.2)]
    before = dict(fuse(keyword, semantic))
    after = dict(fuse(keyword, semantic, unread={"new", "old", "sem"}))
    assert before["new"] == pytest.approx(0.3) and after["new"] == pytest.approx(1.0)  # no vectors yet
    # An unread note its older text placed closer keeps that; one no keyword hit is untouched.
    assert after["old"] == pytest.approx(before["old"]) and after["sem"] == before["sem"]
    assert after["kw-2"] == before["kw-2"]  # read: as before


# With a complete index the ranking is the one noted gave before it knew unread notes -----------

WORDS = "apple river stone cloud paper garden window silver market engine violin harbor".split()
QUERIES = ("apple river", "stone cloud paper", "violin", "garden window harbor", "silver engine market")

COMPLETE_RANKING = {
    "apple river": [
        (11, 0.7988),
        (25, 0.7894),
        (30, 0.7769),
        (1, 0.3),
        (12, 0.2965),
        (34, 0.2956),
        (33, 0.2739),
        (4, 0.2739),
        (14, 0.2269),
        (13, 0.1668),
        (15, 0.1668),
        (8, 0.1473),
        (31, 0.1473),
        (0, 0.1391),
        (7, 0.1391),
    ],
    "garden window harbor": [
        (36, 1.0),
        (5, 0.814),
        (35, 0.6882),
        (7, 0.682),
        (23, 0.6243),
        (24, 0.622),
        (30, 0.6209),
        (39, 0.5042),
        (15, 0.4911),
        (25, 0.4846),
        (33, 0.4581),
        (18, 0.4308),
        (1, 0.4283),
        (38, 0.3711),
        (12, 0.3706),
    ],
    "silver engine market": [
        (13, 0.9794),
        (8, 0.9614),
        (19, 0.8726),
        (22, 0.8392),
        (11, 0.7993),
        (26, 0.7585),
        (4, 0.6497),
        (32, 0.6058),
        (17, 0.593),
        (31, 0.4326),
        (29, 0.3939),
        (33, 0.3428),
        (21, 0.3391),
        (3, 0.3252),
        (20, 0.278),
    ],
    "stone cloud paper": [
        (20, 1.0),
        (37, 0.8131),
        (9, 0.6754),
        (14, 0.5921),
        (12, 0.5385),
        (16, 0.4658),
        (18, 0.456),
        (0, 0.4442),
        (4, 0.4281),
        (2, 0.4143),
        (38, 0.3737),
        (10, 0.3512),
        (8, 0.3506),
        (22, 0.286),
        (21, 0.2637),
    ],
    "violin": [
        (10, 1.4773),
        (28, 1.276),
        (37, 0.8899),
        (39, 0.7862),
        (6, 0.463),
        (34, 0.4278),
        (32, 0.3565),
        (0, 0.2636),
        (31, 0.1648),
        (36, 0.1173),
        (7, 0.0853),
        (30, 0.0731),
        (26, 0.0534),
        (16, 0.0283),
        (2, 0.0136),
    ],
}
"""The ids (by their number) and scores of each query, from this profile on main before the change."""


def _random_notes(profile: Profile) -> None:
    rng = random.Random(7)
    for i in range(40):
        words = rng.choices(WORDS, k=rng.randint(3, 12))
        _add(profile, f"{i:032x}", " ".join(words[:2]).title(), " ".join(words[2:]))


def _ranking(profile: Profile) -> dict[str, list[tuple[int, float]]]:
    return {
        q: [
            (int(h.note_id, 16), round(h.score, 4))
            for h in profile.search(q, relevance="loose", limit=15).hits
        ]
        for q in QUERIES
    }


def test_with_a_complete_index_the_ranking_is_unchanged(profile: Profile) -> None:
    _random_notes(profile)
    _indexer(profile).run_until_idle()
    assert index_coverage(profile.store, profile.store.db).complete
    assert _ranking(profile) == COMPLETE_RANKING
