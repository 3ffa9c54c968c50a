"""Keyword search on the Joplin backend: Joplin's own search engine and grammar, noted's results.

The query is checked with noted's parser first (so a malformed query gets the same message as on
the embedded store), then sent to Joplin's ``/search`` written so that Joplin reads each term as
noted does (``noted.search.joplin_query``; bare words match as prefixes there too: the Data API
appends the wildcard; where it cannot, Joplin is asked for more, and its answer narrowed by
noted's matcher over the bodies it sends). Joplin
answers with note ids in relevance order; noted applies the caller's notebook scope, counts, and
reads only the returned page's bodies to cut each hit's snippet and find its section, as the
embedded search does.

Joplin updates its search index in the background: the desktop app ten seconds after a change,
the terminal app's server only when it starts. So the notes changed lately (Joplin's change feed
and noted's own writes, the last ``RECENT_MS``, however many) are searched by noted itself, with
the same grammar, in a scratch in-memory database, and their results replace Joplin's answer for
them. Recent matches come first (Joplin gives no scores to merge on), then
Joplin's, in its order. In a notebook scope (an MCP client's) nothing outside it is weighed: the
recent notes are ranked among the scope's only, and Joplin's matches, whose order weighs every
note, come newest first; of the recent notes, only those that may be in the scope are read (its
notebooks' listings of the window, when that takes fewer requests than a note each, and the notes
Joplin's answer puts there). ``notebook:`` filters narrow what is read the same way (they restrict
whatever the rest says), and the recent notes are ranked among their notebooks' only. On a terminal-app server that has run for longer than ``RECENT_MS``, a
note changed before that window but after the server started is found again once it restarts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

import apsw

from noted.errors import QueryError
from noted.markdown import heading_text, opening
from noted.models import Folder, Note, now_ms
from noted.search.joplin_files import add_linked_resources
from noted.search.joplin_query import joplin_asked, narrowed
from noted.search.keyword import MAX_LIMIT, HasDatabase, KeywordHit, KeywordResults, KeywordSearch
from noted.search.query import Filter, FilterKind, Query, parse_query
from noted.search.snippet import Located, body_pattern, locate
from noted.search.sql import compile_query, notebooks_sql
from noted.store.joplin import META_FIELDS, NOTE_FIELDS, JoplinStore, meta_of, note_meta, note_of
from noted.store.sqlite.scratch import add_folders, add_tags, scratch_copy

RECENT_MS = 7 * 24 * 60 * 60 * 1000
"""How far back changed notes are searched by noted itself rather than trusted to Joplin's index."""
READ_ONE_BY_ONE = 50
"""Up to this many notes to read, each is asked for; past it, Joplin's listing of the notes saved
in the window is read a page of 100 at a time (620 notes: 0.3 s instead of 5 s)."""
_UNLOCATED = Located("", None, None)


