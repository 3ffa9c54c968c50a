"""Keyword search's alternative plans return the same notes as the plain ones.

Broad words are ordered newest first instead of by BM25, common tags are probed note by note
instead of listed, and big notebooks are filtered by the notes outside them or by reading each
note's notebook instead of listing the notes inside; each test runs both plans on one store and compares, and each store holds
notes that must not come back, so that a plan that ignored its condition would fail.
"""

from __future__ import annotations

import pytest

from noted.models import NoteDraft
from noted.search import conditions, keyword, sql
from noted.search.keyword import KeywordSearch
from noted.store.sqlite import SqliteStore


def _fill(store: SqliteStore) -> None:
    inbox = store.create_folder("Inbox", actor="user").id
    for i in range(12):
        body = f"the note number {i}" if i % 4 else f"a note number {i}"  # 3 notes lack "the"
        note = store.create_note(NoteDraft(f"N{i}", body, parent_id=inbox), actor="user")
        if i % 3 == 0:
            store.tag_note(note.id, ["work"], actor="user")


def _ids(search: KeywordSearch, query: str) -> list[str]:
    return [h.note_id for h in search.search(query, limit=100).hits]


def test_a_broad_word_ordered_by_date_returns_the_same_notes(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(store)
    search = KeywordSearch(store)
    ranked = search.search("the", limit=100)
    monkeypatch.setattr(keyword, "BROAD_MIN_NOTES", 0)  # 9 of 12 notes is broad now
    dated = search.search("the", limit=100)
    assert dated.total == ranked.total == 9
    assert {h.note_id for h in dated.hits} == {h.note_id for h in ranked.hits}
    times = [h.updated_time for h in dated.hits]
    assert times == sorted(times, reverse=True)
    assert all(h.section == "0" and h.snippet.startswith("the") for h in dated.hits)
    assert [h.note_id for h in search.search("the", limit=3, offset=3).hits] == _ids(search, "the")[3:6]


@pytest.mark.parametrize("query", ["tag:work", "tag:*", "-tag:work", "number tag:w*", "any:1 tag:work N1"])
def test_probing_tags_note_by_note_returns_what_listing_them_does(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    _fill(store)
    search = KeywordSearch(store)
    monkeypatch.setattr(conditions, "TAG_PROBE_FROM", 10**9)
    listed = search.search(query, limit=100)
    monkeypatch.setattr(conditions, "TAG_PROBE_FROM", 0)
    monkeypatch.setattr(conditions, "TAG_LIST_PER_MATCH", 0)  # probe even where the words match few notes
    probed = search.search(query, limit=100)
    assert probed.total == listed.total
    assert 0 < listed.total < 12  # not vacuous: the filter keeps some notes and drops others
    assert [h.note_id for h in probed.hits] == [h.note_id for h in listed.hits]


@pytest.mark.parametrize("query", ["number tag:work", "number tag:w*", "N9 tag:work"])
def test_a_common_tag_is_listed_when_the_words_match_few_notes(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    _fill(store)
    search = KeywordSearch(store)
    monkeypatch.setattr(conditions, "TAG_PROBE_FROM", 0)
    monkeypatch.setattr(conditions, "TAG_LIST_PER_MATCH", 0)
    probed = search.search(query, limit=100)
    monkeypatch.setattr(conditions, "TAG_LIST_PER_MATCH", 10**9)
    listed = search.search(query, limit=100)
    assert 0 < listed.total == probed.total
    assert [h.note_id for h in listed.hits] == [h.note_id for h in probed.hits]


def _fill_notebooks(store: SqliteStore, *, orphan: bool = True) -> dict[str, str]:
    """Big > Sub > Deep with 9 live notes, a trashed one, Other with 3 (4 without the orphan note)."""
    big = store.create_folder("Big", actor="user").id
    sub = store.create_folder("Sub", parent_id=big, actor="user").id
    deep = store.create_folder("Deep", parent_id=sub, actor="user").id
    other = store.create_folder("Other", actor="user").id
    homes = [big, sub, deep] * 3 + [other] * 3 + [other]
    for i, home in enumerate(homes):
        kind = "todo" if i % 2 else "note"
        body = f"the {kind} number {i}" if i % 3 else f"a {kind} number {i}"
        store.create_note(NoteDraft(f"N{i}", body, parent_id=home, is_todo=i % 2 == 1), actor="user")
    trashed = store.create_note(NoteDraft("T", "the number trashed", parent_id=sub), actor="user")
    store.trash_note(trashed.id, actor="user")
    with store.db.write() as conn:  # a note whose notebook is gone is outside every subtree
        if orphan:
            conn.execute("UPDATE notes SET parent_id = 'gone' WHERE title = ?", (f"N{len(homes) - 1}",))
    return {"big": big, "sub": sub, "deep": deep, "other": other}


_NOTEBOOK_QUERIES = [
    "notebook:Big",
    "-notebook:Big",
    "notebook:Sub",
    "notebook:*",
    "-notebook:*",
    "number notebook:Big",
    "the -notebook:Sub",
    "type:todo notebook:Big",
    "notebook:Big notebook:Other",
    "notebook:Big -notebook:Deep",
    "any:1 notebook:Big N10 type:todo",
]


@pytest.mark.parametrize("orphan", [True, False])  # without it, notebook:* holds every note
@pytest.mark.parametrize("most", [1, 5, 11])  # read each note's notebook; list those outside; mixed
@pytest.mark.parametrize("query", _NOTEBOOK_QUERIES)
def test_big_notebooks_filtered_another_way_return_what_listing_them_does(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch, query: str, most: int, orphan: bool
) -> None:
    _fill_notebooks(store, orphan=orphan)
    search = KeywordSearch(store)
    monkeypatch.setattr(sql, "NOTEBOOK_ROWS_MAX", 10**9)
    listed = [search.search(query, limit=4, offset=offset) for offset in (0, 4, 8, 12)]
    monkeypatch.setattr(sql, "NOTEBOOK_ROWS_MAX", most)
    other = [search.search(query, limit=4, offset=offset) for offset in (0, 4, 8, 12)]
    assert [r.total for r in other] == [r.total for r in listed]
    assert [[h.note_id for h in r.hits] for r in other] == [[h.note_id for h in r.hits] for r in listed]


@pytest.mark.parametrize("most", [1, 5, 10**9])
def test_under_a_scope_a_big_notebook_matches_only_titles_inside_it(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch, most: int
) -> None:
    ids = _fill_notebooks(store)
    search = KeywordSearch(store)
    monkeypatch.setattr(sql, "NOTEBOOK_ROWS_MAX", most)
    scope = frozenset({ids["sub"], ids["deep"]})
    assert search.search("notebook:Big", folder_ids=scope).total == 0  # Big is outside the scope
    assert search.search("notebook:Sub", folder_ids=scope).total == 6
    assert search.search("-notebook:Deep", folder_ids=scope).total == 3
    assert search.search("number -notebook:Big", folder_ids=scope).total == 6
    assert search.search("notebook:*", folder_ids=scope).total == 6


@pytest.mark.parametrize(
    ("query", "total"), [("tag:work", 15), ("number tag:work", 15), ("any:1 tag:work N1", 20)]
)
def test_a_listed_tag_filter_folds_each_tag_title_not_each_link(
    store: SqliteStore, query: str, total: int
) -> None:
    """Listing a tag's notes once folded the tag title of every note-tag link (SQLite walked all
    links and looked each one's tag up: 29,000 casefold calls, 18 ms of ``tag:x`` at 10,000 notes)."""
    inbox = store.create_folder("Inbox", actor="user").id
    for i in range(30):
        note = store.create_note(NoteDraft(f"N{i}", f"the note number {i}", parent_id=inbox), actor="user")
        store.tag_note(note.id, ["work", "home"] if i % 2 else ["home"], actor="user")
    folded: list[str] = []

    def casefold(value: object) -> object:
        folded.append(str(value))
        return value.casefold() if isinstance(value, str) else value

    # This thread's connection, which the search reads through: the count below is its calls.
    store.db.connection().create_scalar_function("casefold", casefold, 1, deterministic=True)
    found = KeywordSearch(store).search(query, limit=100)
    assert found.total == total  # the filter ran: notes tagged work (or titled N1…), not the others
    links = 45
    assert 0 < len(folded) < links  # each statement folds the 2 tag titles, whatever the links
