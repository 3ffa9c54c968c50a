"""Hybrid search fuses the keyword and semantic arms, and every filter restricts both of them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from noted.embeddings.fake import FakeEmbedder
from noted.errors import InvalidInputError, QueryError
from noted.indexer.engine import Indexer
from noted.models import NoteDraft
from noted.search.finder import Finder
from noted.search.hybrid import SECOND_CHUNK_WEIGHT, _closeness, fuse, split_query, titled_first
from noted.search.keyword import KeywordSearch
from noted.search.query import parse_query
from noted.search.results import Arm, Mode, Results
from noted.search.semantic import SemanticSearch
from noted.settings import Settings
from noted.store.sqlite import SqliteStore


class Profile:
    """A store with an indexer and search over it (the one entry point, in hybrid mode), all
    using one fake model."""

    def __init__(self, store: SqliteStore, config: Path) -> None:
        self.store = store
        self.embedder = FakeEmbedder(dim=256)
        self.folder = store.create_folder("Main", actor="user").id
        self.semantic = SemanticSearch(store, store.db, self.embedder)
        self.settings = Settings(config, environ={})
        self.finder = Finder(store, KeywordSearch(store), lambda: self.semantic, self.settings)

    def search(self, query: str, mode: Mode = Mode.HYBRID, **kw: object) -> Results:
        return self.finder.search(query, mode=mode, **kw)  # type: ignore[arg-type]

    def add(self, title: str, body: str, *, tags: tuple[str, ...] = (), folder: str | None = None) -> str:
        draft = NoteDraft(title, body, parent_id=folder or self.folder, tags=tags)
        return self.store.create_note(draft, actor="user").id

    def index(self) -> None:
        indexer = Indexer(self.store, self.store.db, self.embedder)
        indexer.prepare()
        indexer.run_until_idle()

    def ids(self, query: str, mode: Mode = Mode.HYBRID, **kw: object) -> list[str]:
        return [h.note_id for h in self.search(query, mode, relevance="loose", **kw).hits]


@pytest.fixture
def profile(store: SqliteStore, tmp_path: Path) -> Iterator[Profile]:
    yield Profile(store, tmp_path / "config.toml")


# Fusion ----------------------------------------------------------------------------------------


def test_fuse_puts_a_note_both_arms_ranked_highly_first() -> None:
    keyword = [("kw-only", 12.0), ("both", 9.0), ("kw-2", 3.0)]
    semantic = [("both", 0.71), ("sem-only", 0.69), ("sem-2", 0.30)]
    fused = [n for n, _ in fuse(keyword, semantic)]
    assert fused[0] == "both"
    assert set(fused) == {"kw-only", "both", "kw-2", "sem-only", "sem-2"}
    # Within one arm the arm's own order is kept: fusion never swaps two notes one arm ranked.
    assert fused.index("kw-only") < fused.index("kw-2") and fused.index("sem-only") < fused.index("sem-2")


def test_fuse_weighs_scores_not_only_ranks() -> None:
    # 0.7 x semantic + 0.3 x keyword, each min-max normalised: the semantic arm's best (alone)
    # beats a note both arms placed halfway, which beats the keyword arm's best (alone). Rank
    # fusion (RRF) would put the halfway note first, so this pins the fusion the evaluation chose.
    keyword = [("k1", 10.0), ("both", 5.0), ("k3", 0.0)]
    semantic = [("s1", 0.8), ("both", 0.5), ("s3", 0.2)]
    fused = fuse(keyword, semantic)
    assert [n for n, _ in fused[:3]] == ["s1", "both", "k1"]
    assert dict(fused)["both"] == pytest.approx(0.5)
    assert dict(fused)["s1"] == pytest.approx(0.7) and dict(fused)["k1"] == pytest.approx(0.3)


def test_fuse_with_one_arm_empty_keeps_the_other_arms_order() -> None:
    semantic = [("a", 0.9), ("b", 0.5), ("c", 0.4)]
    assert [n for n, _ in fuse([], semantic)] == ["a", "b", "c"]
    assert [n for n, _ in fuse(semantic, [])] == ["a", "b", "c"]


# Query splitting -------------------------------------------------------------------------------


def test_a_note_titled_with_every_word_comes_before_those_that_are_not() -> None:
    """ "Big note" put "Big note 5000 lines" 26th: the semantic arm ranked empty "Filler note N"
    notes closest and the long note nowhere, and its keyword match had 0.3 of the score."""
    fused = [("filler", 0.7), ("other", 0.65), ("big", 0.3), ("cafe", 0.2)]
    titles = {
        "filler": "Filler note 23",
        "other": "Notes",
        "big": "Big note 5000 lines",
        "cafe": "Café big notes",
    }
    lifted = titled_first(fused, titles, "Big note")
    assert [n for n, _ in lifted] == ["big", "cafe", "filler", "other"]  # words as prefixes, as keyword
    assert [n for n, _ in titled_first(fused, titles, "cafe")] == ["cafe", "filler", "other", "big"]
    assert titled_first(fused, titles, "") == fused


def test_restriction_reparses_to_the_same_terms() -> None:
    query = parse_query(
        'budget "annual report*" tag:"home office" -tag:old notebook:Work -"first draft" '
        "title:plan -body:secret created:20240101 -updated:day-3 type:todo iscompleted:0 resource:image"
    )
    split = split_query(query)
    restricting = [t for t in query.terms if t not in query.text_terms or t.negated or t.field.value != "all"]
    assert parse_query(split.restriction).terms == tuple(restricting)
    assert split.text == "budget annual report"
    assert parse_query(split.ranking).any and [t.text for t in parse_query(split.ranking).text_terms] == [
        "budget",
        "annual report",
    ]


def test_under_any_only_notebooks_restrict() -> None:
    split = split_query(parse_query("any:1 apples tag:work notebook:Home"))
    assert split.restriction == "notebook:Home"
    assert split.text == "apples"
    # The tag is one more way to match, so the keyword arm still runs it.
    assert parse_query(split.ranking) == parse_query("any:1 apples tag:work notebook:Home")


# Searching -------------------------------------------------------------------------------------


def test_a_question_whose_words_are_not_all_in_a_note_still_finds_it(profile: Profile) -> None:
    target = profile.add("Sourdough", "feed the starter flour and water every morning")
    profile.add("Garden", "water the tomatoes every evening")
    profile.index()
    query = "how often should I feed my sourdough starter"
    assert KeywordSearch(profile.store).search(query).total == 0  # AND of every word: nothing
    hits = profile.search(query, relevance="loose").hits
    assert hits[0].note_id == target
    assert Arm.SEMANTIC in hits[0].arms


def test_a_prefix_match_only_keyword_search_sees_is_kept(profile: Profile) -> None:
    # The fake model sees "gardening" and "garden" as unrelated words; keyword search matches
    # prefixes, so only the keyword arm can find this note.
    note = profile.add("Spring", "gardening tips for the allotment")
    profile.index()
    hits = profile.search("garden", relevance="strict").hits
    assert [(h.note_id, h.arms) for h in hits] == [(note, (Arm.KEYWORD,))]
    assert hits[0].semantic_score is None and hits[0].keyword_score is not None


def test_a_note_both_arms_find_says_so(profile: Profile) -> None:
    note = profile.add("Volcanoes", "lava flows from the volcano crater")
    profile.index()
    hit = profile.search("volcano crater lava", relevance="loose").hits[0]
    assert hit.note_id == note and hit.arms == (Arm.KEYWORD, Arm.SEMANTIC)
    assert hit.semantic_score is not None and hit.semantic_score > 0.5


# A filter means the same by meaning as in hybrid search (it was embedded as words, and ignored).
BOTH = pytest.mark.parametrize("mode", [Mode.HYBRID, Mode.SEMANTIC])


@BOTH
def test_a_tag_filter_restricts_the_semantic_arm(profile: Profile, mode: Mode) -> None:
    inside = profile.add("Budget", "the quarterly budget review meeting notes", tags=("work",))
    # The same words exactly: the closest note of all by meaning, but outside the filter.
    outside = profile.add("Budget copy", "quarterly budget review", tags=("home",))
    profile.index()
    assert outside in profile.ids("quarterly budget review", mode)  # so the filter below can fail
    assert profile.ids("tag:work quarterly budget review", mode) == [inside]
    assert profile.ids("-tag:work quarterly budget review", mode) == [outside]


@BOTH
def test_a_negated_word_excludes_notes_from_both_arms(profile: Profile, mode: Mode) -> None:
    kept = profile.add("Final", "budget for the trip to Lisbon")
    dropped = profile.add("Draft", "budget for the trip to Lisbon draft")
    profile.index()
    assert set(profile.ids("budget trip Lisbon", mode)) == {kept, dropped}
    assert profile.ids("budget trip Lisbon -draft", mode) == [kept]


@BOTH
def test_a_notebook_filter_and_the_callers_scope_restrict(profile: Profile, mode: Mode) -> None:
    other = profile.store.create_folder("Other", actor="user").id
    here = profile.add("Rivers", "the longest rivers of Europe")
    there = profile.add("Rivers too", "the longest rivers of Europe", folder=other)
    profile.index()
    assert profile.ids("notebook:Other longest rivers Europe", mode) == [there]
    assert profile.ids("longest rivers Europe", mode, note_ids=[here]) == [here]
    assert profile.ids("notebook:Other longest rivers Europe", mode, note_ids=[here]) == []


def test_by_meaning_a_query_is_read_as_in_the_other_modes(profile: Profile) -> None:
    profile.add("Rivers", "the longest rivers of Europe", tags=("geo",))
    profile.index()
    with pytest.raises(InvalidInputError, match="needs words, not only filters"):
        profile.search("tag:geo", Mode.SEMANTIC)
    for query, error in [("tags:geo rivers", "did you mean tag:"), ("created:someday rivers", "bad date")]:
        for mode in (Mode.KEYWORD, Mode.HYBRID, Mode.SEMANTIC):
            with pytest.raises(QueryError, match=error):
                profile.search(query, mode)


def test_a_query_of_filters_only_lists_the_keyword_results(profile: Profile) -> None:
    first = profile.add("One", "alpha", tags=("work",))
    second = profile.add("Two", "beta", tags=("work",))
    profile.add("Three", "gamma")
    profile.index()
    hits = profile.search("tag:work").hits
    assert {h.note_id for h in hits} == {first, second}
    assert all(h.arms == (Arm.KEYWORD,) for h in hits)


def test_the_hit_names_the_section_of_its_closest_chunk(profile: Profile) -> None:
    body = "intro about nothing\n# Animals\n## Birds\nthe puffin nests on cliffs\n## Fish\ncod and haddock\n"
    note = profile.add("Zoo", body)
    profile.index()
    hit = profile.search("puffin nests cliffs", relevance="loose").hits[0]
    assert hit.section is not None
    assert (hit.note_id, hit.section.path, hit.section.heading) == (note, "1.1", "Birds")
    assert "puffin" in hit.snippet


def test_without_an_index_it_is_keyword_search_and_says_why(profile: Profile) -> None:
    note = profile.add("Sourdough", "intro\n# Care\nfeed the starter daily\n")
    profile.add("Garden", "water the roses")
    results = profile.search("starter")
    assert [h.note_id for h in results.hits] == [note]
    assert results.reading.keyword_only is not None and "not been built" in results.reading.keyword_only
    # As hybrid ranks: a question's words need not all be in the note, a misspelt one is mended,
    # and the hit says where it matched.
    (hit,) = profile.search("how often should I feed my startr?").hits
    assert hit.section is not None
    assert (hit.note_id, hit.arms, hit.section.heading) == (note, (Arm.KEYWORD,), "Care")
    assert "feed the starter" in hit.snippet
    assert profile.search("feed roses -starter").hits[0].title == "Garden"


def test_limit_and_bad_input(profile: Profile) -> None:
    for i in range(5):
        profile.add(f"Note {i}", f"apples and pears {i}")
    profile.index()
    assert len(profile.search("apples pears", limit=2, relevance="loose").hits) == 2
    with pytest.raises(QueryError):
        profile.search("   ")
    with pytest.raises(QueryError):
        profile.search("apples", limit=0)
    with pytest.raises(InvalidInputError):
        profile.search("apples", relevance="fuzzy")


def test_under_any_a_filter_is_one_more_way_to_match(profile: Profile) -> None:
    fruit = profile.add("Fruit", "apples from the orchard")
    tagged = profile.add("Timesheet", "hours for March", tags=("work",))
    profile.add("Other", "nothing to see")
    profile.index()
    assert profile.ids("apples tag:work") == []  # both must hold: no note has both
    assert set(profile.ids("any:1 apples tag:work")) == {fruit, tagged}


def test_a_misspelt_word_finds_the_note_through_its_correction(profile: Profile) -> None:
    target = profile.add("Branches", "rebase a branch onto another; rebase rewrites history")
    profile.add("Rebase notes", "why rebase at all")
    profile.add("Garden", "water the tomatoes every evening")
    profile.index()
    # No note holds "rebse" and the fake model sees it as a word of its own: without the
    # correction neither arm could find anything (checked first, so the test is not vacuous).
    assert KeywordSearch(profile.store).search("any:1 rebse").total == 0
    hits = profile.search("rebse branch", relevance="loose").hits
    assert hits[0].note_id == target
    assert Arm.KEYWORD in hits[0].arms and Arm.SEMANTIC in hits[0].arms


def test_a_query_in_spanish_finds_the_english_note_and_says_what_was_searched(profile: Profile) -> None:
    target = profile.add("Restoring", "restore the database from a backup")
    profile.add("Garden", "water the tomatoes every evening")
    profile.add("Copies", "copy files between machines")
    profile.index()
    # No note holds the Spanish words, so without the glossary only the fake model's guesses
    # and the spelling correction could find anything (checked, so the test is not vacuous).
    assert KeywordSearch(profile.store).search("any:1 restaurar copia seguridad").total == 0
    found = profile.search("restaurar una copia de seguridad", relevance="loose")
    assert found.hits[0].note_id == target
    assert Arm.KEYWORD in found.hits[0].arms and Arm.SEMANTIC in found.hits[0].arms
    assert found.reading.translation is not None and found.reading.translation.text == "restore backup"
    assert profile.search("restore backup", relevance="loose").reading.translation is None


def test_a_translated_query_keeps_its_filters(profile: Profile) -> None:
    tagged = profile.add("Restoring", "restore the database from a backup", tags=("ops",))
    profile.add("Restoring too", "restore the database from a backup")
    profile.index()
    assert profile.ids("restaurar una copia de seguridad tag:ops") == [tagged]


def test_a_second_close_passage_counts_in_the_semantic_arm(profile: Profile) -> None:
    twice = profile.add("Soups", "# Monday\n\ntomato soup with basil\n\n# Friday\n\ntomato soup with basil")
    once = profile.add("Week", "# Monday\n\ntomato soup with basil\n\n# Friday\n\nfix the bicycle chain")
    profile.index()
    hits = {h.note_id: h for h in profile.semantic.search("tomato soup with basil", relevance="loose")}
    # The same passage twice: the second chunk is close too (not as close: the first has the title).
    assert 0.5 < hits[twice].second_score <= hits[twice].score
    assert hits[once].second_score < hits[twice].second_score
    assert _closeness(hits[twice]) > _closeness(hits[once])
    assert _closeness(hits[once]) == pytest.approx(
        hits[once].score + SECOND_CHUNK_WEIGHT * hits[once].second_score
    )


def test_a_query_in_the_notes_own_language_is_searched_as_typed(profile: Profile) -> None:
    spanish = profile.add("Copias", "cómo restaurar una copia de seguridad de la base")
    profile.add("Otra", "restaurar una copia de seguridad del teléfono")
    profile.add("Garden", "water the tomatoes every evening")
    profile.index()
    found = profile.search("restaurar una copia de seguridad de la base", relevance="loose")
    assert found.reading.translation is None  # the notes hold these words: they are not foreign here
    assert found.hits[0].note_id == spanish


def test_a_translation_is_searched_beside_the_query_as_typed_never_instead(profile: Profile) -> None:
    # One note holds the Spanish words (too few notes for them to be the notes' own language),
    # another the English. The query is taken for Spanish and searched both ways: the Spanish note
    # is found by meaning too, which only the typed words' vector can do (before, the semantic
    # arm embedded the English alone and found it by its words only).
    spanish = profile.add("Copia", "cómo restaurar una copia de seguridad del teléfono")
    english = profile.add("Restoring", "restore the database from a backup")
    profile.add("Garden", "water the tomatoes every evening")
    profile.index()
    found = profile.search("restaurar una copia de seguridad", relevance="loose")
    assert found.reading.translation is not None and found.reading.translation.text == "restore backup"
    by_id = {h.note_id: h for h in found.hits}
    assert {spanish, english} <= set(by_id)
    assert Arm.SEMANTIC in by_id[spanish].arms and Arm.SEMANTIC in by_id[english].arms
    assert "searched as typed and in English" in found.reading.line()


def test_the_translate_setting_off_searches_only_as_typed(profile: Profile) -> None:
    profile.add("Restoring", "restore the database from a backup")
    profile.index()
    profile.settings.set("search.translate", "off")
    found = profile.search("restaurar una copia de seguridad", relevance="loose")
    assert found.reading.translation is None and found.reading.line() == ""
    assert profile.search("restaurar una copia de seguridad", translate=True).reading.translation is not None


def test_a_hit_offers_up_to_three_sections_best_first(profile: Profile) -> None:
    body = (
        "intro about the farm\n# Birds\nthe puffin nests on cliffs\n# Fish\ncod and haddock\n"
        "# Puffins again\npuffin chicks leave the cliffs\n# Mammals\nseals on the rocks\n# Trees\nbirch\n"
    )
    note = profile.add("Zoo", body)
    profile.index()
    hit = profile.search("puffin nests cliffs", relevance="loose").hits[0]
    assert hit.note_id == note and len(hit.sections) == 3
    assert [s.heading for s in hit.sections[:2]] == ["Birds", "Puffins again"]
    assert hit.section == hit.sections[0] and "puffin nests" in hit.snippet


# Limits before the model (issue 34) -------------------------------------------------------------


class _CountingEmbedder(FakeEmbedder):
    """A fake model that counts how often it was loaded (asked its width) or run."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.loads = 0

    @property
    def dim(self) -> int:
        self.loads += 1
        return super().dim