class JoplinKeywordSearch(KeywordSearch):
    """``KeywordSearch`` answered by a running Joplin (same ``search`` and ``parse``)."""

    def __init__(self, store: JoplinStore) -> None:  # the SQLite search's state is not needed
        self._store = store
        self._cache: dict[str, tuple[tuple[int, int], Note, str]] = {}
        """Recent notes already read: id → (the version they were read at, note, its headings),
        so a search parses only the notes changed since the last one."""
        self._gone: dict[str, tuple[int, int]] = {}
        """Recent notes Joplin no longer has (erased): id → the version they were missed at, so a
        search does not ask for them again (past ``READ_ONE_BY_ONE`` each did read every note saved
        in the window, bodies and all)."""

    def search(
        self,
        query: str,
        *,
        limit: int = 20,
        offset: int = 0,
        folder_ids: frozenset[str] | None = None,
        note_ids: Collection[str] | None = None,
        snippets: bool = True,
    ) -> KeywordResults:
        """Run ``query`` on Joplin and return one page of hits, best first.

        Args:
            query: Words, ``"phrases"`` and filters in Joplin's grammar.
            limit: Page size (1 to 1000).
            offset: Hits to skip, for the next pages.
            folder_ids: When given, only notes directly inside these notebooks are returned.
            note_ids: When given, only these notes are returned.
            snippets: False leaves ``snippet`` empty and ``section`` None (for callers that only rank).

        Raises:
            QueryError: For an empty or malformed query, or a bad page.
            BackendError: When Joplin cannot be reached.
        """
        if not 1 <= limit <= MAX_LIMIT or offset < 0:
            raise QueryError(f"bad page: limit must be 1 to {MAX_LIMIT} and offset 0 or more")
        parsed = parse_query(query)
        note_ids = None if note_ids is None else frozenset(note_ids)
        # Every notebook, read once a search: for a scope's titles, the filter, the hits' titles.
        folders = functools.cache(lambda: self._store.list_folders(include_trashed=True))
        # Joplin's resource: weighs every attachment, one a note outside links too: in a scope,
        # such a query is answered here, on the scope's notes and the attachments it sees.
        here = folder_ids is not None and any(
            isinstance(t, Filter) and t.kind is FilterKind.RESOURCE for t in parsed.terms
        )
        found: list[dict[str, Any]] = []
        if not here:
            ask = joplin_asked(parsed)
            titles = functools.cache(lambda: {f.id: f.title for f in folders()})
            asked = narrowed(ask.query, parsed, folder_ids, titles)
            # What a hit and its listing row show (``KeywordHit.meta``): a page without snippets
            # reads no body, unless noted checks Joplin's answer (what it reads more widely).
            fields = META_FIELDS if ask.check is None else NOTE_FIELDS
            found = self._store.client.get_all("/search", {"query": asked, "fields": fields})
            if ask.check is not None:
                found = self._checked(found, ask.check, folders)
        # Every hit is in these notebooks: the scope's, and those the notebook: filters take in.
        inside = _within(folder_ids, self._notebooks(parsed, folder_ids, folders))
        if here:
            recent, unread = self._every_note(folder_ids, folders), frozenset[str]()
        else:
            claimed = {
                str(i["id"]) for i in found if _in_scope(str(i["id"]), str(i.get("parent_id")), inside, None)
            }
            recent, unread = self._recent(inside, note_ids, folders, claimed)
        # In a scope, only its notes are weighed: how many notes hold a word sets its weight, so
        # weighing the hidden ones would let the order of the visible ones tell what they hold.
        # Under notebook: filters too, so the order does not hang on what earlier searches read.
        seen = {i: n for i, n in recent.items() if _in_scope(i, n.parent_id, inside, note_ids)}
        local = self._search_locally(parsed, seen, folder_ids, note_ids, folders)
        listed = {
            str(i["id"]): i
            for i in found
            if str(i["id"]) not in recent and str(i["id"]) not in unread and _visible(i, folder_ids, note_ids)
        }
        joplin = [(i, int(item.get("user_updated_time") or 0)) for i, item in listed.items()]
        if folder_ids is not None or note_ids is not None:  # Joplin's order weighs every note
            joplin.sort(key=_newest_first)
        ranked = local + joplin
        if not parsed.ranked:
            ranked.sort(key=_newest_first)
        page = [note_id for note_id, _ in ranked[offset : offset + limit]]
        if not snippets:  # the listing holds what a hit shows: no body is read
            recent |= {i: note_of(listed[i]) for i in page if i in listed}
        hits = self._hits(parsed, page, offset, len(ranked), snippets, recent, listed, folders)
        return KeywordResults(len(ranked), tuple(hits))

    def _checked(
        self, found: list[dict[str, Any]], check: Query, folders: Callable[[], list[Folder]]
    ) -> list[dict[str, Any]]:
        """Joplin's answer (with bodies) narrowed, in its order, by noted's matcher: what ``check`` finds."""
        notes = {
            str(i["id"]): note_of(i) for i in found if not i.get("deleted_time") and not i.get("is_conflict")
        }
        kept = {note_id for note_id, _ in self._search_locally(check, notes, None, None, folders)}
        return [i for i in found if str(i["id"]) in kept]

    def locate(self, query: str, note_ids: Sequence[str]) -> dict[str, Located]:
        """The snippet and section of ``query``'s first match in each of these notes."""
        pattern = body_pattern(parse_query(query).text_terms)
        return {n.id: locate(n.body, pattern, part=self.part_chars) for n in self._store.get_notes(note_ids)}

    def corrections(self, words: Iterable[str]) -> dict[str, str]:
        """None: Joplin's Data API gives no vocabulary to correct a word from."""
        return {}

    def note_counts(self, prefixes: Sequence[str]) -> dict[str, int]:
        """None: Joplin's Data API counts no words (a translated word takes its glossary sense)."""
        return {}

    def word_counts(self, words: Sequence[str]) -> dict[str, int]:
        """None: Joplin's Data API counts no words (every word is taken for one the notes lack)."""
        return {}

    def notes_holding(self, groups: Sequence[Sequence[str]]) -> dict[tuple[str, ...], int]:
        """None: Joplin's Data API counts no words (a translated word takes its glossary sense)."""
        return {}

    # Notes Joplin's index may not have yet ------------------------------------------------
    def _every_note(
        self, folder_ids: frozenset[str] | None, folders: Callable[[], list[Folder]]
    ) -> dict[str, Note]:
        """Every note of the scope's notebooks, from their listings (a page of 100 at a time)."""
        known = {f.id for f in folders()}
        inside = sorted((folder_ids or frozenset()) & known)
        return {n.id: n for folder_id in inside for n in self._store.saved_since(0, folder_id=folder_id)}

    def _recent(
        self,
        inside: frozenset[str] | None,
        note_ids: frozenset[str] | None,
        folders: Callable[[], list[Folder]],
        claimed: Collection[str],
    ) -> tuple[dict[str, Note], frozenset[str]]:
        """The notes changed lately, read from Joplin (or the cache when unchanged since), and
        those left unread. When every hit is ``inside`` some notebooks, only the notes that may be
        in them are read: those their listings give, and those Joplin's answer (``claimed``) puts
        there (one retagged, or synced, keeps an older time); the others are left for a search
        that needs them."""
        since = now_ms() - RECENT_MS
        rows = self._store.recent_notes(since)
        stale = [
            i
            for i, version in rows.items()
            if (i not in self._cache or self._cache[i][0] != version) and self._gone.get(i) != version
        ]
        asked = set(stale if note_ids is None else note_ids.intersection(stale))
        fresh: dict[str, Note] = {}
        if inside is not None and len(asked) > len(inside):  # a listing each, not a note each
            known = {f.id for f in folders()}
            for folder_id in inside & known:
                fresh |= {
                    n.id: n for n in self._store.saved_since(since, folder_id=folder_id) if n.id in asked
                }
            # The others are not in those notebooks now (or trashed): unknown, not gone.
            asked = set(fresh) | asked.intersection(claimed)
        elif len(asked) > READ_ONE_BY_ONE:  # a synced or retagged note may not be listed: asked for below
            fresh = {n.id: n for n in self._store.saved_since(since) if n.id in asked}
        fresh |= {n.id: n for n in self._store.get_notes([i for i in stale if i in asked and i not in fresh])}
        kept = {i: self._cache[i] for i in rows if i not in stale and i in self._cache}
        self._gone = {
            i: v for i, v in rows.items() if self._gone.get(i) == v or (i in asked and i not in fresh)
        }
        # A long note's headings are its opening's, as the store's (``notes.largeNoteChars``).
        headings = {i: heading_text(opening(note.body, self.part_chars)) for i, note in fresh.items()}
        self._cache = kept | {i: (rows[i], note, headings[i]) for i, note in fresh.items()}
        unread = frozenset(rows.keys() - self._cache.keys() - self._gone.keys())
        return {i: note for i, (_, note, _) in self._cache.items()}, unread

    def _notebooks(
        self, parsed: Query, folder_ids: frozenset[str] | None, folders: Callable[[], list[Folder]]
    ) -> frozenset[str] | None:
        """The notebooks the query's ``notebook:`` filters take in (None without one): they
        restrict whatever else it says, ``any:1`` too (``noted.search.query``)."""
        values = parsed.notebooks(negated=False)
        if not values:
            return None
        conn = scratch_copy((), headings=lambda note: "")
        try:
            add_folders(conn, folders())
            compiled = notebooks_sql(values, folder_ids)
            return frozenset(str(row[0]) for row in conn.execute(compiled.sql, compiled.params))
        finally:
            conn.close()

    def _search_locally(
        self,
        parsed: Query,
        recent: dict[str, Note],
        folder_ids: frozenset[str] | None,
        note_ids: Collection[str] | None,
        folders: Callable[[], list[Folder]],
    ) -> list[tuple[str, int]]:
        """``parsed`` run by noted's own engine over the recent notes: (id, user_updated_time), best first."""
        if not recent:
            return []
        conn = scratch_copy(recent.values(), headings=self._headings)
        try:
            self._fill(conn, parsed, recent, folders, folder_ids)
            compiled = compile_query(
                parsed,
                limit=len(recent),  # every match, so the total counts them all
                offset=0,
                folder_ids=folder_ids,
                note_ids=note_ids,
                expansions=self._expand(conn, parsed.text_terms),
            )
            rows = conn.execute(compiled.sql, compiled.params).fetchall()
        except apsw.SQLError as exc:  # quoting should make this impossible; never leak it
            raise QueryError(f"cannot run the search {parsed!r}: {exc}") from exc
        finally:
            conn.close()
        return [(str(r[1]), recent[str(r[1])].user_updated_time) for r in rows if r[1] is not None]

    def _fill(
        self,
        conn: apsw.Connection,
        parsed: Query,
        notes: dict[str, Note],
        folders: Callable[[], list[Folder]],
        folder_ids: frozenset[str] | None,
    ) -> None:
        """Copy in what the query's filters look at besides the notes themselves (in a scope, the
        attachments it sees: ``noted.search.joplin_files``)."""
        kinds = {t.kind for t in parsed.terms if isinstance(t, Filter)}
        if FilterKind.NOTEBOOK in kinds:
            add_folders(conn, folders())
        if FilterKind.TAG in kinds:
            add_tags(conn, list(notes), self._store.note_tags)
        if FilterKind.RESOURCE in kinds:
            types = [t.value for t in parsed.terms if isinstance(t, Filter) and t.kind is FilterKind.RESOURCE]
            add_linked_resources(conn, self._store, notes, types, folder_ids)

    def _headings(self, note: Note) -> str:
        """The note's headings: those read with it when it is the cached version."""
        kept = self._cache.get(note.id)
        if kept is not None and kept[1] is note:
            return kept[2]
        return heading_text(opening(note.body, self.part_chars))

    # The page ----------------------------------------------------------------------------
    def _hits(
        self,
        parsed: Query,
        page: list[str],
        offset: int,
        total: int,
        snippets: bool,
        read: dict[str, Note],
        listed: dict[str, Any],
        folders: Callable[[], list[Folder]],
    ) -> list[KeywordHit]:
        notes = {i: read[i] for i in page if i in read}  # the recent notes were read just now
        notes |= {n.id: n for n in self._store.get_notes([i for i in page if i not in read])}
        metas = [meta_of(listed[i]) if i in listed else note_meta(notes[i]) for i in page if i in notes]
        rows = {m.id: m for m in self._store.sidecar.lengths.fill(metas)}
        titles = {f.id: f.title for f in folders()} if notes else {}
        pattern = body_pattern(parsed.text_terms) if parsed.ranked else None
        hits: list[KeywordHit] = []
        for rank, note_id in enumerate(page, start=offset):
            note = notes.get(note_id)
            if note is None:
                continue  # erased between the search and the read
            located = locate(note.body, pattern, part=self.part_chars) if snippets else _UNLOCATED
            hits.append(
                KeywordHit(
                    note_id=note.id,
                    title=note.title,
                    notebook_id=note.parent_id,
                    notebook_title=titles.get(note.parent_id, ""),
                    updated_time=note.user_updated_time,  # as the lists date it
                    is_todo=note.is_todo,
                    todo_completed=note.todo_completed,
                    snippet=located.snippet,
                    section=located.section,
                    section_heading=located.section_heading,
                    # Joplin gives no score: the rank stands in for it (higher is better).
                    score=float(total - rank) if parsed.ranked else 0.0,
                    meta=rows[note_id],
                )
            )
        return hits


