"""What an import of tagged notes asks of a real Joplin.

Before: each note created with tags had its tags counted afterwards (``tag_note`` answers with the
note's tags and their note counts), which read every note of each of its tags, or followed the
feed to keep them, an answer the import threw away: a shared tag of 1,000 notes was read again
and again, and 500 notes took minutes.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from tests.support.joplin import JoplinServer, Wire, shared_server

from noted.store.joplin import JoplinStore
from noted.store.joplin.places import read_place
from noted.store.transfer import import_markdown

pytestmark = pytest.mark.slow


def test_importing_tagged_notes_does_not_read_the_notes_of_their_tags(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    joplin = shared_server(tmp_path_factory.getbasetemp())
    wire = Wire()
    store = joplin.store(tmp_path / "profile", wire=wire)
    try:
        _import_tagged(joplin, store, wire, tmp_path / "src")
    finally:
        store.close()


def _import_tagged(joplin: JoplinServer, store: JoplinStore, wire: Wire, src: Path) -> None:
    title = f"shared-{secrets.token_hex(4)}"
    tag_id = str(joplin.api("POST", "/tags", {"title": title})["id"])
    folder = str(joplin.api("POST", "/folders", {"title": f"Tagged {secrets.token_hex(3)}"})["id"])
    for i in range(3):
        note = str(
            joplin.api("POST", "/notes", {"title": f"old {i}", "body": "b", "parent_id": folder})["id"]
        )
        joplin.api("POST", f"/tags/{tag_id}/notes", {"id": note})
    src.mkdir()
    for i in range(3):
        (src / f"n{i}.md").write_text(f"---\ntags: [{title}]\n---\nnote {i}\n")
    wire.clear()
    report = import_markdown(store, src)
    assert report.notes_created == 3
    # The tag's notes are listed by /tags/ID/notes; before, each import of a note read them all.
    assert wire.listed(f"/tags/{tag_id}/notes") == 0
    tagged = joplin.api("GET", f"/tags/{tag_id}/notes", params={"fields": "title", "limit": "100"})
    assert {n["title"] for n in tagged["items"]} == {"old 0", "old 1", "old 2", "n0", "n1", "n2"}


def test_a_note_an_import_makes_is_not_read_back_and_its_kept_place_is_joplins(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """Each note made was read back after its POST, and each of its tag links read the note and
    its tags before and after: 17.9 requests a note (``tests/bench/bench_joplin_import.py``). Now
    Joplin's answer and what noted wrote tell them. Not vacuous: the place the feed keeps for each
    note, which the review compares Joplin's with, is still Joplin's, a tag's title as Joplin keeps
    it ("Shared-…" for the file's "shared-…") included."""
    joplin = shared_server(tmp_path_factory.getbasetemp())
    wire = Wire()
    store = joplin.store(tmp_path / "profile", wire=wire)
    try:
        shared = f"Shared-{secrets.token_hex(4)}"
        joplin.api("POST", "/tags", {"title": shared})
        src = tmp_path / f"made-{secrets.token_hex(3)}"
        src.mkdir()
        for i in range(3):
            (src / f"n{i}.md").write_text(f"---\ntags: [{shared.lower()}, new-{i}]\n---\nnote {i}\n")
        wire.clear()
        assert import_markdown(store, src).notes_created == 3
        (folder,) = [f.id for f in store.list_folders() if f.title == src.name]
        notes = [m.id for m in store.list_notes(folder_id=folder)]
        note_reads = [p for m, p, _ in wire.requests if m == "GET" and p.startswith("/notes/")]
        # Per note: the import's match by its id, and the create's check that no note has it.
        assert len(note_reads) == 2 * 3 and not [p for p in note_reads if p.endswith("/tags")]
        for note_id in notes:
            assert store.api.sidecar.kept_place(note_id)[1] == read_place(store.api.client, note_id)
        assert len(notes) == 3
    finally:
        store.close()
