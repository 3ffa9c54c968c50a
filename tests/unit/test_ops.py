"""The note operations the app, the CLI and the tools share, on a real SQLite store.

Each test reads the outcome back from the store and its change feed (who wrote what, and that a
no-op wrote nothing), not from the operation's own report alone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence

import pytest

from noted.errors import ConflictError, DiskFullError, InvalidInputError, NotFoundError
from noted.models import ACTOR_USER, NoteDraft, NotePatch
from noted.ops import notebooks, notes
from noted.ops.attachments import PickedFile
from noted.ops.editing import save_text
from noted.store.sqlite import SqliteStore
from noted.tools import all_tools

MCP = "mcp:test"


def _actors(store: SqliteStore, cursor: int) -> list[str]:
    return [c.actor for c in store.changes_since(cursor).changes]


def _note(store: SqliteStore, title: str = "Plan", *, todo: bool = False) -> tuple[str, str]:
    folder = store.create_folder("Work", actor=ACTOR_USER)
    draft = NoteDraft(title=title, body="x", parent_id=folder.id, is_todo=todo, tags=("old",))
    return folder.id, store.create_note(draft, actor=ACTOR_USER).id


def test_note_operations_write_once_with_the_actor_and_nothing_when_already_so(store: SqliteStore) -> None:
    folder, note = _note(store, todo=True)
    other = store.create_folder("Home", actor=ACTOR_USER).id
    cursor = store.latest_cursor()
    assert notes.move_note(store, note, other, actor=MCP).changed
    assert store.get_note(note).parent_id == other
    assert notes.set_completed(store, note, True, actor=MCP, stamp=1234).note.todo_completed == 1234
    assert notes.trash_note(store, note, actor=MCP).note.is_trashed
    assert not notes.restore_note(store, note, actor=MCP).note.is_trashed
    assert not notes.set_todo(store, note, False, actor=MCP).note.is_todo
    assert _actors(store, cursor) == [MCP] * 5  # one change each, recorded as the caller
    cursor = store.latest_cursor()
    again = [
        notes.move_note(store, note, other, actor=MCP),
        notes.restore_note(store, note, actor=MCP),
        notes.set_todo(store, note, False, actor=MCP),
    ]
    assert [c.changed for c in again] == [False, False, False]
    assert store.latest_cursor() == cursor  # a no-op writes nothing
    with pytest.raises(InvalidInputError, match="not a to-do"):
        notes.set_completed(store, note, True, actor=MCP)
    assert store.latest_cursor() == cursor and folder


def test_tag_edits_report_what_changed(store: SqliteStore) -> None:
    _, note = _note(store)
    change = notes.edit_tags(store, note, ["Work", "old"], ["gone", "OLD"], actor=MCP)
    # "old" is added and removed in one call: the removal runs last, as in the tools before.
    assert change.added == ("Work",) and change.removed == ("OLD",) and change.not_on_note == ("gone",)
    assert change.tags == ("Work",) and {t.title for t in store.note_tags(note)} == {"Work"}
    replaced = notes.set_tags(store, note, ["work", "2025"], actor=MCP)
    assert sorted(replaced.tags) == ["2025", "Work"] and replaced.added == ("2025",)


class _FailingUntag:
    """The real store, except that taking a tag off a note fails as a full disk would."""

    def __init__(self, store: SqliteStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)

    def untag_note(self, note_id: str, titles: Sequence[str], *, actor: str) -> object:
        raise DiskFullError("the disk is full")


def test_a_tag_edit_that_fails_half_way_writes_nothing(store: SqliteStore) -> None:
    _, note = _note(store)
    cursor = store.latest_cursor()
    with pytest.raises(DiskFullError):
        notes.edit_tags(_FailingUntag(store), note, ["new"], ["old"], actor=MCP)  # type: ignore[arg-type]
    # Not vacuous: without the operation's transaction the tag "new" would have been added.
    assert [t.title for t in store.note_tags(note)] == ["old"]
    assert store.latest_cursor() == cursor and store.find_tag("new") is None


def test_notebook_and_tag_operations(store: SqliteStore) -> None:
    top = notebooks.create_notebook(store, "Projects", actor=MCP)
    inner = notebooks.create_notebook(store, "Garden", parent_id=top.id, actor=MCP)
    cursor = store.latest_cursor()
    assert not notebooks.update_notebook(store, inner.id, title="Garden", actor=MCP).changed
    assert store.latest_cursor() == cursor
    assert notebooks.update_notebook(store, inner.id, title="Yard", actor=MCP).folder.title == "Yard"
    assert notebooks.update_notebook(store, inner.id, parent_id="", actor=MCP).folder.parent_id == ""
    with pytest.raises(InvalidInputError, match="own parent"):
        notebooks.update_notebook(store, inner.id, parent_id=inner.id, actor=MCP)
    assert notebooks.trash_notebook(store, inner.id, actor=MCP).folder.is_trashed
    assert not notebooks.trash_notebook(store, inner.id, actor=MCP).changed
    assert not notebooks.restore_notebook(store, inner.id, actor=MCP).folder.is_trashed
    assert set(_actors(store, cursor)) == {MCP}
    _, note = _note(store)
    cursor = store.latest_cursor()
    tag = store.find_tag("old")
    assert tag is not None
    renamed = notebooks.rename_tag(store, tag.id, "older", actor=MCP)
    assert renamed.tag.title == "older" and renamed.previous_title == "old"
    deleted = notebooks.delete_tag(store, tag.id, actor=MCP)
    assert deleted.deleted and deleted.notes == 1 and store.note_tags(note) == []
    assert set(_actors(store, cursor)) == {MCP}


def test_save_text_saves_once_and_reports_a_change_made_meanwhile(store: SqliteStore) -> None:
    _, note_id = _note(store)
    base = store.get_note(note_id)
    saved = save_text(store, base, "Plan", "mine", actor=ACTOR_USER)
    assert saved.note is not None and saved.note.body == "mine" and not saved.conflict
    store.update_note(note_id, NotePatch(body="theirs"), actor=MCP)
    cursor = store.latest_cursor()
    stale = save_text(store, saved.note, "New title", "mine again", actor=ACTOR_USER)
    assert stale.conflict and store.latest_cursor() == cursor  # nothing overwritten
    assert store.get_note(note_id).body == "theirs" and store.get_note(note_id).title == "Plan"


def test_a_note_without_a_notebook_goes_in_the_top_level_inbox(store: SqliteStore) -> None:
    work = store.create_folder("Work", actor=ACTOR_USER).id
    store.create_folder(notes.DEFAULT_NOTEBOOK, parent_id=work, actor=ACTOR_USER)  # not at the top level
    first = notes.create_note(store, NoteDraft(title="a"), actor=MCP)
    inbox = store.get_folder(first.note.parent_id)
    assert first.notebook_created and (inbox.title, inbox.parent_id) == ("Inbox", "")
    second = notes.create_note(store, NoteDraft(title="b"), actor=MCP)
    assert second.note.parent_id == inbox.id and not second.notebook_created
    given = notes.create_note(store, NoteDraft(title="c", parent_id=work), actor=MCP)
    assert given.note.parent_id == work and not given.notebook_created


def test_a_refused_note_leaves_neither_its_notebook_nor_its_attachments(store: SqliteStore) -> None:
    cursor = store.latest_cursor()
    files = [PickedFile(b"hello", "a.txt", "text/plain", "A")]
    with pytest.raises(InvalidInputError):
        notes.create_note(store, NoteDraft(title="two\nlines"), actor=MCP, notebook="New", files=files)
    # Not vacuous: the notebook and the attachment are written before the note is refused.
    assert store.list_resources() == [] and [f.title for f in store.list_folders()] == []
    made = notes.create_note(
        store, NoteDraft(title="ok", body="text"), actor=MCP, notebook="New", files=files
    )
    (resource,) = made.attachments
    assert (
        made.note.body == f"text\n\n[A](:/{resource.id})\n" and store.read_resource(resource.id) == b"hello"
    )
    assert {c.actor for c in store.changes_since(cursor).changes} == {MCP}


def test_an_update_with_tags_is_one_write_that_fails_whole(store: SqliteStore) -> None:
    _, note = _note(store)
    cursor = store.latest_cursor()
    with pytest.raises(InvalidInputError):
        notes.update_note(store, note, NotePatch(body="new"), tags=["fine", " "], actor=MCP)
    # Not vacuous: the body is written before the blank tag is refused.
    assert store.get_note(note).body == "x" and store.latest_cursor() == cursor
    updated = notes.update_note(store, note, NotePatch(body="new"), tags=["fine"], actor=MCP)
    assert updated.body == "new" and [t.title for t in store.note_tags(note)] == ["fine"]


def test_restoring_a_revision_of_another_note_is_refused(store: SqliteStore) -> None:
    folder, note = _note(store)
    other = store.create_note(NoteDraft(title="Other", parent_id=folder), actor=ACTOR_USER).id
    store.update_note(note, NotePatch(body="second"), actor=ACTOR_USER)
    first = store.note_history(note)[-1]
    cursor = store.latest_cursor()
    with pytest.raises(NotFoundError, match=f'no revision {first.id} of note "Other"'):
        notes.restore_revision(store, other, first.id, actor=MCP)
    assert store.latest_cursor() == cursor
    assert notes.restore_revision(store, note, first.id, actor=MCP).body == "x"


def test_undoing_an_edit_refuses_once_the_note_changed_again(store: SqliteStore) -> None:
    _, note = _note(store)
    before = store.get_note(note)
    edited = store.update_note(note, NotePatch(body="edit"), actor=MCP)
    later = store.update_note(note, NotePatch(body="later"), actor=ACTOR_USER)
    with pytest.raises(ConflictError, match="changed after") as refused:
        notes.undo_edit(store, before, edited.updated_time, actor=ACTOR_USER)
    assert store.get_note(note).body == "later"
    # The way out it names keeps the later edit: a revert in the Changes view keeps both sides,
    # where restoring the revision before the edit from the history (as it once said) drops it.
    assert "Changes view" in str(refused.value) and "history" not in str(refused.value)
    assert notes.undo_edit(store, before, later.updated_time, actor=ACTOR_USER).body == "x"


def _loaded(code: str) -> set[str]:
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_importing_the_tools_loads_no_tool_module_until_the_registry_is_built() -> None:
    bare = _loaded("import noted.tools")
    assert "noted.tools.registry" in bare  # not vacuous: the package itself was imported
    assert not {m for m in bare if m in ("noted.tools.search", "noted.tools.note_create", "PIL", "bs4")}
    built = _loaded("import noted.tools\nnoted.tools.all_tools()")
    assert {tool.handler.__module__ for tool in all_tools()} <= built


def test_the_operations_load_neither_the_tools_nor_pillow_nor_textual() -> None:
    loaded = _loaded(
        "import noted.ops.notes, noted.ops.notebooks, noted.ops.attachments, noted.ops.editing, noted.ops.session"
    )
    assert "noted.ops.attachments" in loaded
    assert not {m for m in loaded if m.split(".")[0] in ("PIL", "textual") or m.startswith("noted.tools")}


def test_undoing_an_edit_already_reverted_elsewhere_says_undone_and_writes_nothing(
    store: SqliteStore,
) -> None:
    _, note = _note(store)
    before = store.get_note(note)
    edited = store.update_note(note, NotePatch(body="edit"), actor=MCP)
    store.update_note(note, NotePatch(body="x"), actor=ACTOR_USER)  # reverted (the Changes view's `r`)
    cursor = store.latest_cursor()
    # Not vacuous: this was refused as "the note changed after the assistant's edit; undo it from
    # the note's history instead", though the note was already as it had been before the edit.
    undone = notes.undo_edit(store, before, edited.updated_time, actor=ACTOR_USER)
    assert undone.body == "x" and store.latest_cursor() == cursor
