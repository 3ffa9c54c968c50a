"""The Joplin store facing what Joplin itself allows and noted never writes: live notes inside
trashed notebooks, notes it could not decrypt, a change log that started again, notebook cycles.

Each state is made through Joplin's own Data API, as Joplin on another machine (through sync), a
clipper or a script makes it; each test makes its own notebooks in the run's shared Joplin.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.support.joplin import JoplinServer, shared_server, wait_until
from tests.support.joplin_proxy import DyingProxy
from tests.support.tools_env import make_env

from noted.cli.render import folder_lines
from noted.errors import EncryptedError, NotedError, PartlyDoneError
from noted.models import Change, ChangeType, NoteDraft, NotePatch
from noted.ops.attachments import PickedFile
from noted.ops.notebooks import update_notebook
from noted.ops.notes import create_note
from noted.ops.resolve import folder_paths, resolve_folder
from noted.ops.trash import empty_trash
from noted.store.joplin import ACTOR_JOPLIN, JoplinStore
from noted.store.transfer import export_markdown, import_markdown

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


@pytest.fixture
def store(joplin: JoplinServer, tmp_path: Path) -> Iterator[JoplinStore]:
    s = joplin.store(tmp_path / "profile")
    yield s
    s.close()


def _name(title: str) -> str:
    return f"{title} {secrets.token_hex(3)}"


def _exists(joplin: JoplinServer, kind: str, item_id: str) -> bool:
    try:
        joplin.api("GET", f"/{kind}/{item_id}", params={"fields": "id"})
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code == 404:
            return False
        raise
    return True


def test_emptying_the_trash_erases_nothing_that_is_not_in_it(
    joplin: JoplinServer, store: JoplinStore
) -> None:
    """Joplin erases a notebook with all it holds: a live note written into a trashed notebook
    (by Joplin on a laptop, before a sync) was erased unasked, and the answer never named it."""
    doomed = store.create_folder(_name("Doomed"), actor="user")
    store.trash_folder(doomed.id, actor="user")
    laptop = joplin.api(
        "POST", "/notes", {"title": "Written on laptop", "body": "important", "parent_id": doomed.id}
    )
    parent = store.create_folder(_name("Parent"), actor="user")
    store.trash_folder(parent.id, actor="user")
    live_sub = joplin.api("POST", "/folders", {"title": "Live sub", "parent_id": parent.id})
    in_sub = joplin.api(
        "POST", "/notes", {"title": "In the live sub", "body": "x", "parent_id": live_sub["id"]}
    )
    gone = store.create_folder(_name("Gone"), actor="user")
    gone_note = store.create_note(NoteDraft("Trashed with it", "", gone.id), actor="user")
    store.trash_folder(gone.id, actor="user")

    emptied = empty_trash(store, actor="user")

    # What was in the trash went, and only that (the check would fail had nothing been erased).
    assert not _exists(joplin, "folders", gone.id) and not _exists(joplin, "notes", gone_note.id)
    for kind, item_id in (("notes", laptop["id"]), ("folders", live_sub["id"]), ("notes", in_sub["id"])):
        assert _exists(joplin, kind, item_id), f"{kind} {item_id} was erased"
    assert store.get_folder(doomed.id).is_trashed and store.get_folder(parent.id).is_trashed
    assert {doomed.id, parent.id} <= {f.id for f in emptied.held}
    said = str(emptied)
    assert f'"{doomed.title}"' in said and f'"{parent.title}"' in said
    assert "notes or notebooks in them are not in the trash" in said


async def test_a_note_joplin_has_not_decrypted_is_never_taken_for_an_empty_one(
    joplin: JoplinServer, store: JoplinStore, tmp_path: Path
) -> None:
    """It showed with an empty title and body, was exported as an empty ``Untitled.md``, and an
    edit failed with Joplin's raw "500 … Encrypted items cannot be modified"."""
    folder = store.create_folder(_name("Vaulted"), actor="user")
    secret = store.create_note(NoteDraft("Secret plan", "the plan", folder.id), actor="user")
    plain = store.create_note(NoteDraft("Open plan", "visible", folder.id), actor="user")
    joplin.as_if_encrypted(secret.id)

    with pytest.raises(EncryptedError, match="encrypted and Joplin has not decrypted it yet"):
        store.get_note(secret.id)
    with pytest.raises(EncryptedError):
        store.update_note(secret.id, NotePatch(append="more"), actor="user")
    assert [n.id for n in store.get_notes([secret.id, plain.id])] == [plain.id]
    listed = {m.id: m.encrypted for m in store.list_notes(folder_id=folder.id)}
    assert listed == {secret.id: True, plain.id: False}
    # The assistant's and AI apps' listings say so too, rather than show a note with no title.
    env = make_env(store, tmp_path)
    for tool, args in (
        ("list_notes", {"notebook_id": folder.id}),
        ("list_notebook_notes", {"notebook_id": folder.id}),
    ):
        rows = {r["id"]: r for r in (await env.ok(tool, **args))["notes"]}
        assert rows[secret.id]["title"].startswith("(encrypted"), tool
        assert rows[plain.id]["title"] == "Open plan"
    rows = {r["id"]: r for r in (await env.ok("list_notes", notebook_id=folder.id))["notes"]}
    assert rows[secret.id]["encrypted"] is True and "encrypted" not in rows[plain.id]

    report = export_markdown(store, tmp_path / "export")
    assert report.encrypted >= 1
    exported = "\n".join(p.read_text() for p in (tmp_path / "export").rglob("*.md"))
    assert plain.id in exported and secret.id not in exported


