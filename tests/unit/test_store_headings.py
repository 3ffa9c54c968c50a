"""Headings as a keyword index column of their own (schema 3): kept in step with every save,
weighed above the text by BM25, and made for the notes of an older profile when it migrates."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest
from tests.support.schema import FILLER, schema_2_database

from noted.markdown import heading_text
from noted.models import NoteDraft, NotePatch
from noted.search.keyword import KeywordSearch
from noted.store.sqlite import SqliteStore
from noted.store.sqlite import schema as schema_module
from noted.store.sqlite.schema import MIGRATIONS


def _integrity(store: SqliteStore) -> None:
    """FTS5's own check that the index holds exactly what the notes table holds (raises if not)."""
    with store.db.write() as conn:
        conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('integrity-check')")


def _stored_headings(store: SqliteStore, note_id: str) -> str:
    row = store.db.connection().execute("SELECT headings FROM notes WHERE id = ?", (note_id,)).fetchone()
    return str(row[0])


def test_heading_text_is_the_headings_a_reader_sees_one_a_line() -> None:
    body = "Intro\n\n# Trip *plan*\n\ntext\n\n```\n# not a heading\n```\n\nDays\n----\n\n## `code` and [link](x)\n"
    assert heading_text(body) == "Trip plan\nDays\ncode and link"
    assert heading_text("no headings at all") == ""


def test_a_word_in_a_heading_ranks_above_the_same_word_twice_in_the_text(store: SqliteStore) -> None:
    folder = store.create_folder("Inbox", actor="user").id
    # Same length; the word is in the heading of one, twice in the running text of the other.
    store.create_note(
        NoteDraft("Quarter", FILLER + "budget and budget again.\n", parent_id=folder), actor="user"
    )
    store.create_note(
        NoteDraft("Review", "## Budget\n\n" + FILLER + "more words here\n", parent_id=folder), actor="user"
    )
    store.create_note(NoteDraft("Other", FILLER, parent_id=folder), actor="user")
    assert [h.title for h in KeywordSearch(store).search("budget").hits] == ["Review", "Quarter"]


def test_every_save_keeps_the_headings_column_in_step(store: SqliteStore) -> None:
    folder = store.create_folder("Inbox", actor="user").id
    other = store.create_folder("Archive", actor="user").id
    note = store.create_note(
        NoteDraft("Trip", "# Packing\n\nBring the umbrella.\n", parent_id=folder), actor="user"
    )
    search = KeywordSearch(store)
    assert [h.title for h in search.search("packing").hits] == ["Trip"]

    # A heading edited away must not be found through a stale copy of it.
    store.update_note(note.id, NotePatch(body="# Days\n\nMonday.\n"), actor="user")
    assert search.search("packing").hits == ()
    assert [h.title for h in search.search("days").hits] == ["Trip"]

    # Text added before or after: the column holds the whole body's headings.
    store.update_note(note.id, NotePatch(prepend="# Intro", append="## Sunday\n\nRest."), actor="user")
    body = store.get_note(note.id).body
    assert _stored_headings(store, note.id) == heading_text(body) == "Intro\nDays\nSunday"

    # Saves that leave the text alone (a move, a to-do tick, a title) keep the index right.
    store.update_note(note.id, NotePatch(parent_id=other), actor="user")
    store.update_note(note.id, NotePatch(is_todo=True), actor="user")
    store.update_note(note.id, NotePatch(title="Holiday"), actor="user")
    _integrity(store)
    assert [h.title for h in search.search("days").hits] == ["Holiday"]
    assert search.search("trip").hits == ()

    store.trash_note(note.id, actor="user")
    assert store.empty_trash(actor="user") == 1
    _integrity(store)
    assert search.search("days").hits == ()


def test_a_schema_2_profile_migrates_with_its_headings_and_its_index_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    schema_2_database(path)
    store = SqliteStore.open(path, tmp_path / "resources")
    try:
        assert store.db.connection().execute("PRAGMA user_version").fetchone()[0] == MIGRATIONS[-1].version
        _integrity(store)
        assert [h.title for h in KeywordSearch(store).search("budget").hits] == ["Review", "Quarter"]
        assert store.get_note("n1").body.endswith("budget again.\n")
    finally:
        store.close()


def test_a_migration_that_fails_half_way_leaves_the_old_schema_and_its_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "notes.db"
    schema_2_database(path)

    def broken(body: str) -> str:
        if "Budget" in body:
            raise RuntimeError("parser crashed")
        return heading_text(body)

    monkeypatch.setattr(schema_module, "heading_text", broken)
    with pytest.raises(RuntimeError):
        SqliteStore.open(path, tmp_path / "resources")

    conn = apsw.Connection(str(path))
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        columns = [row[1] for row in conn.execute("PRAGMA table_info(notes)")]
        assert "headings" not in columns
        found = conn.execute(
            "SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'budget' ORDER BY rowid"
        ).fetchall()
        assert found == [(1,), (2,)]
    finally:
        conn.close()

    monkeypatch.undo()
    store = SqliteStore.open(path, tmp_path / "resources")
    try:
        assert [h.title for h in KeywordSearch(store).search("budget").hits] == ["Review", "Quarter"]
    finally:
        store.close()
