"""What the Store protocol offers front ends besides the basics, on both backends.

``count_notes`` and ``note_tag_titles`` are the note list's fast paths (the SQLite store answers
them with one query); ``sync`` and ``conflicts`` are the capabilities a front end asks for instead
of checking which backend it holds. Each test runs on the embedded store and on a real Joplin
(the Joplin half is slow, and skipped when the Joplin app is not installed).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.joplin import shared_server

from noted.models import NoteDraft
from noted.store.protocol import NoteOrder, Store
from noted.store.sqlite import SqliteStore

ACTOR = "user"


@pytest.fixture(params=["sqlite", pytest.param("joplin", marks=pytest.mark.slow)])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    store: Store
    if request.param == "sqlite":
        store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    else:
        store = shared_server(request.getfixturevalue("tmp_path_factory").getbasetemp()).store(tmp_path / "p")
    yield store
    store.close()


def _notebook(store: Store) -> str:
    # The Joplin server is shared by the run: each test counts inside a notebook of its own.
    return store.create_folder(f"Fast paths {secrets.token_hex(3)}", actor=ACTOR).id


def test_count_notes_agrees_with_list_notes_for_every_filter(any_store: Store) -> None:
    folder = _notebook(any_store)
    any_store.create_note(NoteDraft("Plain", "a", folder), actor=ACTOR)
    todo = any_store.create_note(NoteDraft("Todo", "b", folder, is_todo=True, tags=("errand",)), actor=ACTOR)
    gone = any_store.create_note(NoteDraft("Gone", "c", folder, tags=("errand",)), actor=ACTOR)
    any_store.trash_note(gone.id, actor=ACTOR)
    tag = any_store.find_tag("errand")
    assert tag is not None
    cases: list[dict[str, object]] = [
        {"folder_id": folder},
        {"folder_id": folder, "todo_only": True},
        {"folder_id": folder, "trashed": True},
        {"tag_id": tag.id},
        {"todo_only": True},
        {"trashed": True},
        {},
    ]
    for filters in cases:
        listed = any_store.list_notes(order=NoteOrder.ID, **filters)  # type: ignore[arg-type]
        assert any_store.count_notes(**filters) == len(listed), filters  # type: ignore[arg-type]
    # Exact figures where the notebook is ours alone, so the agreement above is not 0 == 0.
    assert any_store.count_notes(folder_id=folder) == 2
    assert any_store.count_notes(folder_id=folder, todo_only=True) == 1
    assert any_store.count_notes(folder_id=folder, trashed=True) == 1
    assert todo.id in {m.id for m in any_store.list_notes(tag_id=tag.id)}


def test_note_tag_titles_are_each_notes_titles_a_to_z(any_store: Store) -> None:
    folder = _notebook(any_store)
    word = secrets.token_hex(2)
    both = any_store.create_note(
        NoteDraft("Both", "x", folder, tags=(f"zeta{word}", f"Alpha{word}")), actor=ACTOR
    )
    one = any_store.create_note(NoteDraft("One", "y", folder, tags=(f"mid{word}",)), actor=ACTOR)
    bare = any_store.create_note(NoteDraft("Bare", "z", folder), actor=ACTOR)

    titles = any_store.note_tag_titles([both.id, one.id, bare.id])

    # Joplin keeps tag titles in lower case; compare with what note_tags says of each note.
    assert titles[both.id] == tuple(t.title for t in any_store.note_tags(both.id))
    assert [t.casefold() for t in titles[both.id]] == [f"alpha{word}", f"zeta{word}"]
    assert titles[one.id] == (any_store.note_tags(one.id)[0].title,)
    assert bare.id not in titles  # untagged notes are left out (callers use .get(id, ()))
    assert any_store.note_tag_titles([]) == {}


def test_sync_and_conflicts_exist_only_where_the_backend_syncs(any_store: Store) -> None:
    if isinstance(any_store, SqliteStore):
        assert any_store.sync is None and any_store.conflicts is None
        return
    assert any_store.sync is not None and any_store.conflicts is not None
    assert any_store.sync.last() is None  # a fresh profile has not run Joplin's sync
    assert isinstance(any_store.conflicts.sync_conflicts(), list)
