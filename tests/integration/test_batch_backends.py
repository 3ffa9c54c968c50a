"""One approval's changes applied as one unit, on every backend: all written, or none.

On the embedded store and the Markdown folder the batch is one transaction (and the folder's files
written inside are put back when it fails); on Joplin, which has no transactions over its Data
API, the changes already sent are undone. Either way a batch whose last change fails leaves the
notes as they were. Not vacuous: the failing change comes last, after three that succeed on their
own (``test_a_batch_that_holds_is_written_whole`` shows the same calls written).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend
from tests.support.tools_env import Env, make_env

from noted.models import ACTOR_USER, NoteDraft, ToolStatus
from noted.ops.batch_capture import Snapshot, capture, settled
from noted.ops.batch_undo import restore
from noted.store.vault import VaultStore


@pytest.fixture(params=BACKENDS)
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    with open_backend(request.param, tmp_path / "store") as store:
        enabled = ("manage_tags", "update_note", "create_note", "update_notebook", "rename_tag", "create_tag")
        yield make_env(store, tmp_path, enabled=enabled)


def _notes(store: LocalStore) -> tuple[str, list[str]]:
    home = store.create_folder("Home", actor=ACTOR_USER)
    ids = [
        store.create_note(NoteDraft(f"Note {i}", f"text {i}\n", parent_id=home.id), actor=ACTOR_USER).id
        for i in range(3)
    ]
    return home.id, ids


def _calls(folder_id: str, ids: list[str]) -> list[tuple[str, dict[str, object]]]:
    return [
        ("manage_tags", {"note_id": ids[0], "add": ["later"]}),
        ("update_note", {"id": ids[1], "body": "rewritten\n", "title": "Renamed"}),
        ("create_note", {"title": "Summary", "body": "all\n", "notebook_id": folder_id}),
        ("update_note", {"id": ids[2], "append": "more"}),
    ]


def _files(store: LocalStore) -> dict[str, bytes]:
    if not isinstance(store, VaultStore):
        return {}
    return {
        str(p.relative_to(store.vault.root)): p.read_bytes()
        for p in store.vault.root.rglob("*")
        if p.is_file()
    }


async def test_a_batch_that_holds_is_written_whole(env: Env) -> None:
    store = env.store
    folder_id, ids = _notes(store)
    results = await env.registry.call_together(_calls(folder_id, ids), env.ctx, capture(store, notes=ids))
    assert [r.status for r in results] == [ToolStatus.OK] * 4
    assert store.note_tag_titles([ids[0]]) == {ids[0]: ("later",)}
    assert store.get_note(ids[1]).title == "Renamed"
    assert [n.title for n in store.list_notes(folder_id=folder_id) if n.title == "Summary"] == ["Summary"]


async def test_a_change_failing_half_way_leaves_every_note_as_it_was(env: Env) -> None:
    store = env.store
    folder_id, ids = _notes(store)
    states = capture(store, notes=ids)
    store.trash_note(ids[2], actor=ACTOR_USER)  # deleted for good after the person was asked
    store.empty_trash(actor=ACTOR_USER)
    cursor, files = store.latest_cursor(), _files(store)
    results = await env.registry.call_together(_calls(folder_id, ids), env.ctx, states)
    assert [r.ok for r in results] == [False] * 4
    assert all("change 4 (update note) failed" in (r.message or "") for r in results), results
    assert store.note_tag_titles(ids[:2]) == {}
    assert (store.get_note(ids[1]).title, store.get_note(ids[1]).body) == ("Note 1", "text 1\n")
    assert sorted(n.title for n in store.list_notes(folder_id=folder_id)) == ["Note 0", "Note 1"]
    if store.capabilities.transactions:  # one transaction: not a row, not a file was written
        assert store.latest_cursor() == cursor
        assert _files(store) == files


async def test_a_fault_injected_in_the_last_write_leaves_every_note_as_it_was(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store fails (an unexpected error) on the batch's last write, after the others ran."""
    store = env.store
    folder_id, ids = _notes(store)
    cursor, files = store.latest_cursor(), _files(store)
    real = store.update_note

    def failing(note_id: str, patch: Any, **kwargs: Any) -> Any:
        if note_id == ids[2]:
            raise RuntimeError("injected fault")
        return real(note_id, patch, **kwargs)

    monkeypatch.setattr(store, "update_note", failing)
    results = await env.registry.call_together(_calls(folder_id, ids), env.ctx, capture(store, notes=ids))
    assert results[3].status is ToolStatus.INTERNAL
    assert all("change 4 (update note) failed" in (r.message or "") for r in results), results
    monkeypatch.undo()
    assert store.note_tag_titles(ids) == {}
    assert [(store.get_note(i).title, store.get_note(i).body) for i in ids] == [
        (f"Note {i}", f"text {i}\n") for i in range(3)
    ]
    assert sorted(n.title for n in store.list_notes(folder_id=folder_id)) == ["Note 0", "Note 1", "Note 2"]
    if store.capabilities.transactions:
        assert store.latest_cursor() == cursor
        assert _files(store) == files


def _before(env: Env, calls: list[tuple[str, dict[str, object]]]) -> Snapshot:
    """What the calls name, as the chat keeps it before a batch (from each tool's ``undo``)."""
    named: tuple[list[str], list[str], list[str], list[str]] = ([], [], [], [])
    for name, args in calls:
        tool = env.registry.get(name)
        assert tool is not None and tool.undo is not None
        for kept, more in zip(named, tool.undo.named(args), strict=True):
            kept += more
    return capture(env.store, notes=named[0], folders=named[1], tags=named[2], files=named[3])


async def test_an_undo_puts_back_notebooks_and_tags_and_leaves_what_was_tagged_since(env: Env) -> None:
    """Tagging a note changes no ``updated_time`` (on every backend), so the undo once took the
    person's later tag off with the batch's; a renamed notebook or tag, a tag the batch made, stayed."""
    store = env.store
    folder_id, ids = _notes(store)
    store.tag_note(ids[1], ["old"], actor=ACTOR_USER)
    old = store.find_tag("old")
    assert old is not None
    calls: list[tuple[str, dict[str, object]]] = [
        ("manage_tags", {"note_id": ids[0], "add": ["later"]}),
        ("manage_tags", {"note_id": ids[2], "add": ["later"]}),
        ("update_notebook", {"id": folder_id, "title": "House"}),
        ("rename_tag", {"id": old.id, "title": "older"}),
        ("create_tag", {"title": "fresh"}),
        ("create_note", {"title": "Summary", "body": "all\n", "notebook_id": folder_id}),
    ]
    before = _before(env, calls)
    results = await env.registry.call_together(calls, env.ctx, before)
    assert all(r.ok for r in results), results
    batch = settled(store, before, env.ctx.actor)
    store.tag_note(ids[0], ["mine"], actor=ACTOR_USER)  # the person, after the batch

    undone = restore(store, batch, actor=ACTOR_USER)

    assert undone.kept == ('note "Note 0"',)
    assert sorted(store.note_tag_titles([ids[0]])[ids[0]]) == ["later", "mine"]
    assert store.note_tag_titles([ids[2]]) == {}
    assert store.get_folder(folder_id).title == "Home"
    assert store.get_tag(old.id).title == "old" and store.note_tag_titles([ids[1]]) == {ids[1]: ("old",)}
    assert store.find_tag("fresh") is None
    assert sorted(n.title for n in store.list_notes(folder_id=folder_id)) == ["Note 0", "Note 1", "Note 2"]
