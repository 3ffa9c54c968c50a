"""No attachment version is lost: a replace or a delete keeps what it takes away, on every backend,
and ``restore_resource_version`` puts it back under the same id (a deleted attachment included)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, body_with_ids, open_backend

from noted.errors import NotFoundError
from noted.models import NoteDraft
from noted.store.history.thinning import DAY_MS
from noted.store.protocol import Store
from noted.store.sqlite import SqliteStore


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_backend(request.param, tmp_path) as store:
        yield store


def _attached(store: Store) -> tuple[str, str]:
    """An attachment linked from a note (so the Markdown folder writes it into the folder)."""
    folder = store.create_folder("F", actor="user")
    res = store.add_resource(
        b"first bytes", filename="shot.png", mime="image/png", title="Shot", actor="user"
    )
    note = store.create_note(NoteDraft("n", f"![Shot](:/{res.id})", folder.id), actor="user")
    return res.id, note.id


def test_a_replace_keeps_the_old_version_and_restoring_it_keeps_the_replacement(backend_store: Store) -> None:
    store = backend_store
    res_id, _ = _attached(store)
    store.replace_resource(res_id, b"second bytes", filename="shot2.jpg", mime="image/jpeg", actor="mcp:app")
    assert store.read_resource(res_id) == b"second bytes"
    [kept] = store.resource_versions(res_id)
    # Without the versions, the first bytes were gone for good here.
    assert (kept.actor, kept.deleted, kept.resource.filename, kept.resource.size) == (
        "mcp:app",
        False,
        "shot.png",
        11,
    )
    restored = store.restore_resource_version(res_id, kept.id, actor="user")
    assert (restored.id, restored.filename, restored.mime) == (res_id, "shot.png", "image/png")
    assert store.read_resource(res_id) == b"first bytes"
    newest = store.resource_versions(res_id)[0]
    assert (newest.actor, newest.resource.filename, newest.resource.size) == ("user", "shot2.jpg", 12)


def test_a_deleted_attachment_comes_back_under_its_id(backend_store: Store) -> None:
    store = backend_store
    res_id, note_id = _attached(store)
    store.delete_resource(res_id, actor="assistant:c1")
    with pytest.raises(NotFoundError):
        store.get_resource(res_id)
    [kept] = store.resource_versions(res_id)
    assert (kept.actor, kept.deleted, kept.resource.title) == ("assistant:c1", True, "Shot")
    back = store.restore_resource_version(res_id, kept.id, actor="user")
    assert (back.id, back.title, back.filename, back.mime) == (res_id, "Shot", "shot.png", "image/png")
    assert store.read_resource(res_id) == b"first bytes"
    assert f":/{res_id}" in body_with_ids(store, note_id)  # the note's link works again


def test_a_version_of_another_attachment_is_refused_and_nothing_changes(backend_store: Store) -> None:
    store = backend_store
    res_id, _ = _attached(store)
    other = store.add_resource(b"other", filename="o.txt", mime="text/plain", actor="user")
    store.replace_resource(other.id, b"other 2", actor="user")
    [kept] = store.resource_versions(other.id)
    with pytest.raises(NotFoundError):
        store.restore_resource_version(res_id, kept.id, actor="user")
    assert store.read_resource(res_id) == b"first bytes" and store.resource_versions(res_id) == []


def test_thinned_versions_take_their_files_and_only_theirs(tmp_path: Path) -> None:
    """Versions follow the note history's rule; a thinned one's file goes, the newest stays."""
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    try:
        res = store.add_resource(b"v0", filename="a.txt", mime="text/plain", actor="user")
        for i in range(1, 4):
            store.replace_resource(res.id, f"v{i}".encode(), actor="user")
        folder = store.versions.folder
        stranger = folder / "not-noted.txt"
        stranger.write_text("mine")
        assert len(list(folder.glob(f"{res.id}-*"))) == 3
        pruned = store.prune_history(now=store.resource_versions(res.id)[0].time + 30 * DAY_MS)
        assert pruned.versions == 2
        [left] = store.resource_versions(res.id)
        assert store.versions.read(left.id) == b"v2"
        assert len(list(folder.glob(f"{res.id}-*"))) == 1 and stranger.read_text() == "mine"
    finally:
        store.close()


def test_thinning_keeps_the_file_a_person_brought_back_after_a_models_delete(backend_store: Store) -> None:
    """The person restores what the model deleted, then the model replaces it twice: the restored
    file is the person's (the feed's create, not the delete's actor, made it), so it stays when
    all is old. Taking the version before as its maker, the delete's model, dropped it."""
    store = backend_store
    res = store.add_resource(b"A", filename="a.txt", mime="text/plain", actor="user")
    store.replace_resource(res.id, b"BB", actor="mcp:x")
    store.delete_resource(res.id, actor="mcp:x")
    deleted = store.resource_versions(res.id)[0]
    store.restore_resource_version(res.id, deleted.id, actor="user")  # BB again, as the person's
    store.replace_resource(res.id, b"CCC", actor="mcp:x")
    store.replace_resource(res.id, b"DDDD", actor="mcp:x")
    store.prune_history(now=store.resource_versions(res.id)[0].time + 30 * DAY_MS)
    left = [(v.resource.size, v.deleted) for v in store.resource_versions(res.id)]
    # Each writer's last state before another took over: CCC (newest), BB as the person brought
    # it back, BB as the model left it (deleting it), A as the person attached it.
    assert left == [(3, False), (2, False), (2, True), (1, False)], left


class _Failed(Exception):
    """A later write of the batch failed."""


@pytest.mark.parametrize("kind", [b for b in BACKENDS if b != "joplin"])
def test_a_batch_that_rolls_back_puts_the_attachments_bytes_back_with_its_row(
    kind: str, tmp_path: Path
) -> None:
    """The chat's approved writes run as one batch: a replace (or delete) and then a failing write
    rolled the rows back, but the file kept the new bytes (or was gone), and the kept version's
    row rolled back too: the old bytes were lost."""
    with open_backend(kind, tmp_path) as store:
        res_id, _ = _attached(store)
        with pytest.raises(_Failed), store.batch():
            store.replace_resource(res_id, b"second bytes", filename="shot2.jpg", actor="mcp:app")
            raise _Failed
        assert store.get_resource(res_id).filename == "shot.png"
        assert store.read_resource(res_id) == b"first bytes"
        assert store.resource_versions(res_id) == []
        with pytest.raises(_Failed), store.batch():
            store.delete_resource(res_id, actor="mcp:app")
            raise _Failed
        assert store.read_resource(res_id) == b"first bytes"
        # And a batch that commits keeps its change, with the version.
        with store.batch():
            store.replace_resource(res_id, b"third bytes", actor="mcp:app")
        assert store.read_resource(res_id) == b"third bytes"
        assert [v.resource.size for v in store.resource_versions(res_id)] == [11]