def test_a_search_on_an_index_never_built_never_loads_the_model(store: SqliteStore, tmp_path: Path) -> None:
    # Before: building SemanticSearch asked the model its width, which loaded it and, the first
    # time, made its int8 copy (5-46 s), only to find that no index was there.
    profile = Profile(store, tmp_path / "config.toml")
    embedder = _CountingEmbedder()
    profile.semantic = SemanticSearch(store, store.db, embedder)
    profile.add("Roses", "prune the roses")
    results = profile.search("prune roses")
    assert [h.title for h in results.hits] == ["Roses"] and "not been built" in (
        results.reading.keyword_only or ""
    )
    assert embedder.loads == 0


def test_the_term_limit_is_the_query_as_typed_and_comes_before_the_model(profile: Profile) -> None:
    # Before: 100 words passed the parse, then the keyword arm's own query (any:1 and the words)
    # was refused as "101 terms", after the semantic arm had loaded the model.
    profile.add("Roses", "prune the roses in spring")
    profile.index()
    words = " ".join(["roses", *(f"w{i}" for i in range(99))])
    assert profile.ids(words)  # 100 words: searched
    loads: list[int] = []
    real = profile.semantic.query_vectors

    def vectors(*args: object, **kwargs: object) -> object:
        loads.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    profile.semantic.query_vectors = vectors  # type: ignore[method-assign, assignment]
    with pytest.raises(QueryError, match="too many terms"):
        profile.search(words + " w100")
    assert loads == []
