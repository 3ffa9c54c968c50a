"""What a tag's page, the trash's page, a scoped ``list_tags`` and search ask of a real Joplin.

Joplin's ``/tags/ID/notes`` loads every note of the tag at each page it serves and does not sort
them (its comparator never answers "after"), so a tag's page read the whole tag: ten such pages for
a tag of 1,000 notes. With the tag's notes kept (as the tree keeps them), a page is now found in
the listing Joplin sorts itself. The trash's rows each asked for their tags at every load; a
scoped ``list_tags`` counted every tag of the store to name the few in scope; a scoped search
read every notebook twice or three times. The requests are
recorded below httpx (``tests.support.joplin.Wire``), on the way to the worker's real Joplin.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.joplin import JoplinServer, Wire, shared_server, wait_until

from noted.models import NoteDraft
from noted.search.joplin import JoplinKeywordSearch, keyword_search_for
from noted.settings import Settings
from noted.store.joplin import JoplinStore, tag_notes, tag_pages
from noted.store.joplin.base import META_FIELDS, meta_of
from noted.store.joplin.client import PAGE_LIMIT
from noted.store.protocol import NoteOrder
from noted.tools import ToolContext, build_registry
from noted.tools.scope import Scope
from noted.ui.data import NoteSource, SourceKind, load_page

pytestmark = pytest.mark.slow

KEYS: dict[NoteOrder, Callable[[Any], Any]] = {
    NoteOrder.UPDATED: lambda m: (-m.user_updated_time, m.id),
    NoteOrder.CREATED: lambda m: (-m.user_created_time, m.id),
    NoteOrder.TITLE: lambda m: (m.title.casefold(), m.id),
    NoteOrder.ID: lambda m: m.id,
}
"""noted's orders, as the embedded store sorts (ties by id, ascending)."""


@pytest.fixture
def wire() -> Wire:
    """Every request the store sends, in order."""
    return Wire()


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    """This worker's Joplin: other tests' notes and tags are in it too."""
    return shared_server(tmp_path_factory.getbasetemp())


@pytest.fixture
def store(
    joplin: JoplinServer, tmp_path: Path, wire: Wire, monkeypatch: pytest.MonkeyPatch
) -> Iterator[JoplinStore]:
    # Other tests change notes in the same Joplin meanwhile: however many, none may make the kept
    # tags be read again, nor may the time the run takes.
    monkeypatch.setattr(tag_notes, "CHECK_NOTES", 1_000_000)
    monkeypatch.setattr(tag_notes, "KEEP_SECONDS", 1e9)
    s = joplin.store(tmp_path / "profile", wire=wire)
    yield s
    s.close()


def _tag(joplin: JoplinServer) -> tuple[str, str]:
    title = f"page-{secrets.token_hex(4)}"
    return str(joplin.api("POST", "/tags", {"title": title})["id"]), title


def _filled(joplin: JoplinServer, notes: int, tag: str | None = None) -> tuple[str, list[str]]:
    folder = str(joplin.api("POST", "/folders", {"title": f"Pages {secrets.token_hex(3)}"})["id"])
    made = []
    for i in range(notes):
        note = joplin.api("POST", "/notes", {"title": f"N{i % 7}", "body": "b", "parent_id": folder})
        made.append(str(note["id"]))
        if tag is not None:
            joplin.api("POST", f"/tags/{tag}/notes", {"id": note["id"]})
    return folder, made


def _tag_reads(wire: Wire, tag: str) -> int:
    return sum(1 for method, path, _ in wire.requests if method == "GET" and path == f"/tags/{tag}/notes")


def test_a_large_tags_page_is_found_in_the_sorted_listing_not_read_whole(
    joplin: JoplinServer, store: JoplinStore, wire: Wire
) -> None:
    tag, _ = _tag(joplin)
    folder, ids = _filled(joplin, PAGE_LIMIT + 20, tag)
    untagged, beside = _filled(joplin, 5)  # beside them in the store's listing
    try:
        _pages_match(joplin, store, wire, tag, folder, ids)
    finally:  # this Joplin's other tests list every note: these would weigh on them
        for note_id in ids + beside:
            joplin.api("DELETE", f"/notes/{note_id}", params={"permanent": "1"})
        for notebook in (folder, untagged):
            joplin.api("DELETE", f"/folders/{notebook}", params={"permanent": "1"})