def test_a_change_log_that_started_again_is_noticed_and_every_note_looked_at_afresh(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    """Joplin answers a cursor past its newest change with nothing, as when nothing changed: after
    a re-download noted saw no change until Joplin's new ids passed its cursor, so the index kept a
    note Joplin no longer had and never took in the new ones."""
    root = tmp_path / "profile"
    first = joplin.store(root)
    folder = first.create_folder(_name("Before"), actor="user")
    kept, gone = [first.create_note(NoteDraft(t, "x", folder.id), actor="user") for t in ("Kept", "Gone")]
    time.sleep(1.2)  # out of the second in which a change is taken for noted's write
    joplin.api("PUT", f"/notes/{kept.id}", {"body": "edited in Joplin"})
    wait_until(lambda: _mirrored_edit(first, kept.id), what="the edit made in Joplin, in the feed")
    old = first.api.sidecar.joplin_cursor() or 0  # the id of that edit in Joplin's log
    first.close()

    joplin.restart_change_log(gone=[gone.id], after=old - 2)
    new = joplin.api("POST", "/notes", {"title": "New", "parent_id": folder.id})["id"]
    wait_until(lambda: _newest_change(joplin) == old - 1, what="Joplin's record of the new note")

    store = joplin.store(root)  # the next run of noted
    try:
        last = {c.item_id: c.change_type for c in _feed(store)}  # each item's newest change
        assert last.get(gone.id) is ChangeType.DELETE
        assert last.get(kept.id) is ChangeType.UPDATE
        assert new in last
        # Its id is that of the edit noted mirrored before: it must find the row free.
        later = joplin.api("POST", "/notes", {"title": "Later", "parent_id": folder.id})["id"]
        wait_until(lambda: later in {c.item_id for c in _feed(store)}, what="a change made after")
    finally:
        store.close()


def _mirrored_edit(store: JoplinStore, note_id: str) -> bool:
    return any(c.item_id == note_id and c.actor == ACTOR_JOPLIN for c in _feed(store))


def _newest_change(joplin: JoplinServer) -> int:
    return int(joplin.api("GET", "/events")["cursor"])


def _feed(store: JoplinStore) -> list[Change]:
    """The store's whole feed, oldest first."""
    changes: list[Change] = []
    cursor = 0
    while True:
        page = store.changes_since(cursor)
        changes += page.changes
        if not page.has_more:
            return changes
        cursor = page.cursor


def test_a_notebook_loop_joplin_accepted_is_listed_once_each_and_mended_by_a_move(
    joplin: JoplinServer, store: JoplinStore
) -> None:
    """Joplin takes a notebook moved under its own sub-notebook; the loop hung from no top-level
    notebook, so all its notebooks vanished from the tree (and the app's) without a word."""
    tag = secrets.token_hex(3)
    chain = [store.create_folder(f"Level1 {tag}", actor="user")]
    for depth in range(2, 6):
        chain.append(store.create_folder(f"Level{depth} {tag}", parent_id=chain[-1].id, actor="user"))
    note = store.create_note(NoteDraft("Inside", "", chain[2].id), actor="user")

    def shown() -> list[str]:
        lines = folder_lines(store.list_folders(), store.folder_note_counts())
        return [line.split("  ", 1)[1] for line in lines if tag in line]

    joplin.api("PUT", f"/folders/{chain[0].id}", {"parent_id": chain[-1].id})
    try:
        assert shown() == [
            f"Level1 {tag} (0, 1 with sub-notebooks)",
            f"  Level2 {tag} (0, 1 with sub-notebooks)",
            f"    Level3 {tag} (1)",
            f"      Level4 {tag} (0)",
            f"        Level5 {tag} (0)",
        ]
        path = folder_paths(store.list_folders())[chain[2].id]
        assert path == f"Level1 {tag}/Level2 {tag}/Level3 {tag}"
        assert resolve_folder(store, path).id == chain[2].id
        assert [m.id for m in store.list_notes(folder_id=chain[2].id)] == [note.id]
    finally:  # mended, as a person would: Joplin's own erasing of a loop never ends
        update_notebook(store, chain[0].id, parent_id="", actor="user")
    assert store.get_folder(chain[0].id).parent_id == ""
    assert len(shown()) == 5


def test_a_note_created_before_joplin_died_is_named_so_it_is_not_made_twice(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    """The note was written and its tag was not: the command said only "may or may not have
    been saved", without the note's id, and the attachment it linked was deleted again."""
    folder = joplin.store(tmp_path / "setup").create_folder(_name("Dying"), actor="user")
    with DyingProxy(joplin.url, dies_at="POST /tags") as proxy:
        store = JoplinStore.open(tmp_path / "profile", url=proxy.url, token=joplin.token)
        picked = PickedFile(b"%PDF-1.4 fake", "scan.pdf", "application/pdf")
        try:
            with pytest.raises(PartlyDoneError) as caught:
                create_note(
                    store, NoteDraft("Plan", "", folder.id, tags=("t1",)), actor="user", files=[picked]
                )
        finally:
            store.close()
    notes = joplin.api("GET", f"/folders/{folder.id}/notes", params={"fields": "id,body"})["items"]
    assert len(notes) == 1
    said = str(caught.value)
    assert f'note "Plan" was created ({notes[0]["id"]}), but not all its tags were added' in said
    assert f"noted tag {notes[0]['id'][:8]} t1" in said
    resource = notes[0]["body"].split("(:/")[1][:32]
    assert _exists(joplin, "resources", resource)  # the note links it: it stays


def test_emptying_the_trash_when_joplin_dies_says_how_far_it_got(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    setup = joplin.store(tmp_path / "setup")
    empty_trash(setup, actor="user")  # only this test's notes in the trash
    folder = setup.create_folder(_name("Bin"), actor="user")
    for title in ("one", "two", "three"):
        setup.trash_note(setup.create_note(NoteDraft(title, "", folder.id), actor="user").id, actor="user")
    with DyingProxy(joplin.url, dies_at="DELETE /notes", after=1) as proxy:
        store = JoplinStore.open(tmp_path / "profile", url=proxy.url, token=joplin.token)
        try:
            with pytest.raises(PartlyDoneError, match="erased 1 of the 3 notes in the trash, but erasing"):
                empty_trash(store, actor="user")
        finally:
            store.close()


def test_an_import_cut_short_by_joplin_counts_the_notes_it_wrote(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    """On Joplin each note lands as it is sent: a failure in the first slice said nothing of the
    notes already written."""
    source = tmp_path / _name("Imported").replace(" ", "-")
    source.mkdir()
    for i in range(5):
        (source / f"note{i}.md").write_text(f"body {i}\n")
    with DyingProxy(joplin.url, dies_at="POST /notes", after=2) as proxy:
        store = JoplinStore.open(tmp_path / "profile", url=proxy.url, token=joplin.token)
        try:
            with pytest.raises(NotedError) as caught:
                import_markdown(store, source)
        finally:
            store.close()
    assert "the import stopped after 2 notes of 5" in str(caught.value)
    assert "look at the item" not in str(caught.value)  # importing again is safe: it is what to do