def _visible(
    item: dict[str, Any], folder_ids: frozenset[str] | None, note_ids: Collection[str] | None
) -> bool:
    if item.get("deleted_time") or item.get("is_conflict"):
        return False
    return _in_scope(str(item["id"]), str(item.get("parent_id", "")), folder_ids, note_ids)


def _in_scope(
    note_id: str, parent_id: str, folder_ids: frozenset[str] | None, note_ids: Collection[str] | None
) -> bool:
    if note_ids is not None and note_id not in note_ids:
        return False
    return folder_ids is None or parent_id in folder_ids


def _within(scope: frozenset[str] | None, notebooks: frozenset[str] | None) -> frozenset[str] | None:
    """The notebooks every hit is in, under a scope and the ``notebook:`` filters (None: any)."""
    if scope is None or notebooks is None:
        return scope if notebooks is None else notebooks
    return scope & notebooks


def _newest_first(pair: tuple[str, int]) -> tuple[int, str]:
    return -pair[1], pair[0]


def keyword_search_for(store: HasDatabase) -> KeywordSearch:
    """The keyword search that fits ``store``: Joplin's engine for Joplin, FTS5 for SQLite.

    ``KeywordSearch(joplin_store)`` would type-check (the sidecar is a database) but search the
    sidecar's empty note tables; use this instead when the backend may be either.
    """
    if isinstance(store, JoplinStore):
        return JoplinKeywordSearch(store)
    return KeywordSearch(store)
