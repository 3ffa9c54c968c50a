"""An edit made in Joplin's own apps while noted saves the same note: Joplin's Data API has no
conditional write, so noted reads the note, checks it, and puts it back. Joplin's edit is made
here in that window, after noted read the note and before its ``PUT``, at the last request noted
sends before writing (the note's tags, read to keep its place), through the real transport."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.support.joplin import JoplinServer, shared_server

from noted.errors import ConflictError
from noted.models import NoteDraft, NotePatch
from noted.store.joplin import JoplinStore
from noted.store.joplin.client import JoplinClient
from noted.store.joplin.sidecar import SIDECAR_NAME, Sidecar
from noted.store.joplin.store import CACHE_FOLDER

pytestmark = pytest.mark.slow


class EditInTheWindow(httpx.HTTPTransport):
    """The real transport; Joplin's app saves ``body`` into the note at noted's first read of its tags."""

    def __init__(self, joplin: JoplinServer) -> None:
        super().__init__(retries=0)
        self.joplin = joplin
        self.note_id = ""
        self.body = ""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.body and request.method == "GET" and request.url.path == f"/notes/{self.note_id}/tags":
            self.joplin.api("PUT", f"/notes/{self.note_id}", {"body": self.body})
            self.body = ""
        return super().handle_request(request)


@pytest.fixture
def setup(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> Iterator[tuple[JoplinServer, JoplinStore, EditInTheWindow]]:
    joplin = shared_server(tmp_path_factory.getbasetemp())
    window = EditInTheWindow(joplin)
    client = JoplinClient(joplin.url, joplin.token, transport=window)
    root = tmp_path / "profile"
    root.mkdir()
    store = JoplinStore(client, Sidecar.open(root / SIDECAR_NAME), root / CACHE_FOLDER)
    yield joplin, store, window
    store.close()


def _note(store: JoplinStore, window: EditInTheWindow) -> str:
    folder = store.create_folder(f"Window {secrets.token_hex(3)}", actor="user")
    window.note_id = store.create_note(NoteDraft("Plan", "old\n", folder.id), actor="user").id
    return window.note_id


def test_an_append_lands_on_an_edit_made_in_joplin_while_it_was_saved(
    setup: tuple[JoplinServer, JoplinStore, EditInTheWindow],
) -> None:
    """``noted edit --append`` wrote the text it read plus its line over Joplin's edit."""
    joplin, store, window = setup
    note_id = _note(store, window)
    window.body = "old\nwritten in Joplin\n"
    store.update_note(note_id, NotePatch(append="appended by noted"), actor="user")
    assert not window.body  # not vacuous: Joplin's edit was made in the window
    assert joplin.api("GET", f"/notes/{note_id}", params={"fields": "body"})["body"] == (
        "old\nwritten in Joplin\nappended by noted"
    )


def test_a_save_based_on_the_text_read_meets_an_edit_made_in_joplin_meanwhile(
    setup: tuple[JoplinServer, JoplinStore, EditInTheWindow],
) -> None:
    """The editor's save, based on the text it read, wrote over Joplin's edit: it is refused now,
    so the editor keeps both sides as a conflict, and Joplin's edit stays."""
    joplin, store, window = setup
    note_id = _note(store, window)
    base = store.get_note(note_id).updated_time
    window.body = "written in Joplin\n"
    with pytest.raises(ConflictError):
        store.update_note(note_id, NotePatch(body="typed in noted\n"), actor="user", base_updated_time=base)
    assert not window.body
    assert joplin.api("GET", f"/notes/{note_id}", params={"fields": "body"})["body"] == "written in Joplin\n"
    assert all(r.body != "typed in noted\n" for r in store.note_history(note_id))