def _pages_match(
    joplin: JoplinServer, store: JoplinStore, wire: Wire, tag: str, folder: str, ids: list[str]
) -> None:
    # Thirty notes tied on their time, newest of all: a page's edge falls among them, where Joplin
    # orders by id descending and noted ascending.
    for note_id in ids[:30]:
        joplin.api("PUT", f"/notes/{note_id}", {"user_updated_time": 4_000_000_000_000})
    whole = [meta_of(i) for i in store.api.client.get_all(f"/tags/{tag}/notes", {"fields": META_FIELDS})]
    assert len(whole) == PAGE_LIMIT + 20  # not vacuous: more than one of Joplin's pages
    store.list_tags(with_notes_only=True)  # the tree, read first: every tag's notes are kept
    for order, key in KEYS.items():
        expected = [m.id for m in sorted(whole, key=key)]
        for offset in (0, 10, PAGE_LIMIT):
            wire.clear()
            page = store.list_notes(tag_id=tag, order=order, limit=20, offset=offset)
            assert [m.id for m in page] == expected[offset : offset + 20], (order, offset)
            if order is not NoteOrder.TITLE:  # Joplin sorts titles otherwise: read whole
                assert _tag_reads(wire, tag) == 0, wire.requests
        assert [m.id for m in store.list_notes(tag_id=tag, order=order)] == expected
    wire.clear()
    of_folder = store.list_notes(folder_id=folder, tag_id=tag, limit=15)  # as a scoped tool asks
    assert [m.id for m in of_folder] == [m.id for m in sorted(whole, key=KEYS[NoteOrder.UPDATED])][:15]
    assert _tag_reads(wire, tag) == 0, wire.requests


def test_the_trashs_rows_read_their_tags_once_then_follow_changes(
    joplin: JoplinServer, store: JoplinStore, wire: Wire
) -> None:
    (a, a_title), (b, b_title) = _tag(joplin), _tag(joplin)
    _, ids = _filled(joplin, 4, a)
    joplin.api("POST", f"/tags/{b}/notes", {"id": ids[1]})
    for note_id in ids[:3]:
        store.trash_note(note_id, actor="user")
    store.list_tags(with_notes_only=True)  # the tree, read first, as the app does
    trash = NoteSource(SourceKind.TRASH, "", "Trash")

    def rows() -> dict[str, tuple[str, ...]]:
        page = load_page(store, trash, NoteOrder.UPDATED, limit=1000)
        return {row.meta.id: row.tags for row in page.rows if row.meta.id in ids and row.tags}

    both = tuple(sorted([a_title, b_title], key=str.casefold))
    assert rows() == {ids[0]: (a_title,), ids[1]: both, ids[2]: (a_title,)}
    wire.clear()
    assert rows() == {ids[0]: (a_title,), ids[1]: both, ids[2]: (a_title,)}
    # Not one request a row (the trash of this Joplin holds other tests' notes too: none is asked).
    asked = [path for method, path, _ in wire.requests if method == "GET" and path.endswith("/tags")]
    assert asked == ["/tags"], wire.requests
    store.untag_note(ids[0], [a_title], actor="user")  # by noted: seen at once
    assert ids[0] not in rows()
    joplin.api("POST", f"/tags/{b}/notes", {"id": ids[2]})  # in Joplin itself, with an edit
    joplin.api("PUT", f"/notes/{ids[2]}", {"body": "edited in Joplin"})
    wait_until(lambda: rows().get(ids[2]) == tuple(sorted([a_title, b_title], key=str.casefold)), what="seen")
    assert rows()[ids[1]] == both


def test_a_scoped_list_tags_reads_no_tags_notes_and_counts_only_the_scope(
    joplin: JoplinServer, store: JoplinStore, wire: Wire, tmp_path: Path
) -> None:
    (shared, shared_title), (inside, inside_title), (outside, _) = _tag(joplin), _tag(joplin), _tag(joplin)
    work, seen = _filled(joplin, 3, shared)
    _, hidden = _filled(joplin, 4, shared)  # the shared tag's notes elsewhere: never counted
    joplin.api("POST", f"/tags/{inside}/notes", {"id": seen[0]})
    joplin.api("POST", f"/tags/{outside}/notes", {"id": hidden[0]})
    settings = Settings.load(tmp_path / "config.toml", environ={})
    ctx = ToolContext(store, settings, keyword_search_for(store), "mcp:t", scope=Scope.of([work]))
    wire.clear()  # as a new MCP server: no tag's notes kept yet
    result = asyncio.run(build_registry(settings).call("list_tags", {}, ctx))
    assert result.ok and result.payload is not None, result.message
    assert result.payload["tags"] == sorted(
        [
            {"id": shared, "title": shared_title, "note_count": 3},
            {"id": inside, "title": inside_title, "note_count": 1},
        ],
        key=lambda t: (t["title"], t["id"]),
    )
    # No tag's notes are read (every tag's were, to name these two): the scope's notes are asked
    # for their tags. Not vacuous: the shared tag has notes outside, the tag outside only there.
    read = [path for method, path, _ in wire.requests if method == "GET" and path.endswith("/notes")]
    assert all(not path.startswith("/tags/") for path in read), read


