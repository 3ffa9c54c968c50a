"""Hybrid search: the keyword and semantic arms fused into one ranking, one result per note.

The query is written in the keyword grammar (``noted.search.query``). Its words are the *text*:
they rank, in both arms, and need not all be present. Everything else is a *restriction* that the
whole result obeys: filters (``tag:``, ``notebook:``, ``created:``…), negated terms (``-draft``) and
field terms (``title:budget``). Restrictions are run as a keyword query of their own to get the
notes allowed, and the semantic arm searches only those, so a filter means exactly what it means
in keyword mode and no note outside it is ever returned, however close in meaning. Under
``any:1`` only ``notebook:`` filters restrict, as in keyword mode.

The keyword arm ORs the words (as ``any:1`` would), since a question rarely has all its words in
the note that answers it, and BM25 still ranks the notes with more of them first. The fusion, a
weighted sum of min-max normalised scores, was chosen on the evaluation in
``tests/bench/eval_search.py`` (Git's manual pages and guides, 52 labelled queries,
all-MiniLM-L6-v2); see ``fuse`` for the figures.
In the semantic arm a note is as close as its best chunk plus a fifth of its second best
(``SECOND_CHUNK_WEIGHT``): two close passages say more than one; and a share of its outline's
cosine (``OUTLINE_WEIGHT``): a question may be about the note as a whole.
The words are read by ``noted.search.reading``: a word that no note contains is taken for a
misspelling and both arms also search its closest indexed word (``noted.search.fuzzy``), which
lifted the misspelt queries of the evaluation from nDCG@10 0.62 to 0.86 (held-out half); a query
in Spanish, German or French is searched as typed *and* in English. ``Results.reading`` says how.
When the semantic index cannot be used (not built yet, another model, no sqlite-vec), the result
is the keyword arm alone (words OR'ed, corrected and translated as above) and
``Reading.keyword_only`` says why. While the index is partial, a note it has not read yet is ranked
by its words as that would (``fuse``), beside the notes it has read.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from noted.errors import QueryError, UnavailableError
from noted.search.hits import fused_hit, keyword_hit
from noted.search.keyword import MAX_LIMIT, KeywordHit, KeywordSearch
from noted.search.query import (
    MAX_TERMS,
    DateFilter,
    Filter,
    FilterKind,
    Query,
    Term,
    TextField,
    TextTerm,
    parse_query,
)
from noted.search.reading import read_words
from noted.search.results import Hit, Mode, Reading, Results
from noted.search.sections import query_words
from noted.search.semantic import Relevance, SemanticHit, SemanticSearch, relevance_of
from noted.search.snippet import fold

DEPTH = 100
"""Notes taken from each arm before fusing: far past a page, so the fused order is stable."""


@dataclass(frozen=True, slots=True)
class SplitQuery:
    """A parsed query cut in two: the text that ranks and the query that restricts."""

    text: str
    """The words and phrases to rank by, as plain text ("" for a query of filters only)."""
    ranking: str
    """The keyword arm's query: the text's words OR'ed (under ``any:1``, every term OR'ed, as
    typed); "" when there is no text."""
    restriction: str
    """A keyword query holding only the restricting terms, "" when nothing restricts."""


def split_query(query: Query) -> SplitQuery:
    """Separate the words that rank from the terms that restrict (see the module's docstring)."""
    ranking_terms = [t for t in query.text_terms if _ranks(t)]
    if query.any:
        restricting: list[Term] = [
            t for t in query.terms if isinstance(t, Filter) and t.kind is FilterKind.NOTEBOOK
        ]
    else:
        restricting = [t for t in query.terms if not (isinstance(t, TextTerm) and _ranks(t))]
    text = " ".join(t.text.replace("*", " ") for t in ranking_terms)
    # Under any:1 every term is one more way to match, so the keyword arm runs them all.
    ranked_by = query.terms if query.any else ranking_terms
    ranking = " ".join(["any:1", *(_source(t) for t in ranked_by)]) if ranking_terms else ""
    return SplitQuery(" ".join(text.split()), ranking, " ".join(_source(t) for t in restricting))


def _ranks(term: TextTerm) -> bool:
    return not term.negated and term.field is TextField.ALL


def _quoted(value: str) -> str:
    """``value`` as the parser reads it back: bare when it has no space, else in double quotes."""
    return f'"{value}"' if any(c.isspace() for c in value) or not value else value


def _source(term: Term) -> str:
    """The term written back in the grammar, so that parsing it again gives the same term."""
    neg = "-" if term.negated else ""
    if isinstance(term, Filter):
        return f"{neg}{term.kind.value}:{_quoted(term.value)}"
    if isinstance(term, DateFilter):
        return f"{neg}{term.field.value}:{_quoted(term.value)}"
    field = "" if term.field is TextField.ALL else f"{term.field.value}:"
    if term.phrase:
        return f'{neg}{field}"{term.text}{"*" if term.prefix else ""}"'
    return f"{neg}{field}{term.text}"


# Fusion --------------------------------------------------------------------------------------

SEMANTIC_WEIGHT = 0.7
"""The semantic arm's share of the fused score; the keyword arm has the rest.

Chosen with ``OUTLINE_WEIGHT`` on the evaluation's tune half (``tests/bench/fusion_probe.py``,
"outline x weight"): outline weights 0.1-0.2 with semantic weights 0.6-0.8 formed a plateau of
nDCG@10 0.743-0.750 (0.731 without the outline at 0.6, as shipped before); its centre, 0.15 and
0.7 (0.749), is where no category of the tune half fell by more than 0.01. As built
(``eval_suite.py``): tune 0.731 -> 0.749; held out 0.815 -> 0.835, paraphrases 0.680 -> 0.741
(paired bootstrap 95 % interval of the gain +0.006..+0.136), deep-section questions 0.934 -> 0.915.

Those figures are the packaged model's, which the suite ran until it was made to run what noted
runs, the dynamic-int8 copy (``--model minilm-l6-int8`` gives them again). With the pooled
sections judged, an outline weight of 0.1 names the answering section first for 23 of the 27
deep-section questions against 21 at 0.15 on the packaged model (``eval_suite.py --model
minilm-l6-int8 --weights 0.1,0.7``): a short page that answers in outline no longer outranks the
long page holding the answer's section. It does not ship. On ``eval_search.py``'s 52 Git
queries (half of them in each of the suite's halves), searched with the copy and scored with the
suite's judgments, 0.1 gives nDCG@10 0.729 against 0.743 at 0.15 (paired bootstrap 95 % interval
of the loss -0.030..-0.001; paraphrases 0.579 against 0.604), and 0.730 without the outline
vector: at 0.1 the outline vector is worth nothing on the model noted runs. On the whole suite
with the copy, 0.15 and 0.7 give held out 0.823 -> 0.843 (0.819 before issue 36's round),
paraphrases +0.037 (-0.018..+0.111), the answering section first for 22 of 27 (20 before).

Nor does the semantic arm's floor move it. On the copy's tune half, hybrid with the floor of
``loose`` (0.25) in place of ``normal``'s 0.35 raised paraphrases from 0.585 to 0.656, and a grid
of floor (0.25-0.35) x outline (0.1-0.2) x semantic weight (0.6-0.75) picked 0.25, 0.1 and 0.6
(tune 0.763 against 0.751, no category down by more than 0.01); held out it scored 0.820 against
0.843, paraphrases 0.675 against 0.732.
"""
SECOND_CHUNK_WEIGHT = 0.2
"""How much a note's second-closest chunk adds to its closeness in the semantic arm.

A note with two passages close to the question is more likely about it than a note with one. On
the evaluation's tune half (``tests/bench/fusion_probe.py``, "second chunk") the weights 0.1-0.5
scored 0.720-0.730 against 0.725 without; 0.2, the best there, scored 0.794 against 0.764 on the
held-out half (paired bootstrap 95 % interval of the gain +0.009..+0.054). The tune half alone
hardly tells them apart; see ``tests/bench/README.md`` for why it ships.
"""


OUTLINE_WEIGHT = 0.15
"""How much a note's outline vector (title, headings, opening: ``chunking.outline_chunk``) adds to
its closeness in the semantic arm: a question phrased unlike any one passage is often close to
what the note is about as a whole. See ``SEMANTIC_WEIGHT`` for how it was chosen; alone (0.1, the
fusion at 0.6) it raised held-out paraphrases 0.680 -> 0.710."""


def _closeness(hit: SemanticHit, outline: float = 0.0) -> float:
    """A note's closeness in the semantic arm: its best chunk's cosine, a share of its second's,
    and a share of its outline's (0 for every note while one found has none indexed yet, as while
    the rescan of an index made before outlines reaches its notes one batch at a time)."""
    return hit.score + SECOND_CHUNK_WEIGHT * hit.second_score + OUTLINE_WEIGHT * outline


def _minmax(run: Sequence[tuple[str, float]]) -> dict[str, float]:
    """Scores mapped onto 0..1 within their run; a run whose scores are all equal maps to 1."""
    if not run:
        return {}
    low, high = min(s for _, s in run), max(s for _, s in run)
    return {n: (s - low) / (high - low) if high > low else 1.0 for n, s in run}


def fuse(
    keyword: Sequence[tuple[str, float]],
    semantic: Sequence[tuple[str, float]],
    *,
    semantic_weight: float = SEMANTIC_WEIGHT,
    unread: Collection[str] = frozenset(),
) -> list[tuple[str, float]]:
    """Fuse the arms' runs of ``(note_id, score)`` into one, best first (ties by note id).

    A convex combination of min-max normalised scores: each arm's scores are mapped onto 0..1
    within the run (BM25 and cosine live on unrelated scales), a note an arm did not return gets
    0 from it, and the fused score is ``0.7 · semantic + 0.3 · keyword`` (0.6 and 0.4 before the
    outline vector came in: see ``SEMANTIC_WEIGHT``). On the evaluation
    (``tests/bench/eval_search.py``: 245 Git pages, 52 queries, all-MiniLM-L6-v2, keyword words
    OR'ed) this scored nDCG@10 0.704 against 0.627 for semantic search alone (the better arm;
    paired bootstrap 95% interval of the gain +0.02..+0.13) and 0.675 for reciprocal rank fusion
    (k=60), which ignores how far apart the scores are. Weights from 0.5 to 0.7 scored
    0.683-0.704; z-score normalisation tied, but gives a lone hit no weight at all. On the larger
    evaluation (``tests/bench/eval_suite.py``: Git's docs and PostgreSQL's manual, 172 queries in
    six categories, weights chosen on the tune half by ``eval_fusion.py``) this same fusion was
    again the best of the convex, max-normalised and RRF families.

    A note in ``unread`` (the index has not read it as it is now: no vectors yet, or of an older
    text) scores at least its normalised keyword score. Its semantic score is then taken to be its
    keyword one, the arms agreeing, rather than the 0 of a note found far in meaning: at most 0.3,
    the only note holding both words of a query ranked 23rd on a half-indexed profile, under
    notes found by meaning alone. Unread notes thus rank among themselves as hybrid search ranks
    with no index at all (``Reading.keyword_only``), read notes as before, and a partial index
    goes from the one to the other; no weight is new, and a complete index has no unread notes.
    """
    kw, sem = _minmax(keyword), _minmax(semantic)
    fused = {n: semantic_weight * sem.get(n, 0.0) + (1 - semantic_weight) * kw.get(n, 0.0) for n in kw | sem}
    for n in kw.keys() & set(unread):
        fused[n] = max(fused[n], kw[n])
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


TITLE_WEIGHT = 0.5
"""Added to the fused score of a note whose title holds every word of the query.

A long note titled with the very words sought lost to short notes sharing one of them: "Big note"
put "Big note 5000 lines" 26th, under 25 empty "Filler note N" notes. The semantic arm ranks the
short notes closest (a title alone is near a short query) and the long note's chunks nowhere;
the keyword arm's one distinctive match has 0.3 of the fused score. With this lift a note titled
with every word comes before one that is not, and the arms order each group. On the evaluation
(``eval_suite.py``, tune and test halves) it changed the hybrid ranking of 8 of 172 queries, all
keyword ones, and no nDCG@10 figure by 0.001 in any category."""

_TITLE_WORD = re.compile(r"\w+")


def titled_first(
    fused: list[tuple[str, float]], titles: Mapping[str, str], text: str
) -> list[tuple[str, float]]:
    """``fused`` with ``TITLE_WEIGHT`` added to the notes whose title holds every word of ``text``
    (each as the start of a title word, as keyword search matches words), best first again."""
    words = _TITLE_WORD.findall(fold(text))
    if not words:
        return fused

    def holds(title: str) -> bool:
        have = _TITLE_WORD.findall(fold(title))
        return all(any(h.startswith(w) for h in have) for w in words)

    lifted = [(n, s + TITLE_WEIGHT if holds(titles.get(n, "")) else s) for n, s in fused]
    return sorted(lifted, key=lambda item: (-item[1], item[0]))


# The search ----------------------------------------------------------------------------------


class HybridSearch:
    """Keyword and semantic search over one profile, fused."""

    def __init__(self, keyword: KeywordSearch, semantic: Callable[[], SemanticSearch]) -> None:
        """``semantic`` builds (or returns) the search by meaning; it is called only once the
        keyword arm has run, so a query it refuses never loads the model."""
        self.keyword = keyword
        self._semantic = semantic

    def search(
        self,
        query: str,
        *,
        limit: int = 20,
        note_ids: Iterable[str] | None = None,
        relevance: Relevance | str = Relevance.NORMAL,
        translate: bool = True,
        folder_ids: frozenset[str] | None = None,
    ) -> Results:
        """Notes matching ``query`` by its words, its meaning or both, best first.

        Args:
            query: Words and filters in the keyword grammar; filters restrict every result.
            limit: The most notes to return (1 to 1000).
            note_ids: When given, only these notes are searched (the caller's scope).
            relevance: The semantic arm's preset (strict, normal, loose).
            translate: Whether a query in Spanish, German or French is also searched in English.
            folder_ids: The caller's notebooks, when it is limited to some: its filters weigh
                only what it sees there (``resource:``, the attachments it sees).

        Raises:
            QueryError: The query does not parse, or the limit is out of range.
            InvalidInputError: ``relevance`` is not a preset.
        """
        if not 1 <= limit <= MAX_LIMIT:
            raise QueryError(f"bad page: limit must be 1 to {MAX_LIMIT}")
        relevance_of(relevance)
        parsed = self.keyword.parse(query)
        scope = None if note_ids is None else set(note_ids)
        split = split_query(parsed)
        if not split.text:
            hits = self._keyword_only(query, limit, scope, folder_ids)
            return Results(hits, Reading(Mode.HYBRID, str(relevance)), len(hits))
        allowed = allowed_notes(self.keyword, split.restriction, scope, folder_ids)
        words = read_words(split.text, self.keyword.within(scope), translate=translate)
        ranking = _joined(split.ranking, list(words.extra_words))
        # The keyword arm first: anything it refuses is refused before the model is loaded.
        keyword = self._keyword_arm(ranking, allowed)
        try:
            semantic = self._semantic()
            vectors = semantic.query_vectors(words.texts)
        except UnavailableError as exc:
            # The keyword arm alone, as hybrid runs it: a question's words need not all match.
            alone = self._located(split.ranking, keyword[:limit])
            hits = tuple(keyword_hit(h) for h in alone)
            return Results(hits, words.reading(Mode.HYBRID, str(relevance), keyword_only=str(exc)), len(hits))
        hits_by_meaning = semantic.search_vectors(vectors, relevance=relevance, limit=DEPTH, note_ids=allowed)
        by_sem = {h.note_id: h for h in hits_by_meaning}
        outlines = semantic.outlines(vectors, list(by_sem))
        if len(outlines) < len(by_sem):  # a rescan is filling them in: weigh none until it has all
            outlines = {}
        closeness = [(h.note_id, _closeness(h, outlines.get(h.note_id, 0.0))) for h in hits_by_meaning]
        # A note the index has not read yet is ranked by its words, not sunk for having no vectors.
        unread = semantic.unread([h.note_id for h in keyword])
        fused = fuse(
            [(h.note_id, h.score) for h in keyword], closeness, semantic_weight=SEMANTIC_WEIGHT, unread=unread
        )
        titles = {h.note_id: h.title for h in keyword} | {h.note_id: h.title for h in hits_by_meaning}
        fused = titled_first(fused, titles, split.text)[:limit]
        # Snippets only for the keyword-only hits that are shown: the semantic arm has its own.
        shown = {n for n, _ in fused if n not in by_sem}
        by_kw = {h.note_id: h for h in keyword}
        by_kw.update(
            (h.note_id, h) for h in self._located(split.ranking, [h for h in keyword if h.note_id in shown])
        )
        passages = semantic.passages(vectors, [n for n, _ in fused], query_words(words.texts))
        hits = tuple(fused_hit(n, s, by_kw.get(n), by_sem.get(n), passages.get(n)) for n, s in fused)
        return Results(hits, words.reading(Mode.HYBRID, str(relevance)), len(hits))

    def _located(self, ranking: str, hits: Sequence[KeywordHit]) -> list[KeywordHit]:
        """``hits`` with the snippet and section of where ``ranking``'s words occur in each."""
        located = self.keyword.locate(ranking, [h.note_id for h in hits])
        return [
            dataclasses.replace(
                h, snippet=where.snippet, section=where.section, section_heading=where.section_heading
            )
            if (where := located.get(h.note_id)) is not None
            else h
            for h in hits
        ]

    def _keyword_arm(self, ranking: str, allowed: set[str] | None) -> list[KeywordHit]:
        """The keyword arm's hits among the ``allowed`` notes, searched among them (not the best
        of all notes, filtered: notes outside would push the allowed ones off the page)."""
        return list(self.keyword.search(ranking, limit=DEPTH, note_ids=allowed, snippets=False).hits)

    def _keyword_only(
        self, query: str, limit: int, scope: set[str] | None, folder_ids: frozenset[str] | None
    ) -> tuple[Hit, ...]:
        found = self.keyword.search(query, limit=limit, note_ids=scope, folder_ids=folder_ids)
        return tuple(keyword_hit(h) for h in found.hits)


def allowed_notes(
    keyword: KeywordSearch, restriction: str, scope: set[str] | None, folder_ids: frozenset[str] | None = None
) -> set[str] | None:
    """The notes a query's restricting terms (``SplitQuery.restriction``) and the caller's scope
    allow; None when every note is. ``folder_ids``: the caller's notebooks, when it is limited to
    some (its filters weigh only what it sees there)."""
    if not restriction:
        return scope
    allowed: set[str] = set()
    offset = 0
    while True:
        page = keyword.search(
            restriction, limit=MAX_LIMIT, offset=offset, folder_ids=folder_ids, snippets=False
        )
        allowed.update(h.note_id for h in page.hits)
        offset += MAX_LIMIT
        if offset >= page.total or not page.hits:
            break
    return allowed if scope is None else allowed & scope


def _joined(ranking: str, words: list[str]) -> str:
    """``ranking`` with as many of ``words`` OR'ed in as keep it within the grammar's term limit:
    what noted adds (a translation, corrections) never makes a query typed within it too long."""
    room = MAX_TERMS - len(parse_query(ranking).terms)
    return " ".join([ranking, *words[: max(room, 0)]])
