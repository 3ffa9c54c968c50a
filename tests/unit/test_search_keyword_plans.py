"""Keyword search's alternative plans return the same notes as the plain ones.

Broad words are ordered newest first instead of by BM25, and common tags are probed note by note
instead of listed; each test runs both plans on one store and compares, and each store holds
notes that must not come back, so that a plan that ignored its condition would fail.
"""

from __future__ import annotations

import pytest

from noted.models import NoteDraft
from noted.search import keyword, sql
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
    monkeypatch.setattr(sql, "TAG_PROBE_FROM", 10**9)
    listed = search.search(query, limit=100)
    monkeypatch.setattr(sql, "TAG_PROBE_FROM", 0)
    probed = search.search(query, limit=100)
    assert probed.total == listed.total
    assert 0 < listed.total < 12  # not vacuous: the filter keeps some notes and drops others
    assert [h.note_id for h in probed.hits] == [h.note_id for h in listed.hits]
