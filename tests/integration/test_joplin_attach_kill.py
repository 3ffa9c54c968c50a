"""An attachment added to a note, or removed from it, by a noted killed (SIGKILL) between its two
Data API requests: Joplin has no transactions, so the cut leaves the safe side (an attachment no
note links, never a note linking a missing one), and the next batch of any noted process on the
profile (the next attach) tidies it: deletes it, kept as a version, when no note links it.

Not vacuous: each child is checked to have died of the kill, and the attachment it left is
checked to be in Joplin, linked by no note, before the next attach; an attachment noted did not
leave half done (one uploaded outside a batch, linked by nothing) is checked to stay.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import env_with_src
from tests.support.joplin import JoplinServer, shared_server, wait_until
from tests.support.joplin_proxy import DyingProxy

from noted.errors import NotFoundError, WriteOutcomeUnknownError
from noted.markdown import linked_ids
from noted.models import NoteDraft
from noted.ops.attachments import attach_to_note
from noted.store.joplin import JoplinStore

pytestmark = pytest.mark.slow

KILL_BETWEEN = """
import os, signal, sys
from pathlib import Path
from noted.ops.attachments import attach_to_note, remove_attachment
from noted.store.joplin import JoplinStore
from noted.store.joplin import JoplinStore

root, url, token, note_id, what = Path(sys.argv[1]), *sys.argv[2:6]
store = JoplinStore.open(root, url=url, token=token)

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)  # the first request made, the second not

note = store.get_note(note_id)
if what == "add":
    store.update_note = die  # the attachment uploaded, the note not linking it yet
    attach_to_note(store, note, b"bytes", filename="a.bin", mime="application/octet-stream",
                   title="cut", actor="user")
else:
    store.delete_resource = die  # the note's link removed, the attachment not deleted yet
    remove_attachment(store, note_id, store.list_resources(note_id=note_id)[0].id, delete=True, actor="user")
