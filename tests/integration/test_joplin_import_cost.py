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
