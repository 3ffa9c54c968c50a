"""What a page of the note list and the notebook tree ask of a real Joplin for tags and counts.

A page's rows each showed their tags from one request a note (``/notes/ID/tags``: 100 for a page),
and the tree's to-do, notebook and conflict counts listed every note of the store at each refresh.
The tags are now those of the tree's kept tag notes (``noted.store.joplin.tag_notes``), which follow
noted's feed, as each note's place does; these tests check them against the per-note read and the
full listing after changes in noted and in Joplin itself. The requests are recorded below httpx
(``tests.support.joplin.Wire``).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.joplin import JoplinServer, Wire, shared_server, wait_until

from noted.models import NoteDraft
from noted.store.joplin import JoplinStore, tag_notes
from noted.store.joplin.client import PAGE_LIMIT
from noted.store.joplin.events import EventFeed
from noted.store.protocol import NoteOrder
from noted.ui.data import NoteSource, SourceKind, load_page, load_tree

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    """This worker's Joplin, shared with its other tests (their changes are in its feed too)."""
    return shared_server(tmp_path_factory.getbasetemp())


@pytest.fixture
def now(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The kept tags' clock. Other tests change notes in the same Joplin meanwhile: however many,
    none may make the kept tags be read again, nor may the time the run takes."""
    monkeypatch.setattr(tag_notes, "CHECK_NOTES", 1_000_000)
    return [0.0]


@pytest.fixture
def wire() -> Wire:
    return Wire()


@pytest.fixture
def store(joplin: JoplinServer, tmp_path: Path, wire: Wire, now: list[float]) -> Iterator[JoplinStore]:
    s = joplin.store(tmp_path / "profile", wire=wire)
    s.tags.notes = tag_notes.TagNotes(s.api, clock=lambda: now[0])
    yield s
    s.close()


def _tag(joplin: JoplinServer) -> tuple[str, str]:
    title = f"row-{secrets.token_hex(4)}"
    return str(joplin.api("POST", "/tags", {"title": title})["id"]), title


def _notebook(joplin: JoplinServer, notes: int) -> tuple[str, list[str]]:
    folder = str(joplin.api("POST", "/folders", {"title": f"Rows {secrets.token_hex(3)}"})["id"])
    made = [
        str(joplin.api("POST", "/notes", {"title": f"N{i}", "body": "b", "parent_id": folder})["id"])
        for i in range(notes)
    ]
    return folder, made


def _one_by_one(store: JoplinStore, note_ids: list[str]) -> dict[str, tuple[str, ...]]:
    """Each note's tag titles as a read of that note alone gives them (one request a note)."""
    out: dict[str, tuple[str, ...]] = {}
    for note_id in note_ids:
        out |= store.note_tag_titles([note_id])
    return out


def _row_reads(wire: Wire) -> int:
    return sum(1 for m, path, _ in wire.requests if m == "GET" and path.endswith("/tags") and path != "/tags")


def test_a_pages_rows_carry_the_kept_tags_the_same_as_read_one_by_one(
    joplin: JoplinServer, store: JoplinStore, wire: Wire, now: list[float]
) -> None:
    (a, a_title), (b, b_title) = _tag(joplin), _tag(joplin)
    folder, ids = _notebook(joplin, 8)
    for note_id in ids[:5]:
        joplin.api("POST", f"/tags/{a}/notes", {"id": note_id})
    joplin.api("POST", f"/tags/{b}/notes", {"id": ids[0]})
    source = NoteSource(SourceKind.FOLDER, folder, "Rows")

    def rows() -> dict[str, tuple[str, ...]]:
        return {row.meta.id: row.tags for row in load_page(store, source, NoteOrder.UPDATED).rows if row.tags}

    store.list_tags(with_notes_only=True)  # the tree, read before the list: every tag is kept
    wire.clear()
    shown = rows()
    assert _row_reads(wire) == 0, wire.requests  # not one request a row (8 before)
    assert shown == _one_by_one(store, ids)
    assert shown[ids[0]] == tuple(sorted([a_title, b_title], key=str.casefold))  # not vacuous
    # Tagged in noted: seen at once (the feed says which note changed; only it is asked).
    store.tag_note(ids[6], [b_title], actor="user")
    store.untag_note(ids[0], [a_title], actor="user")
    wire.clear()
    assert rows() == _one_by_one(store, ids) and rows()[ids[6]] == (b_title,)
    # Tagged in Joplin itself with an edit of the note: seen once Joplin's event of it is.
    joplin.api("POST", f"/tags/{b}/notes", {"id": ids[7]})
    joplin.api("PUT", f"/notes/{ids[7]}", {"body": "edited in Joplin"})
    wait_until(lambda: rows().get(ids[7]) == (b_title,), what="a tag put on with an edit in Joplin")
    assert rows() == _one_by_one(store, ids)
    # Tagged in Joplin itself, the note unchanged: Joplin reports no tag link, so it is seen once
    # the tags are kept KEEP_SECONDS (as the tree's counts), then they are read one by one again.
    joplin.api("POST", f"/tags/{a}/notes", {"id": ids[5]})
    assert ids[5] not in rows()
    now[0] += tag_notes.KEEP_SECONDS
    assert rows() == _one_by_one(store, ids) and rows()[ids[5]] == (a_title,)


def test_the_trash_pages_rows_carry_their_tags(joplin: JoplinServer, store: JoplinStore, wire: Wire) -> None:
    (a, a_title) = _tag(joplin)
    _, ids = _notebook(joplin, 3)
    for note_id in ids:
        joplin.api("POST", f"/tags/{a}/notes", {"id": note_id})
    store.list_tags(with_notes_only=True)
    store.trash_note(ids[0], actor="user")
    joplin.api("DELETE", f"/notes/{ids[1]}")  # to the trash in Joplin itself
    wait_until(
        lambda: store.count_notes(trashed=True) >= 2 and ids[1] not in store.tags.notes.note_ids(a),
        what="trashed",
    )
    page = load_page(store, NoteSource(SourceKind.TRASH, "", "Trash"), NoteOrder.UPDATED, limit=1000)
    shown = {row.meta.id: row.tags for row in page.rows}
    assert shown[ids[0]] == shown[ids[1]] == (a_title,)
    assert {k: v for k, v in shown.items() if v} == _one_by_one(store, list(shown))


def test_the_conflicts_pages_rows_carry_their_tags(joplin: JoplinServer, store: JoplinStore) -> None:
    (a, a_title) = _tag(joplin)
    _, ids = _notebook(joplin, 3)
    for note_id in ids:
        joplin.api("POST", f"/tags/{a}/notes", {"id": note_id})
    joplin.as_if_conflict(ids[0], ids[1])  # Joplin's /tags/ID/notes leaves conflict copies out
    joplin.as_if_conflict(ids[2], ids[1])  # two rows: the kept tags are asked
    store.list_tags(with_notes_only=True)
    page = load_page(store, NoteSource(SourceKind.CONFLICTS, "", "Conflicts"), NoteOrder.UPDATED, limit=1000)
    shown = {row.meta.id: row.tags for row in page.rows}
    assert shown[ids[0]] == shown[ids[2]] == (a_title,)
    assert {k: v for k, v in shown.items() if v} == _one_by_one(store, list(shown))


def _listed_whole(wire: Wire) -> list[dict[str, str]]:
    """The listings of the store's notes (not the trash's nor the conflicts' reads), each by its first
    page: how many pages one takes depends on the notes other tests left in this Joplin."""
    return [
        q
        for m, path, q in wire.requests
        if m == "GET"
        and path == "/notes"
        and not {"include_deleted", "include_conflicts"} & set(q)
        and q.get("page", "1") == "1"
    ]


def test_the_trees_counts_follow_changes_without_listing_every_note(
    joplin: JoplinServer, store: JoplinStore, wire: Wire
) -> None:
    folder, ids = _notebook(joplin, 3)
    other, _ = _notebook(joplin, 1)
    joplin.api("PUT", f"/notes/{ids[0]}", {"is_todo": 1})

    def counts() -> tuple[int, int, int]:
        tree = load_tree(store)
        by_folder = store.folder_note_counts()
        return tree.todo_count, by_folder.get(folder, 0), by_folder.get(other, 0)

    def listed() -> tuple[int, int, int]:  # what listing every note says
        every = store.list_notes()
        return (
            sum(1 for m in every if m.is_todo),
            sum(1 for m in every if m.parent_id == folder),
            sum(1 for m in every if m.parent_id == other),
        )

    assert counts() == listed() and counts()[1:] == (3, 1)
    wire.clear()
    assert counts() == listed()
    assert len(_listed_whole(wire)) == 1, wire.requests  # listed() alone: the tree's counts are kept
    wire.clear()
    store.create_note(NoteDraft("todo", "b", folder, is_todo=True), actor="user")  # by noted
    assert counts() == listed() and counts()[1] == 4
    joplin.api("PUT", f"/notes/{ids[1]}", {"parent_id": other})  # moved in Joplin itself
    wait_until(lambda: counts()[1:] == (3, 2), what="a note moved in Joplin counted")
    joplin.api("PUT", f"/notes/{ids[2]}", {"is_todo": 1})  # made a to-do in Joplin itself
    joplin.api("DELETE", f"/notes/{ids[0]}")  # a to-do, to the trash in Joplin itself
    wait_until(lambda: counts() == listed(), what="Joplin's changes counted")
    assert counts()[1:] == (2, 2)
    wire.clear()
    counts()
    assert not _listed_whole(wire), wire.requests


def test_the_trees_conflict_count_reads_the_conflicts_not_every_note(
    joplin: JoplinServer, store: JoplinStore, wire: Wire
) -> None:
    _, ids = _notebook(joplin, PAGE_LIMIT + 10)  # more notes than a page: reading them all shows
    joplin.as_if_conflict(ids[0], ids[1])
    conflicts = store.conflicts.sync_conflicts() if store.conflicts is not None else []
    wire.clear()
    tree = load_tree(store)
    assert tree.conflict_count == len(conflicts) and ids[0] in {c.copy_id for c in conflicts}
    listed = sum(
        n
        for (_, path, q), n in zip(wire.requests, wire.items, strict=True)
        if path == "/notes" and "include_conflicts" in q
    )
    assert listed <= len(conflicts) + PAGE_LIMIT, wire.requests


def test_the_notebook_counts_a_write_decides_on_see_a_note_made_in_joplin_a_moment_ago(
    joplin: JoplinServer, store: JoplinStore
) -> None:
    """The counts also decide writes (a model's notebook reverted only while it holds no note; a
    trashed notebook erased only while it holds none alive): a process that paces the feed (the app,
    the MCP server) must not decide on counts older than Joplin's last change."""
    folder, _ = _notebook(joplin, 1)
    feed = EventFeed(store.api.client, store.api.sidecar, clock=lambda: 0.0)  # its gap never ends
    feed.pace()
    store.api.feed = feed
    assert store.folder_note_counts().get(folder) == 1
    joplin.api("POST", "/notes", {"title": "just now", "body": "b", "parent_id": folder})
    # Joplin logs its change a moment after it answers: asked again until then, never paced.
    wait_until(lambda: store.folder_note_counts().get(folder) == 2, what="the note counted")