"""


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


def _exists(store: JoplinStore, resource_id: str) -> bool:
    try:
        store.get_resource(resource_id)
    except NotFoundError:
        return False
    return True


def _attach(store: JoplinStore, note_id: str, title: str) -> str:
    note = store.get_note(note_id)
    made = attach_to_note(
        store,
        note,
        b"file",
        filename=f"{title}.bin",
        mime="application/octet-stream",
        title=title,
        actor="user",
    )
    return made.id


@pytest.mark.parametrize("what", ["add", "remove"])
def test_an_attachment_left_half_done_by_a_kill_is_tidied_when_noted_next_opens(
    joplin: JoplinServer, tmp_path: Path, what: str
) -> None:
    root = tmp_path / "profile"
    store = joplin.store(root)
    try:
        folder = store.create_folder(f"Cut {secrets.token_hex(3)}", actor="user")
        note = store.create_note(NoteDraft("Holder", "Text.\n", folder.id), actor="user")
        old = _attach(store, note.id, "old") if what == "remove" else None
        before = {r.id for r in store.list_resources()}
    finally:
        store.close()
    died = subprocess.run(
        [sys.executable, "-c", KILL_BETWEEN, str(root), joplin.url, joplin.token, note.id, what],
        env=env_with_src(),
        capture_output=True,
        check=False,
    )
    assert died.returncode == -9, died.stderr
    # Read outside noted: a noted store tidies it as it opens.
    newest = {"fields": "id,title", "order_by": "created_time", "order_dir": "DESC", "limit": 100}
    if what == "add":
        listed = joplin.api("GET", "/resources", params=newest)["items"]
        [left] = [r["id"] for r in listed if r["id"] not in before and r["title"] == "cut"]
    else:
        assert old is not None
        left = old
    assert joplin.api("GET", f"/resources/{left}", params={"fields": "id"})["id"] == left  # there
    body = joplin.api("GET", f"/notes/{note.id}", params={"fields": "body"})["body"]
    assert left not in linked_ids(body)  # the safe side: linked by no note
    store = joplin.store(root)
    try:
        wait_until(lambda: not _exists(store, left), what="the attachment left half done deleted")
        new = _attach(store, note.id, "next")
        assert [r.id for r in store.list_resources(note_id=note.id)] == [new]
        assert store.resource_versions(left)  # kept: the deletion can be undone
    finally:
        store.close()


def test_an_attachment_no_batch_left_half_done_stays_unlinked(joplin: JoplinServer, tmp_path: Path) -> None:
    """Another live process's attach in flight, and a file uploaded outside any batch: neither
    is deleted by a batch, though no note links them."""
    root = tmp_path / "profile"
    store, other = joplin.store(root), joplin.store(root)
    try:
        folder = store.create_folder(f"Kept {secrets.token_hex(3)}", actor="user")
        note = store.create_note(NoteDraft("Holder", "Text.\n", folder.id), actor="user")
        loose = store.add_resource(b"loose", filename="loose.bin", mime="", actor="user")
        with store.batch():
            flying = store.add_resource(b"flying", filename="flying.bin", mime="", actor="user")
            _attach(other, note.id, "other")  # its batch finds this one still in flight
            assert store.get_resource(flying.id)
        assert store.get_resource(loose.id)
    finally:
        store.close()
        other.close()


def test_an_attachment_whose_link_lost_its_answer_is_not_deleted_under_the_note(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    """The note's PUT landed and its answer was lost: the attachment was deleted at once, and the
    note linked a missing file. Now it is left to the next batch, which finds the note linking
    it and keeps it (not vacuous: the proxy is checked to have dropped that answer)."""
    root = tmp_path / "profile"
    setup = joplin.store(root)
    try:
        folder = setup.create_folder(f"Lost {secrets.token_hex(3)}", actor="user")
        note = setup.create_note(NoteDraft("Holder", "Text.\n", folder.id), actor="user")
    finally:
        setup.close()
    with DyingProxy(joplin.url, dies_at="PUT /notes", stays_dead=False) as proxy:
        store = JoplinStore.open(root, url=proxy.url, token=joplin.token)
        try:
            with pytest.raises(WriteOutcomeUnknownError):
                _attach(store, note.id, "lost")
        finally:
            store.close()
    assert proxy.died
    store = joplin.store(root)
    try:
        [linked] = linked_ids(store.get_note(note.id).body)  # the PUT landed
        assert store.get_resource(linked)
        _attach(store, note.id, "next")  # the next batch tidies: the note links it, it stays
        assert store.get_resource(linked)
    finally:
        store.close()


def test_a_new_notes_files_are_not_deleted_when_its_write_lost_its_answer(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    """The same for a note made with files: its POST landed, its answer was lost, and the files
    were deleted under it. Not vacuous: the note is checked to be in Joplin, linking the file."""
    from noted.ops.attachments import PickedFile
    from noted.ops.notes import create_note

    root = tmp_path / "profile"
    setup = joplin.store(root)
    try:
        folder = setup.create_folder(f"Lost {secrets.token_hex(3)}", actor="user")
    finally:
        setup.close()
    title = f"New {secrets.token_hex(3)}"
    with DyingProxy(joplin.url, dies_at="POST /notes", stays_dead=False) as proxy:
        store = JoplinStore.open(root, url=proxy.url, token=joplin.token)
        try:
            with pytest.raises(WriteOutcomeUnknownError):
                picked = PickedFile(b"file", "f.bin", "application/octet-stream")
                create_note(store, NoteDraft(title, "Text.\n", folder.id), actor="user", files=[picked])
        finally:
            store.close()
    assert proxy.died
    store = joplin.store(root)
    try:
        [note] = [n for n in store.list_notes(folder_id=folder.id) if n.title == title]
        [linked] = linked_ids(store.get_note(note.id).body)
        assert store.get_resource(linked)
    finally:
        store.close()


def test_a_replace_cut_between_its_two_requests_is_finished_when_noted_next_opens(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    """Joplin takes a file's bytes and title in one request and its name and type in a second. The
    first landed and its answer was lost: the new text sat under the old name and type ("old.png",
    an image) for good. The next noted to open names it after its file. Not vacuous: the proxy is
    checked to have taken the file in, and Joplin to hold the new file (12 bytes) under the old name."""
    from noted.ops.attachments import replace_attachment

    root = tmp_path / "profile"
    setup = joplin.store(root)
    try:
        folder = setup.create_folder(f"Replace {secrets.token_hex(3)}", actor="user")
        note = setup.create_note(NoteDraft("Holder", "Text.\n", folder.id), actor="user")
        made = attach_to_note(
            setup, note, b"\x89PNG old", filename="old.png", mime="image/png", title="pic", actor="user"
        )
    finally:
        setup.close()
    with DyingProxy(joplin.url, dies_at=f"PUT /resources/{made.id}") as proxy:
        store = JoplinStore.open(root, url=proxy.url, token=joplin.token)
        try:
            with pytest.raises(WriteOutcomeUnknownError):
                replace_attachment(
                    store, made.id, b"the new text", filename="new.txt", mime="text/plain", actor="user"
                )
        finally:
            store.close()
    assert proxy.died and proxy.writes == [f"PUT /resources/{made.id}"]
    half = joplin.api("GET", f"/resources/{made.id}", params={"fields": "filename,size"})
    assert (half["filename"], half["size"]) == ("old.png", 12)
    store = joplin.store(root)  # its opening finishes the replace, in the background
    try:
        wait_until(lambda: store.get_resource(made.id).filename == "new.txt", what="the replace finished")
        now = store.get_resource(made.id)
        assert (now.mime, now.file_extension) == ("text/plain", "txt")
        assert store.read_resource(made.id) == b"the new text"
    finally:
        store.close()
