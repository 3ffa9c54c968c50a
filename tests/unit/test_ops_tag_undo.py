"""Undoing a change of tags (the note list's ``z``) takes away the tags the change made, on every
backend, once no note carries them, and only then."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend

from noted.models import ACTOR_USER, NoteDraft
from noted.ops import notebooks, notes
from noted.store.vault import VaultStore


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def _note(store: LocalStore, title: str, tags: tuple[str, ...] = ()) -> str:
    folder = (
        store.create_folder("Work", actor=ACTOR_USER) if not store.list_folders() else store.list_folders()[0]
    )
    return store.create_note(NoteDraft(title, "text", parent_id=folder.id, tags=tags), actor=ACTOR_USER).id


def _tags(store: LocalStore) -> set[str]:
    return {tag.title for tag in store.list_tags()}


def test_undo_takes_away_the_tags_the_tagging_made(backend_store: LocalStore) -> None:
    store = backend_store
    note = _note(store, "Plan", ("old",))
    notebooks.create_tag(store, "kept", actor=ACTOR_USER)  # there before, on no note: it stays
    done = notes.edit_tags(store, note, ["fresh", "Kept", "old"], [], actor=ACTOR_USER)
    assert [t.title for t in done.created] == ["fresh"]  # "kept" existed, "old" was on the note
    notes.undo_tags(store, done, actor=ACTOR_USER)
    # Not vacuous: before, undo took the tags off the note and left "fresh" as an empty tag.
    # A Markdown folder keeps no tag that no file carries, undo or not.
    assert _tags(store) == ({"old"} if isinstance(store, VaultStore) else {"old", "kept"})
    assert [t.title for t in store.note_tags(note)] == ["old"]


def test_undo_keeps_a_made_tag_another_note_carries_since(backend_store: LocalStore) -> None:
    store = backend_store
    first, second = _note(store, "Plan"), _note(store, "Trip")
    done = notes.edit_tags(store, first, ["fresh"], [], actor=ACTOR_USER)
    notes.edit_tags(store, second, ["fresh"], [], actor=ACTOR_USER)
    notes.trash_note(store, second, actor=ACTOR_USER)  # a note in the trash still carries it
    notes.undo_tags(store, done, actor=ACTOR_USER)
    assert _tags(store) == {"fresh"} and store.note_tags(first) == []


def test_undo_keeps_a_made_tag_renamed_since(backend_store: LocalStore) -> None:
    store = backend_store
    note = _note(store, "Plan")
    done = notes.edit_tags(store, note, ["fresh"], [], actor=ACTOR_USER)
    notebooks.rename_tag(store, done.created[0].id, "Renamed", actor=ACTOR_USER)
    notes.undo_tags(store, done, actor=ACTOR_USER)
    assert _tags(store) == {"Renamed"}  # the person's tag now: undo leaves it
