"""Keyword search on Joplin reads the notes changed lately itself (``noted.search.joplin``): what it
remembers of them between searches, and what a scoped search reads. The requests are recorded
below httpx (``tests.support.joplin.Wire``), on the way to the run's real Joplin."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.joplin import JoplinServer, Wire, shared_server, wait_until

from noted.search.joplin import keyword_search_for
from noted.store.joplin import JoplinStore

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


@pytest.fixture
def wire() -> Wire:
    return Wire()


@pytest.fixture
def store(joplin: JoplinServer, tmp_path: Path, wire: Wire) -> Iterator[JoplinStore]:
    s = joplin.store(tmp_path / "profile", wire=wire)
    yield s
    s.close()


def test_a_note_erased_then_made_again_with_its_id_is_found_again(
    joplin: JoplinServer, store: JoplinStore
) -> None:
    """Search remembers a recent note Joplin no longer has, so as not to ask for it again: one
    written again under its id (Joplin's sync bringing it back, a script, an import) must be
    found again, not kept hidden until its feed version happens to move."""
    folder = str(joplin.api("POST", "/folders", {"title": f"Back {secrets.token_hex(3)}"})["id"])
    word = f"w{secrets.token_hex(4)}"
    note = {"title": "Comes back", "body": f"{word} here", "parent_id": folder}
    note_id = str(joplin.api("POST", "/notes", note)["id"])
    keyword = keyword_search_for(store)
    wait_until(lambda: note_id in store.recent_notes(0), what="Joplin's event of the note")
    assert [h.note_id for h in keyword.search(word).hits] == [note_id]
    joplin.api("DELETE", f"/notes/{note_id}", params={"permanent": "1"})
    gone_at = store.latest_cursor()
    wait_until(lambda: store.latest_cursor() > gone_at or not keyword.search(word).hits, what="erased")
    assert keyword.search(word).hits == ()  # not vacuous: missed, so remembered as gone
    joplin.api("POST", "/notes", {**note, "id": note_id})
    assert [h.note_id for h in keyword.search(word).hits] == [note_id]
    joplin.api("DELETE", f"/notes/{note_id}")  # to Joplin's trash, then back, as its app does
    assert keyword.search(word).hits == ()
    joplin.api("PUT", f"/notes/{note_id}", {"deleted_time": 0})
    assert [h.note_id for h in keyword.search(word).hits] == [note_id]
