"""Keyword search on Joplin reads the notes changed lately itself (``noted.search.joplin``): what it
remembers of them between searches, and what a scoped search reads. The requests are recorded
below httpx (``tests.support.joplin.Wire``), on the way to the run's real Joplin."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.joplin import JoplinServer, Wire, shared_server, wait_until

from noted.search.joplin import JoplinKeywordSearch, keyword_search_for
from noted.store.joplin import JoplinStore

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


@pytest.fixture
def wired(joplin: JoplinServer, tmp_path: Path) -> Iterator[tuple[JoplinStore, Wire]]:
    """A store on the run's Joplin, and what it asks there."""
    wire = Wire()
    store = joplin.store(tmp_path / "profile", wire=wire)
    yield store, wire
    store.close()


def test_a_note_erased_then_made_again_with_its_id_is_found_again(
    joplin: JoplinServer, wired: tuple[JoplinStore, Wire]
) -> None:
    """Search remembers a recent note Joplin no longer has, so as not to ask for it again: one
    written again under its id (Joplin's sync bringing it back, a script, an import) must be
    found again, not kept hidden for good. Joplin records a change just after it answers, so each
    step is awaited (a miss remembered for good would time out)."""
    folder = str(joplin.api("POST", "/folders", {"title": f"Back {secrets.token_hex(3)}"})["id"])
    word = f"w{secrets.token_hex(4)}"
    note = {"title": "Comes back", "body": f"{word} here", "parent_id": folder}
    note_id = str(joplin.api("POST", "/notes", note)["id"])
    keyword = JoplinKeywordSearch(wired[0])

    def found() -> list[str]:
        return [h.note_id for h in keyword.search(word).hits]

    wait_until(lambda: found() == [note_id], what="the new note found")
    joplin.api("DELETE", f"/notes/{note_id}", params={"permanent": "1"})
    wait_until(lambda: found() == [] and note_id in keyword._gone, what="the erased note missed")
    joplin.api("POST", "/notes", {**note, "id": note_id})
    wait_until(lambda: found() == [note_id], what="the note made again found again")
    joplin.api("DELETE", f"/notes/{note_id}")  # to Joplin's trash, then back, as its app does
    wait_until(lambda: found() == [], what="the trashed note not found")
    joplin.api("PUT", f"/notes/{note_id}", {"deleted_time": 0})
    wait_until(lambda: found() == [note_id], what="the note restored from the trash found again")


def test_a_scoped_search_reads_only_the_recent_notes_of_its_notebooks(
    joplin: JoplinServer, wired: tuple[JoplinStore, Wire]
) -> None:
    """An MCP client's first search, scoped to one notebook, read every note changed in the last
    week, in every notebook, bodies and all; it now reads the scope's notebook only."""
    store, wire = wired
    word = f"w{secrets.token_hex(4)}"
    outside = str(joplin.api("POST", "/folders", {"title": f"Outside {secrets.token_hex(3)}"})["id"])
    others = [
        str(joplin.api("POST", "/notes", {"title": "Other", "body": word, "parent_id": outside})["id"])
        for _ in range(60)
    ]
    scope = str(joplin.api("POST", "/folders", {"title": f"Scope {secrets.token_hex(3)}"})["id"])
    mine = str(joplin.api("POST", "/notes", {"title": "Mine", "body": word, "parent_id": scope})["id"])
    wait_until(lambda: {mine, *others} <= set(store.recent_notes(0)), what="Joplin's events")
    keyword = keyword_search_for(store)
    wire.clear()
    found = keyword.search(word, folder_ids=frozenset({scope}))
    assert [h.note_id for h in found.hits] == [mine]
    read = [
        (path, query)
        for _, path, query in wire.requests
        if path == "/notes" or path.removeprefix("/notes/") in others
    ]
    assert not read, read[:3]  # not vacuous: 60 recent notes outside were read, then listed whole
    assert {h.note_id for h in keyword.search(word, limit=100).hits} == {mine, *others}
    scoped = keyword.search(word, note_ids=[others[0]])
    assert [h.note_id for h in scoped.hits] == [others[0]]


def test_joplin_is_asked_the_query_as_noted_reads_it(wired: tuple[JoplinStore, Wire]) -> None:
    """A note older than the recent window is found by Joplin's own search, which was sent the
    query as typed: where noted reads the grammar otherwise, it answered another question
    (``-type:todo`` listed every note, to-dos too; ``created:1970-01-02`` found nothing;
    ``--force`` left out the notes holding "force"). The request is checked, as Joplin's index
    takes in new notes when its scheduler says (see ``test_joplin_mcp_scope``)."""
    store, wire = wired
    keyword = keyword_search_for(store)
    for typed, sent in (
        ("-type:todo", "type:note"),
        ("-iscompleted:1", "iscompleted:0"),
        ("created:1970-01-02", "created:19700102"),
        ("--force", "force"),
    ):
        wire.clear()
        keyword.search(typed)
        asked = [
            q.get("query") for _, path, q in wire.requests if path == "/search" and q.get("type") != "folder"
        ]
        assert asked and all(q == sent for q in asked), (typed, asked)


def test_a_notebook_filter_reads_only_the_recent_notes_of_its_notebooks(
    joplin: JoplinServer, wired: tuple[JoplinStore, Wire]
) -> None:
    """``notebook:X word`` took the notebook for a filter only: it read every note changed in the
    last week, in every notebook, bodies and all (``GET /notes``, 100 a page), to keep a few. It now
    reads X's notebooks' listings (sub-notebooks too), with the same results; 60 recent notes
    outside make the old way read them whole, so the check of what is read can fail."""
    store, wire = wired
    word, mark = f"w{secrets.token_hex(4)}", secrets.token_hex(3)

    def folder(title: str, parent: str = "") -> str:
        return str(joplin.api("POST", "/folders", {"title": title, "parent_id": parent})["id"])

    def note(title: str, body: str, parent: str) -> str:
        return str(joplin.api("POST", "/notes", {"title": title, "body": body, "parent_id": parent})["id"])

    outside = folder(f"Outside {mark}")
    others = [note("Other", word, outside) for _ in range(60)]
    kept = folder(f"Kept {mark}")
    sub = folder(f"Deeper {mark}", kept)
    mine = [note("Mine", f"{word} {word}", kept), note("Deep", word, sub)]
    note("Plain", "other words", kept)
    wait_until(lambda: {*mine, *others} <= set(store.recent_notes(0)), what="Joplin's events")
    everywhere = keyword_search_for(store).search(word, limit=100)  # every recent note read
    expected = [h.note_id for h in everywhere.hits if h.note_id in mine]
    assert sorted(expected) == sorted(mine)
    for query in (f'notebook:"Kept {mark}" {word}', f"any:1 notebook:kept*{mark} {word}"):
        keyword = keyword_search_for(store)  # a new process's search: nothing read yet
        wire.clear()
        found = keyword.search(query)
        assert [h.note_id for h in found.hits] == expected, query
        assert found.total == 2, query
        read = [
            path for _, path, _ in wire.requests if path == "/notes" or path.removeprefix("/notes/") in others
        ]
        assert not read, (query, read[:3])
        assert wire.listed(f"/folders/{kept}/notes") == 2  # Mine and Plain
    keyword = keyword_search_for(store)
    wire.clear()
    assert keyword.search(f'-notebook:"Kept {mark}" {word}', limit=100).total >= 60  # not narrowed
