"""Notes inserted in one batch with the keyword index deferred to its end: indexed as the trigger
would have indexed them, updated and deleted rows included, and nothing left swapped after a failure."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.vaults import opened

from noted.models import NoteDraft, NotePatch
from noted.search.keyword import KeywordSearch
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.bulk import deferred_keyword_index
from noted.store.vault.follow import BULK


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore.open(tmp_path / "n.db", tmp_path / "r")
    yield opened
    opened.close()


def matches(store: SqliteStore, word: str) -> set[str]:
    with store.db.read() as conn:
        rows = conn.execute(
            "SELECT n.title FROM notes_fts JOIN notes AS n ON n.rowid = notes_fts.rowid WHERE notes_fts MATCH ?",
            (word,),
        ).fetchall()
    return {r[0] for r in rows}


def consistent(store: SqliteStore) -> None:
    """FTS5's own check of the index against the notes table (raises when they differ)."""
    with store.db.write() as conn:
        conn.execute("INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)")


def trigger_sql(store: SqliteStore) -> list[str]:
    with store.db.read() as conn:
        return [
            r[0] for r in conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        ]


def test_notes_made_updated_and_deleted_in_the_batch_are_indexed_exactly(store: SqliteStore) -> None:
    folder = store.create_folder("F", actor="user").id
    triggers = trigger_sql(store)
    with store.batch(), deferred_keyword_index(store.db):
        ids = [
            store.create_note(NoteDraft(f"n{i}", f"walrus {i} body", folder), actor="user").id
            for i in range(5)
        ]
        store.update_note(ids[1], NotePatch(body="narwhal instead"), actor="user")
        store.trash_note(ids[2], actor="user")
        store.empty_trash(actor="user")  # deletes the row while it waits to be indexed
        assert matches(store, "walrus") == set()  # not indexed yet
    assert matches(store, "walrus") == {"n0", "n3", "n4"}
    assert matches(store, "narwhal") == {"n1"}
    consistent(store)  # an update of a waiting row would have deleted terms never indexed
    assert trigger_sql(store) == triggers
    store.create_note(NoteDraft("later", "walrus again", folder), actor="user")
    assert "later" in matches(store, "walrus")  # the trigger works again


def test_a_failed_batch_leaves_the_trigger_as_it_was(store: SqliteStore) -> None:
    folder = store.create_folder("F", actor="user").id
    triggers = trigger_sql(store)
    with pytest.raises(RuntimeError), store.batch(), deferred_keyword_index(store.db):
        store.create_note(NoteDraft("gone", "walrus", folder), actor="user")
        raise RuntimeError("boom")
    assert trigger_sql(store) == triggers
    store.create_note(NoteDraft("kept", "walrus", folder), actor="user")
    assert matches(store, "walrus") == {"kept"}
    consistent(store)


def test_it_refuses_outside_a_batch(store: SqliteStore) -> None:
    with pytest.raises(RuntimeError, match="inside db.batch"), deferred_keyword_index(store.db):
        pass


def test_a_markdown_folder_read_in_one_large_batch_is_searchable_by_keyword(tmp_path: Path) -> None:
    # BULK files or more take the deferred path (the other vault tests use small folders).
    vault = tmp_path / "notes"
    (vault / "sub").mkdir(parents=True)
    for i in range(BULK + 20):
        (vault / "sub" / f"n{i}.md").write_text(f"# Note {i}\n\nquokka{i} and the shared walrus\n")
    with opened(vault, tmp_path / "p") as store:
        search = KeywordSearch(store)
        assert search.search("walrus").total == BULK + 20
        assert search.search(f"quokka{BULK + 7}").total == 1
        consistent(store.mirror)
        for i in range(BULK + 20):  # an outside edit of every file: one more large batch, of updates
            (vault / "sub" / f"n{i}.md").write_text(f"# Note {i}\n\nnarwhal{i}\n")
        (vault / "sub" / "new.md").write_text("# New\n\nnarwhal new\n")
        store.follower.scan()
        assert search.search("walrus").total == 0 and search.search("narwhal*").total == BULK + 21
        consistent(store.mirror)
