"""The store's attachment and feed methods: ``replace_resource`` and ``item_changes`` (every backend has them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, open_backend

from noted.errors import NotFoundError
from noted.models import ChangeType, ItemType, NoteDraft
from noted.store.protocol import Store


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_backend(request.param, tmp_path) as store:
        yield store


def test_replace_resource_keeps_the_id_and_links_and_swaps_the_bytes(backend_store: Store) -> None:
    store = backend_store
    folder = store.create_folder("F", actor="user")
    res = store.add_resource(b"old bytes", filename="shot.png", mime="image/png", title="Shot", actor="user")
    note = store.create_note(NoteDraft("n", f"![Shot](:/{res.id})", folder.id), actor="user")
    cursor = store.latest_cursor()
    new = store.replace_resource(
        res.id, b"brand new bytes", mime="image/jpeg", filename="shot.jpg", actor="app"
    )
    assert (new.id, new.size, new.mime, new.filename, new.title) == (
        res.id,
        15,
        "image/jpeg",
        "shot.jpg",
        "Shot",
    )
    assert new.updated_time > res.updated_time and new.created_time == res.created_time
    assert store.read_resource(res.id) == b"brand new bytes"
    assert store.get_resource(res.id) == new
    assert store.resource_notes(res.id) == [note.id]
    changes = store.changes_since(cursor).changes
    assert [(c.item_type, c.item_id, c.change_type, c.actor) for c in changes] == [
        (ItemType.RESOURCE, res.id, ChangeType.UPDATE, "app")
    ]


def test_replace_resource_keeps_name_type_and_title_unless_given(backend_store: Store) -> None:
    res = backend_store.add_resource(b"a", filename="a.txt", mime="text/plain", title="A", actor="user")
    new = backend_store.replace_resource(res.id, b"bb", actor="user")
    assert (new.filename, new.mime, new.title, new.size) == ("a.txt", "text/plain", "A", 2)
    renamed = backend_store.replace_resource(res.id, b"ccc", title="Renamed", actor="user")
    assert renamed.title == "Renamed" and backend_store.read_resource(res.id) == b"ccc"


def test_replace_resource_of_an_unknown_id_is_not_found_and_writes_nothing(backend_store: Store) -> None:
    cursor = backend_store.latest_cursor()
    with pytest.raises(NotFoundError):
        backend_store.replace_resource("0" * 32, b"x", actor="user")
    assert backend_store.latest_cursor() == cursor


def test_sqlite_replace_leaves_one_file_under_the_new_extension(store: Store, tmp_path: Path) -> None:
    res = store.add_resource(b"png", filename="a.png", mime="image/png", actor="user")
    store.replace_resource(res.id, b"jpeg", filename="a.jpg", mime="image/jpeg", actor="user")
    assert sorted(p.name for p in (tmp_path / "resources").iterdir()) == [f"{res.id}.jpg"]


def test_item_changes_are_the_changes_of_those_items_newest_first(backend_store: Store) -> None:
    store = backend_store
    folder = store.create_folder("F", actor="user")
    other = store.create_folder("Other", actor="user")
    note = store.create_note(NoteDraft("n", "", folder.id), actor="app")
    store.create_note(NoteDraft("elsewhere", "", other.id), actor="user")
    store.tag_note(note.id, ["t"], actor="app")
    store.update_folder(folder.id, title="G", actor="app")
    got = store.item_changes([note.id, folder.id])
    kinds = [(c.item_type, c.change_type, c.actor) for c in got]
    assert kinds == [
        (ItemType.FOLDER, ChangeType.UPDATE, "app"),
        (ItemType.NOTE_TAG, ChangeType.CREATE, "app"),
        (ItemType.NOTE, ChangeType.CREATE, "app"),
        (ItemType.FOLDER, ChangeType.CREATE, "user"),
    ]
    assert [c.item_type for c in store.item_changes([note.id, folder.id], limit=2)] == [
        ItemType.FOLDER,
        ItemType.NOTE_TAG,
    ]
    assert store.item_changes([]) == [] and store.item_changes(["0" * 32]) == []
