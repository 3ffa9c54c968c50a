"""Keyword search on Joplin reads every note changed lately itself, however many there are."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from noted.models import ChangeType, ItemType, Note, NoteMeta, now_ms
from noted.search.joplin import RECENT_MS, JoplinKeywordSearch
from noted.store.joplin import JoplinStore
from noted.store.joplin.sidecar import Sidecar


class _LaggingIndex:
    def get_all(self, path: str, params: Any = None) -> list[Any]:
        return []  # Joplin's index has none of the notes yet (the terminal app indexes at start)


class _Joplin:
    """What the search asks of a ``JoplinStore``: the real sidecar keeps the change feed, the notes
    sit in a dict, and Joplin's own search finds nothing, so a note noted does not read is missed."""

    def __init__(self, sidecar: Sidecar, notes: list[Note]) -> None:
        self.sidecar = sidecar
        self.client = _LaggingIndex()
        self.notes = {n.id: n for n in notes}
        self.asked_one_by_one = 0

    def recent_notes(self, *args: int) -> dict[str, tuple[int, int]]:
        return self.sidecar.recent_notes(*args)

    def saved_since(self, since: int) -> list[Note]:
        return sorted(
            (n for n in self.notes.values() if n.updated_time >= since), key=lambda n: -n.updated_time
        )

    def get_notes(self, note_ids: list[str]) -> list[Note]:
        self.asked_one_by_one += len(note_ids)
        return [self.notes[i] for i in note_ids if i in self.notes]

    def list_folders(self, include_trashed: bool = False) -> list[Any]:
        return []


def _note(i: int, updated: int) -> Note:
    return Note(
        f"{i:032x}", "f" * 32, f"n{i}", f"marmalade{i} and common ferret", updated, updated, updated, updated
    )


def test_every_note_changed_in_the_window_is_searched_past_the_first_500(tmp_path: Path) -> None:
    now = now_ms()
    notes = [_note(i, now) for i in range(620)]
    # Re-tagged lately but saved long ago: not in Joplin's listing of the window, so asked for itself.
    notes.append(_note(620, now - 2 * RECENT_MS))
    sidecar = Sidecar.open(tmp_path / "sidecar.db")
    try:
        sidecar.record(ItemType.NOTE, [n.id for n in notes], ChangeType.UPDATE, "user")
        joplin = _Joplin(sidecar, notes)
        search = JoplinKeywordSearch(cast(JoplinStore, joplin))

        assert search.search("ferret", limit=1000).total == 621
        assert joplin.asked_one_by_one == 1  # the rest came from the listing, pages of 100
        assert [h.title for h in search.search("marmalade0").hits] == ["n0"]  # the oldest change
        assert [h.title for h in search.search("marmalade620").hits] == ["n620"]
    finally:
        sidecar.close()


class _Index:
    """Joplin's search answering in its relevance order, which weighs every note, hidden or not."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items

    def get_all(self, path: str, params: Any = None) -> list[Any]:
        return self.items


def test_in_a_scope_joplins_matches_come_newest_first_not_in_its_order(tmp_path: Path) -> None:
    def item(i: int, folder: str, updated: int) -> dict[str, Any]:
        return {"id": f"{i:032x}", "parent_id": folder, "title": f"n{i}", "user_updated_time": updated}

    work, secret = "a" * 32, "b" * 32
    sidecar = Sidecar.open(tmp_path / "sidecar.db")
    try:
        joplin = _Joplin(sidecar, [_note(1, 100), _note(2, 300), _note(3, 200)])  # read for main's code
        joplin.client = _Index([item(1, work, 100), item(2, secret, 300), item(3, work, 200)])  # type: ignore[assignment]
        search = JoplinKeywordSearch(cast(JoplinStore, joplin))
        scoped = search.search("ferret", folder_ids=frozenset({work}), snippets=False)
        assert [h.title for h in scoped.hits] == ["n3", "n1"]
        # Not vacuous: unscoped, Joplin's order stands.
        assert [h.title for h in search.search("ferret", snippets=False).hits] == ["n1", "n2", "n3"]
    finally:
        sidecar.close()


def test_a_page_without_snippets_gives_each_hit_its_row_from_joplins_answer(tmp_path: Path) -> None:
    def item(i: int, **more: Any) -> dict[str, Any]:
        base = {"id": f"{i:032x}", "parent_id": "a" * 32, "title": f"n{i}", "updated_time": 100 + i}
        return base | {"user_updated_time": 100 + i, "created_time": 7, "user_created_time": 8} | more

    sidecar = Sidecar.open(tmp_path / "sidecar.db")
    try:
        joplin = _Joplin(sidecar, [])  # nothing changed lately: every hit is Joplin's
        joplin.client = _Index([item(1, is_todo=1, todo_due=5, source_url="u"), item(2)])  # type: ignore[assignment]
        sidecar.lengths.keep([Note(f"{2:032x}", "a" * 32, "n2", "twelve chars", 7, 102, 8, 102)])
        hits = JoplinKeywordSearch(cast(JoplinStore, joplin)).search("ferret", snippets=False).hits
        metas = {h.note_id: h.meta for h in hits}
        assert joplin.asked_one_by_one == 0  # no note read, with or without its body
        assert metas[f"{1:032x}"] == NoteMeta(
            f"{1:032x}", "a" * 32, "n1", 7, 101, 8, 101, is_todo=True, todo_due=5, source_url="u"
        )
        kept = metas[f"{2:032x}"]
        assert kept is not None and kept.body_length == 12  # as kept
    finally:
        sidecar.close()


def test_a_hit_is_dated_by_the_notes_own_time_as_the_lists_date_it(tmp_path: Path) -> None:
    """A note synced from another device was saved here (``updated_time``) long after it was last
    changed (``user_updated_time``, which the list shows): a hit gave the first, so search and the
    list named two days for one note. Not vacuous: the two times differ."""
    sidecar = Sidecar.open(tmp_path / "sidecar.db")
    try:
        note = Note(f"{1:032x}", "a" * 32, "n1", "ferret", 7, 5_000, 8, 900)  # updated 5000, by the user 900
        joplin = _Joplin(sidecar, [note])
        joplin.client = _Index([{"id": note.id, "parent_id": note.parent_id, "title": "n1"}])  # type: ignore[assignment]
        hits = JoplinKeywordSearch(cast(JoplinStore, joplin)).search("ferret").hits
        assert [(h.title, h.updated_time) for h in hits] == [("n1", 900)]
    finally:
        sidecar.close()
