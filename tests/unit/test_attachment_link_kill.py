"""An attachment added to a note, or removed from it, by a noted killed (SIGKILL) between its two
writes (the attachment's row and the note's link): all or nothing at the next open, never an
attachment that no note links (found by ``crash_loop_more.py attach``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import env_with_src

from noted.models import NoteDraft
from noted.ops.attachments import attach_to_note
from noted.store.sqlite import SqliteStore

KILL_BETWEEN = """
import os, signal, sys
from pathlib import Path
from noted.ops.attachments import attach_to_note, remove_attachment
from noted.store.sqlite import SqliteStore

root, what = Path(sys.argv[1]), sys.argv[2]
store = SqliteStore.open(root / "notes.db", root / "resources")
note = next(m for m in store.list_notes() if m.title == "Holder")

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)  # the first write made, the second not

if what == "add":
    store.update_note = die  # the attachment stored, the note not linking it yet
    attach_to_note(store, store.get_note(note.id), b"bytes", filename="a.bin", mime="application/octet-stream",
                   title="a", actor="user")
else:
    store.delete_resource = die  # the note's link removed, the attachment not deleted yet
    remove_attachment(store, note.id, store.list_resources()[0].id, delete=True, actor="user")
"""


@pytest.mark.parametrize("what", ["add", "remove"])
def test_a_kill_between_an_attachments_row_and_its_link_leaves_no_attachment_unlinked(
    tmp_path: Path, what: str
) -> None:
    """Not vacuous: the child is checked to have died of the kill, in the middle of the change."""
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    try:
        folder = store.create_folder("Inbox", actor="user")
        note = store.create_note(NoteDraft(title="Holder", body="Text.\n", parent_id=folder.id), actor="user")
        if what == "remove":
            attach_to_note(
                store,
                note,
                b"old",
                filename="o.bin",
                mime="application/octet-stream",
                title="o",
                actor="user",
            )
    finally:
        store.close()
    died = subprocess.run(
        [sys.executable, "-c", KILL_BETWEEN, str(tmp_path), what], env=env_with_src(), check=False
    )
    assert died.returncode == -9
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    try:
        unlinked = [r.title for r in store.list_resources() if not store.resource_notes(r.id)]
        assert unlinked == []
        assert len(store.list_resources()) == (0 if what == "add" else 1)
    finally:
        store.close()


def test_an_attachment_deleted_in_a_batch_leaves_its_file_when_the_batch_commits(tmp_path: Path) -> None:
    """Not vacuous: the file is checked to be there inside the batch (a rollback must find it)
    and gone right after the commit, the store still open (before, it went only at close)."""
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    try:
        folder = store.create_folder("Inbox", actor="user")
        note = store.create_note(NoteDraft(title="Holder", body="Text.\n", parent_id=folder.id), actor="user")
        attach_to_note(
            store, note, b"old", filename="o.bin", mime="application/octet-stream", title="o", actor="user"
        )
        [resource] = store.list_resources()
        path = store.resource_path(resource.id)
        with store.batch():
            store.delete_resource(resource.id, actor="user")
            assert path.exists()
        assert not path.exists()
    finally:
        store.close()