def test_a_scoped_search_reads_the_notebooks_once(store: JoplinStore, wire: Wire) -> None:
    word = f"w{secrets.token_hex(4)}"
    work = store.create_folder(f"Work {word}", actor="user").id
    other = store.create_folder(f"Other {word}", actor="user").id
    inside = store.create_note(NoteDraft("In", f"{word} plan", work), actor="user").id
    store.create_note(NoteDraft("Out", f"{word} plan", other), actor="user")
    search = JoplinKeywordSearch(store)
    for query in (word, f"{word} notebook:Work*"):  # the scope's titles, the filter, the hits' titles
        wire.clear()
        found = search.search(query, folder_ids=frozenset({work}))
        assert [(h.note_id, h.notebook_title) for h in found.hits] == [(inside, f"Work {word}")]
        # One listing of the notebooks (a shared Joplin may hold more than a page of them).
        folders = [
            q
            for method, path, q in wire.requests
            if path == "/search" and q.get("type") == "folder" and q.get("page", "1") == "1"
        ]
        assert len(folders) == 1, wire.requests


def test_a_walk_to_a_tag_on_the_oldest_notes_stops_and_reads_the_tag(
    joplin: JoplinServer, store: JoplinStore, wire: Wire, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tag on more than a page of the oldest notes: the walk read the listing to its end, a page
    of 100 a request however big the store (3,500 notes: 36 requests, 0.85 s, where reading the
    tag whole took 2 requests, 0.24 s). It now stops at ``walk_budget`` pages (made 2 here, so
    that a few hundred notes show it) and reads the tag whole."""
    monkeypatch.setattr(tag_pages, "walk_budget", lambda tag_size: 2, raising=False)
    tag, _ = _tag(joplin)
    folder, ids = _filled(joplin, PAGE_LIMIT + 1, tag)
    for note_id in ids:  # the oldest of the notebook
        joplin.api("PUT", f"/notes/{note_id}", {"user_updated_time": 1_000_000_000_000})
    newer = [
        str(joplin.api("POST", "/notes", {"title": "New", "body": "b", "parent_id": folder})["id"])
        for _ in range(3 * PAGE_LIMIT)
    ]
    try:
        store.list_tags(with_notes_only=True)  # the tree, read first: every tag's notes are kept
        wire.clear()
        page = store.list_notes(folder_id=folder, tag_id=tag, limit=20)
        assert [m.id for m in page] == sorted(ids)[:20]  # tied on their time: by id
        walked = [q for _, path, q in wire.requests if path == f"/folders/{folder}/notes"]
        assert len(walked) <= 2, walked  # not vacuous: the tagged notes begin on the 4th page
        assert _tag_reads(wire, tag) == 2, wire.requests  # the tag whole: 101 notes
        # The next pages go straight to the whole read: each walked its budget first (4 requests
        # a page, not 2), nothing remembering that this tag is better read whole.
        for offset in (20, 40):
            wire.clear()
            page = store.list_notes(folder_id=folder, tag_id=tag, limit=20, offset=offset)
            assert [m.id for m in page] == sorted(ids)[offset : offset + 20]
            walked = [q for _, path, q in wire.requests if path == f"/folders/{folder}/notes"]
            assert not walked, walked
            assert _tag_reads(wire, tag) == 2, wire.requests
    finally:  # this Joplin's other tests list every note: these would weigh on them
        for note_id in ids + newer:
            joplin.api("DELETE", f"/notes/{note_id}", params={"permanent": "1"})
        joplin.api("DELETE", f"/folders/{folder}", params={"permanent": "1"})
