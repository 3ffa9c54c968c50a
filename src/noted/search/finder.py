"""The one way into search: every front end (the search screen, ``noted search``, the search tools
and so MCP) calls ``Finder.search`` and only renders the ``Results`` it gets.

What they share is decided here once: the mode and relevance a query runs with when the caller
names none (``search.defaultMode``, ``search.relevance``), whether a query in another language is
also searched in English (``search.translate``; ``noted.search.reading``), the sections each hit
offers (``noted.search.hits``), the notebook each hit is in, how much of the notes the index
covers, and what a person is told about the results (``Results.lines``). The search runs over
whatever backend the keyword search was made for (``noted.search.joplin.keyword_search_for``):
nothing here knows which store it is.

Scope: ``folder_ids`` restricts to notes directly in those notebooks (the caller expands
sub-notebooks), ``note_ids`` to those notes; both apply inside the search, before ranking and
counting, so no note outside them is ever ranked or counted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from noted.errors import InvalidInputError, QueryError, UnavailableError
from noted.search.hits import keyword_hit, semantic_hit
from noted.search.keyword import MAX_LIMIT, KeywordSearch
from noted.search.reading import read_words
from noted.search.results import Hit, Mode, Reading, Results
from noted.search.sections import query_words
from noted.search.translate import to_english
from noted.settings.handles import SEARCH_DEFAULT_MODE, SEARCH_RELEVANCE, SEARCH_TRANSLATE

if TYPE_CHECKING:
    from noted.indexer.coverage import IndexCoverage
    from noted.search.semantic import Relevance, SemanticSearch
    from noted.settings import Settings
    from noted.store.protocol import Store


def _unavailable() -> SemanticSearch:
    raise UnavailableError(
        "semantic search is unavailable here (no index)", hint="keyword search still works"
    )


class Finder:
    """Search over one profile by keyword, by meaning or both, as every front end does it."""

    def __init__(
        self,
        store: Store,
        keyword: KeywordSearch,
        semantic: Callable[[], SemanticSearch] | None,
        settings: Settings,
    ) -> None:
        """``semantic`` builds (or returns) the search by meaning when first needed; it raises
        ``UnavailableError`` when it cannot run, and None means there is none here."""
        self.store = store
        self.keyword = keyword
        self.settings = settings
        self._semantic = semantic or _unavailable

    def search(
        self,
        query: str,
        *,
        mode: Mode | str | None = None,
        limit: int = 20,
        offset: int = 0,
        relevance: Relevance | str | None = None,
        translate: bool | None = None,
        folder_ids: frozenset[str] | None = None,
        note_ids: Collection[str] | None = None,
    ) -> Results:
        """Run ``query`` and return one page of results, best first.

        Args:
            query: Words, phrases and filters in Joplin's grammar; by meaning or both, the filters
                and exclusions restrict and the words rank.
            mode: keyword, semantic or hybrid; ``search.defaultMode`` when None.
            limit: The most hits to return (1 to 1000).
            offset: Hits to skip, for the next pages.
            relevance: How close by meaning (strict, normal, loose); ``search.relevance`` when None.
            translate: Also search a query in another language in English; ``search.translate``
                (auto) when None.
            folder_ids: Only notes directly in these notebooks.
            note_ids: Only these notes.

        Raises:
            QueryError: A malformed or too long query, or a bad page.
            InvalidInputError: A bad mode or relevance, or a search by meaning with no words.
            UnavailableError: By meaning, when the index cannot be used (hybrid then answers
                with the keyword arm and says why instead).
        """
        if not 1 <= limit <= MAX_LIMIT or offset < 0:
            raise QueryError(f"bad page: limit must be 1 to {MAX_LIMIT} and offset 0 or more")
        try:
            how = Mode(mode or self.settings.get(SEARCH_DEFAULT_MODE))
        except ValueError:
            raise QueryError(f'mode must be keyword, semantic or hybrid (got "{mode}")') from None
        if translate is None:
            translate = self.settings.get(SEARCH_TRANSLATE) != "off"
        if how is Mode.KEYWORD:
            return self._keyword(query, limit, offset, folder_ids, note_ids, translate)
        # Search by meaning, its model and numpy load here, not for a keyword search.
        from noted.search.hybrid import HybridSearch
        from noted.search.semantic import relevance_of

        if limit + offset > MAX_LIMIT:  # by meaning, every hit up to the page's end is ranked
            raise QueryError(f"bad page: by meaning or both, limit and offset add up to {MAX_LIMIT} at most")
        scope = self._scope(folder_ids, note_ids)
        close = relevance or self.settings.get(SEARCH_RELEVANCE)
        relevance_of(close)  # refused before any model work
        if how is Mode.SEMANTIC:
            found = self._by_meaning(query, limit + offset, close, scope, translate, folder_ids)
        else:
            found = HybridSearch(self.keyword, self._semantic).search(
                query,
                limit=limit + offset,
                note_ids=scope,
                relevance=close,
                translate=translate,
                folder_ids=folder_ids,
            )
        coverage = (
            None
            if found.reading.keyword_only or not _has_words(self.keyword, query)
            else self._coverage(scope)
        )
        hits = self._with_notebooks(found.hits)
        return Results(hits[offset:], found.reading, len(hits), offset, coverage=coverage)

    def _keyword(
        self,
        query: str,
        limit: int,
        offset: int,
        folder_ids: frozenset[str] | None,
        note_ids: Collection[str] | None,
        translate: bool,
    ) -> Results:
        """Joplin's grammar, every word required; a hint when nothing matched."""
        reading = Reading(Mode.KEYWORD)
        found = self.keyword.search(
            query, limit=limit, offset=offset, folder_ids=folder_ids, note_ids=note_ids
        )
        hits = found.hits
        results = Results(
            tuple(keyword_hit(h) for h in hits), reading, found.total, offset, suggestion=found.suggestion
        )
        if hits or offset:
            return results
        parsed = self.keyword.parse(query)
        several = not parsed.any and sum(not t.negated for t in parsed.text_terms) > 1
        results = dataclasses.replace(results, every_word=several)
        if not translate:
            return results
        # Keyword search takes the words as typed; the other modes also search their English.
        translation = to_english(query, self.keyword.within(self._scope(folder_ids, note_ids)))
        return dataclasses.replace(results, translation_hint=translation.text if translation else "")

    def _by_meaning(
        self,
        query: str,
        limit: int,
        relevance: Relevance | str,
        scope: list[str] | None,
        translate: bool,
        folder_ids: frozenset[str] | None,
    ) -> Results:
        """Its words by meaning, among the notes its filters and exclusions allow (as in hybrid)."""
        from noted.search.hybrid import allowed_notes, split_query

        split = split_query(self.keyword.parse(query))
        if not split.text:
            raise InvalidInputError(
                "a search by meaning needs words, not only filters",
                hint="search by keyword lists the notes they allow",
            )
        words = read_words(split.text, self.keyword.within(scope), translate=translate)
        semantic = self._semantic()
        vectors = semantic.query_vectors(words.texts)
        allowed = allowed_notes(
            self.keyword, split.restriction, None if scope is None else set(scope), folder_ids
        )
        found = semantic.search_vectors(vectors, relevance=relevance, limit=limit, note_ids=allowed)
        passages = semantic.passages(vectors, [h.note_id for h in found], query_words(words.texts))
        hits = tuple(semantic_hit(h, passages.get(h.note_id)) for h in found)
        return Results(hits, words.reading(Mode.SEMANTIC, str(relevance)), len(hits))

    def _coverage(self, scope: list[str] | None) -> IndexCoverage | None:
        """How much of the notes searched the index covers; None without one (filters alone
        need none: their notes are listed by keyword, index or not)."""
        try:
            return self._semantic().coverage(scope)
        except UnavailableError:
            return None

    def _scope(self, folder_ids: frozenset[str] | None, note_ids: Collection[str] | None) -> list[str] | None:
        """The notes a search by meaning may return, or None for every note."""
        if folder_ids is None:
            return None if note_ids is None else sorted(set(note_ids))
        inside = {n.id for f in sorted(folder_ids) for n in self.store.list_notes(folder_id=f)}
        return sorted(inside if note_ids is None else inside & set(note_ids))

    def _with_notebooks(self, hits: tuple[Hit, ...]) -> tuple[Hit, ...]:
        """The hits with their notebook's title (the keyword arm has it; by meaning, ids only)."""
        if all(h.notebook for h in hits):
            return hits
        titles = {f.id: f.title for f in self.store.list_folders(include_trashed=True)}
        return tuple(
            h if h.notebook else dataclasses.replace(h, notebook=titles.get(h.notebook_id, "")) for h in hits
        )


def _has_words(keyword: KeywordSearch, query: str) -> bool:
    """Whether ``query`` has a part searched by meaning: filters alone are listed by keyword,
    so how much of the notes the index covers does not matter to them."""
    from noted.search.hybrid import split_query

    return bool(split_query(keyword.parse(query)).text)
