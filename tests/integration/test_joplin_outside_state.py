"""The Joplin store facing what Joplin itself allows and noted never writes: live notes inside
trashed notebooks, notes it could not decrypt, a change log that started again, notebook cycles.

Each state is made through Joplin's own Data API, as Joplin on another machine (through sync), a
clipper or a script makes it; each test makes its own notebooks in the run's shared Joplin.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.support.joplin import JoplinServer, shared_server

from noted.errors import EncryptedError
from noted.models import NoteDraft, NotePatch
from noted.ops.trash import empty_trash
from noted.store.joplin import JoplinStore
from noted.store.transfer import export_markdown

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


def test_a_note_joplin_has_not_decrypted_is_never_taken_for_an_empty_one(
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

    report = export_markdown(store, tmp_path / "export")
    assert report.encrypted >= 1
    exported = "\n".join(p.read_text() for p in (tmp_path / "export").rglob("*.md"))
    assert plain.id in exported and secret.id not in exported
