"""What listing notes asks of a real Joplin: the fields a list shows, never the bodies.

A page of the note list (the app's, ``noted list``'s, the MCP list tools') that held a 39 MB note
moved 39 MB at every load, as the page was read with its bodies. The header's count read every
note of the source (ten pages for 1,000 notes, 0.6 s), and a search page read the bodies of its
notes twice (for snippets the list does not show, then for the rows). Joplin's ``/tags/ID/notes``
loads every note of the tag at each page it serves (0.7 s a page for a tag of 1,000 notes), and it
lists no trash of its own: a tag's page reads it once (it read it twice, for the header's count),
the tree's counts are kept while the feed says nothing changed them (they read every tag at each
refresh), and a tag's deletion reads its notes and the trash (it read every note of the store).
The requests are recorded below httpx (``tests.support.joplin.Wire``), on the way to the run's real
Joplin.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.joplin import JoplinServer, Wire, shared_server, wait_until

from noted.models import NoteDraft
from noted.search.joplin import keyword_search_for
from noted.settings import Settings
from noted.store.joplin import JoplinStore, tag_notes
from noted.store.joplin.client import PAGE_LIMIT
from noted.store.protocol import NoteOrder
from noted.tools import ToolContext, build_registry
from noted.ui.data import NoteSource, SourceKind, load_page

pytestmark = pytest.mark.slow

BIG = "a line of a long log, as pasted into a note\n" * 8_000
"""About 350 kB: a page's answer without it is a few kB, so the byte check can fail."""


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


def _notebook(store: JoplinStore, body: str = BIG) -> tuple[str, str]:
    """A notebook of three notes, the newest ``body`` long (``BIG``), tagged, a to-do; its id and
    the big note's."""
    folder = store.create_folder(f"List cost {secrets.token_hex(3)}", actor="user").id
    for i in range(2):
        store.create_note(NoteDraft(f"Small {i}", f"body {i}", folder), actor="user")
    tag = f"heavy-{secrets.token_hex(3)}"
    big = store.create_note(NoteDraft("Big log", body, folder, is_todo=True, tags=(tag,)), actor="user")
    return folder, big.id


CROWD_TITLE = "a to-do another test left, its title long " * 300
"""About 13 kB a row: the crowd's eight live to-dos (and eight in the trash) weigh more than
``len(BIG) / 4`` in a listing of them, as the notes other tests leave in the shared Joplin did."""


@pytest.fixture
def crowd(joplin: JoplinServer) -> Iterator[None]:
    """Sixteen to-dos with long titles in a notebook of their own, eight in the trash, erased after."""
    folder = str(joplin.api("POST", "/folders", {"title": f"Crowd {secrets.token_hex(3)}"})["id"])
    made = [
        str(joplin.api("POST", "/notes", {"title": CROWD_TITLE, "parent_id": folder, "is_todo": 1})["id"])
        for _ in range(16)
    ]
    for note_id in made[8:]:
        joplin.api("DELETE", f"/notes/{note_id}")  # to the trash
    yield
    for note_id in made:
        joplin.api("DELETE", f"/notes/{note_id}", params={"permanent": "1"})
    joplin.api("DELETE", f"/folders/{folder}", params={"permanent": "1"})


@pytest.mark.parametrize("where", ["notebook", "tag", "todos", "all", "trash"])
def test_a_page_of_notes_asks_joplin_for_no_body(
    joplin: JoplinServer, store: JoplinStore, wire: Wire, crowd: None, where: str
) -> None:
    """The listing weighs what it did with the big note's body one line long.

    A to-do or trash listing reads every note of Joplin's (it has no such filter): a fixed bound on
    its bytes failed once the shared Joplin held enough notes of other tests (``crowd`` stands for
    them), so the bound is the same listing's weight before the body grew.
    """
    folder, big = _notebook(store, body="one line")
    tag = store.note_tags(big)[0].id
    if where == "trash":
        store.trash_note(big, actor="user")
    asked = {
        "notebook": {"folder_id": folder},
        "tag": {"tag_id": tag},
        "todos": {"todo_only": True},
        "all": {},
        "trash": {"trashed": True},
    }[where]

    def weight() -> int:
        wire.clear()
        page = store.list_notes(**asked, order=NoteOrder.UPDATED, limit=100)  # type: ignore[arg-type]
        assert big in [m.id for m in page]  # the big note is on the page: the check below can fail
        assert "body" not in wire.fields(), wire.requests
        return wire.received

    before = weight()
    joplin.api("PUT", f"/notes/{big}", {"body": BIG})  # the rows' fields stay as long as they were
    assert weight() - before < len(BIG) / 4, wire.requests


def test_the_apps_page_and_the_cli_list_read_no_body(store: JoplinStore, wire: Wire) -> None:
    folder, big = _notebook(store)
    wire.clear()
    page = load_page(store, NoteSource(SourceKind.FOLDER, folder, "List cost"), NoteOrder.UPDATED)
    assert big in [row.meta.id for row in page.rows]
    assert page.rows[0].meta.is_todo and page.rows[0].tags  # what a row shows is still there
    assert "body" not in wire.fields(), wire.requests
    assert wire.received < len(BIG) / 4


def _call(store: JoplinStore, tmp_path: Path, name: str, **args: object) -> dict[str, object]:
    settings = Settings.load(tmp_path / "config.toml", environ={})
    ctx = ToolContext(store=store, settings=settings, keyword=keyword_search_for(store), actor="mcp:t")
    result = asyncio.run(build_registry(settings).call(name, args, ctx))
    assert result.ok, result.message
    return dict(result.payload or {})


@pytest.mark.parametrize("tool", ["list_notebook_notes", "list_notes"])
def test_the_list_tools_give_lengths_reading_only_bodies_changed_since_noted_read_them(
    joplin: JoplinServer, store: JoplinStore, wire: Wire, tmp_path: Path, tool: str
) -> None:
    folder, big = _notebook(store)  # noted made them, and so knows their lengths
    wire.clear()
    payload = _call(store, tmp_path, tool, notebook_id=folder)
    lengths = {str(n["id"]): n["body_length"] for n in payload["notes"]}  # type: ignore[attr-defined]
    assert lengths[big] == len(BIG)
    assert sorted(lengths.values())[:2] == [len("body 0"), len("body 1")]
    assert wire.received < len(BIG) / 4, wire.requests
    # Changed in Joplin meanwhile: the length kept is of an older save, so the body is read.
    joplin.api("PUT", f"/notes/{big}", {"body": BIG + "more"})
    payload = _call(store, tmp_path, tool, notebook_id=folder)
    lengths = {str(n["id"]): n["body_length"] for n in payload["notes"]}  # type: ignore[attr-defined]
    assert lengths[big] == len(BIG) + 4


ID_BYTES = len('{"id":"0123456789abcdef0123456789abcdef"},')
"""What one note of a listing of ids weighs, at least."""


def _filled(joplin: JoplinServer, notes: int, tag: str = "") -> tuple[str, list[str]]:
    """A notebook of ``notes`` notes made in Joplin (carrying the tag ``tag`` when given); its id
    and the notes'."""
    folder = str(joplin.api("POST", "/folders", {"title": f"First page {secrets.token_hex(3)}"})["id"])
    made = [
        str(joplin.api("POST", "/notes", {"title": f"N{i}", "body": "b", "parent_id": folder})["id"])
        for i in range(notes)
    ]
    for note_id in made if tag else ():
        joplin.api("POST", f"/tags/{tag}/notes", {"id": note_id})
    return folder, made


def test_the_count_reads_a_few_notes_and_follows_changes(
    joplin: JoplinServer, store: JoplinStore, wire: Wire
) -> None:
    folder, ids = _filled(joplin, 100)  # a full page: the next one is empty
    assert store.count_notes(folder_id=folder) == 100
    # Reading the 100 notes' ids alone would weigh this much: the count reads a page at most.
    wire.clear()
    assert store.count_notes(folder_id=folder) == 100
    assert "title" not in wire.fields(), wire.requests
    joplin.api("POST", "/notes", {"title": "one more", "body": "b", "parent_id": folder})
    assert store.count_notes(folder_id=folder) == 101
    wire.clear()
    assert store.count_notes() == len(store.list_notes())  # all notes: same as listing them
    for note_id in ids[:2]:
        joplin.api("DELETE", f"/notes/{note_id}")
    assert store.count_notes(folder_id=folder) == 99
    page = load_page(store, NoteSource(SourceKind.FOLDER, folder, "F"), NoteOrder.UPDATED, limit=20)
    assert page.total == 99 and len(page.rows) == 20 and page.has_more


def test_the_count_of_a_large_source_does_not_read_every_note(
    joplin: JoplinServer, store: JoplinStore, wire: Wire
) -> None:
    folder, _ = _filled(joplin, 150)
    wire.clear()
    assert store.count_notes(folder_id=folder) == 150
    # Not vacuous: listing the 150 notes' ids alone would read 150 * ID_BYTES.
    assert wire.received < 100 * ID_BYTES, (wire.received, wire.requests)


def test_the_count_of_an_empty_or_unknown_notebook_is_nought(store: JoplinStore) -> None:
    empty = store.create_folder(f"Empty {secrets.token_hex(3)}", actor="user").id
    assert store.count_notes(folder_id=empty) == 0
    assert store.count_notes(folder_id="0" * 32) == 0


def test_a_search_page_reads_no_body(store: JoplinStore, wire: Wire) -> None:
    folder = store.create_folder(f"Search cost {secrets.token_hex(3)}", actor="user").id
    word = f"w{secrets.token_hex(4)}"
    big = store.create_note(
        NoteDraft("Big log", f"{word}\n" + "a line of a log\n" * 20_000, folder), actor="user"
    )
    small = store.create_note(NoteDraft("Small", f"{word} small", folder), actor="user")
    keyword = keyword_search_for(store)
    source = NoteSource(SourceKind.SEARCH, word, word)
    load_page(store, source, NoteOrder.UPDATED, keyword=keyword)  # reads the notes changed lately, once
    wire.clear()
    page = load_page(store, source, NoteOrder.UPDATED, keyword=keyword)
    assert {row.meta.id for row in page.rows} == {big.id, small.id}  # the check below can fail
    assert page.total == 2
    # Neither row's body is read. (Notes that other tests change in the same Joplin meanwhile are
    # read whole by the search's look at recent changes, so "no body field at all" would be racy.)
    assert wire.received < len(big.body) // 4, (wire.received, wire.requests)
    asked = [path for _, path, query in wire.requests if "body" in query.get("fields", "")]
    assert not [path for path in asked if big.id in path or small.id in path], asked


def test_a_search_page_asks_for_no_row_one_by_one(store: JoplinStore, wire: Wire) -> None:
    folder = store.create_folder(f"Search rows {secrets.token_hex(3)}", actor="user").id
    word = f"w{secrets.token_hex(4)}"
    made = [
        store.create_note(NoteDraft(f"Hit {i}", f"{word} {i}", folder, is_todo=i == 0), actor="user").id
        for i in range(5)
    ]
    keyword = keyword_search_for(store)
    source = NoteSource(SourceKind.SEARCH, word, word)
    load_page(store, source, NoteOrder.UPDATED, keyword=keyword)  # reads the notes changed lately, once
    wire.clear()
    page = load_page(store, source, NoteOrder.UPDATED, keyword=keyword)
    rows = [row.meta for row in page.rows]
    assert sorted(m.id for m in rows) == sorted(made)  # the check below can fail
    asked = [
        path for method, path, _ in wire.requests if method == "GET" and path.removeprefix("/notes/") in made
    ]
    assert not asked, asked  # each row's note was read once (by the search's look at recent changes)
    assert rows == store.note_metas([m.id for m in rows])  # the rows as reading them one by one gives


def _tag(joplin: JoplinServer) -> tuple[str, str]:
    """A new tag made in Joplin: its id and title."""
    title = f"cost-{secrets.token_hex(4)}"
    return str(joplin.api("POST", "/tags", {"title": title})["id"]), title


def _reads(wire: Wire, tag: str) -> int:
    """The requests for pages of the tag's notes, Joplin's slow listing."""
    return sum(1 for method, path, _ in wire.requests if method == "GET" and path == f"/tags/{tag}/notes")


def test_deleting_a_tag_reads_its_notes_and_the_trash_not_every_note(
    joplin: JoplinServer, store: JoplinStore, wire: Wire
) -> None:
    tag = str(joplin.api("POST", "/tags", {"title": f"doomed-{secrets.token_hex(3)}"})["id"])
    _, tagged = _filled(joplin, 3, tag)
    _filled(joplin, PAGE_LIMIT + 50)  # untagged: more notes than one page, so reading them all shows
    joplin.api("DELETE", f"/notes/{tagged[0]}")  # in the trash, with the tag: a revert puts it back
    trash = store.count_notes(trashed=True)
    wire.clear()
    store.delete_tag(tag, actor="user")
    # Not vacuous: every note's id is more than the trash and a page (the 150 made above).
    assert wire.listed("/notes") <= trash + PAGE_LIMIT, wire.requests
    gone = [c for c in store.changes_since(0, limit=100_000).changes if c.item_id == tag]
    assert gone and gone[-1].item is not None and set(tagged) <= set(gone[-1].item.notes)


def test_a_tags_page_reads_its_notes_once(joplin: JoplinServer, store: JoplinStore, wire: Wire) -> None:
    tag, title = _tag(joplin)
    _filled(joplin, 30, tag)
    wire.clear()
    page = load_page(store, NoteSource(SourceKind.TAG, tag, title), NoteOrder.UPDATED, limit=20)
    # More notes than the page: the header's count is asked for, and comes from the same read.
    assert page.total == 30 and len(page.rows) == 20 and page.has_more
    assert _reads(wire, tag) == 1, wire.requests


def test_the_trees_tag_counts_are_read_once_and_follow_changes_in_joplin_and_noted(
    joplin: JoplinServer, store: JoplinStore, wire: Wire, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Other tests change notes in the same Joplin meanwhile: however many, none may make this one
    # read its tag again (each is only asked for its tags), nor may the time the run takes.
    monkeypatch.setattr(tag_notes, "CHECK_NOTES", 1_000_000)
    monkeypatch.setattr(tag_notes, "KEEP_SECONDS", 1e9)
    tag, title = _tag(joplin)
    _, ids = _filled(joplin, 3, tag)
    for _ in range(3):  # more tags in use, so that following the feed once a tag shows
        _filled(joplin, 1, _tag(joplin)[0])

    def count() -> int:
        return {t.id: t.note_count for t in store.list_tags(with_notes_only=True)}.get(tag, 0)

    assert count() == 3
    wire.clear()
    assert count() == 3
    assert _reads(wire, tag) == 0, wire.requests
    # The feed is followed once for every tag of this Joplin (other tests' too), not once a tag.
    assert sum(1 for _, path, _ in wire.requests if path == "/events") <= 2, wire.requests
    joplin.api("PUT", f"/notes/{ids[1]}", {"body": "edited in Joplin"})
    joplin.api("DELETE", f"/notes/{ids[0]}")  # to the trash, in Joplin itself
    wait_until(lambda: count() == 2, what="the trashed note's tag counted without it")
    made = joplin.api("POST", "/notes", {"title": "new", "body": "b", "parent_id": _filled(joplin, 0)[0]})
    joplin.api("POST", f"/tags/{tag}/notes", {"id": made["id"]})
    wait_until(lambda: count() == 3, what="a note made and tagged in Joplin counted")
    store.untag_note(ids[1], [title], actor="user")  # by noted: counted at once
    assert count() == 2
    store.tag_note(ids[2], [title, f"{title}-more"], actor="user")  # already carried; a new tag
    counts = {t.title: t.note_count for t in store.list_tags(with_notes_only=True)}
    assert counts[title] == 2 and counts[f"{title}-more"] == 1
    assert _reads(wire, tag) == 0, wire.requests  # never read again: the counts followed the feed


def test_a_tag_put_on_in_joplin_itself_counts_once_kept_long_enough(
    joplin: JoplinServer, store: JoplinStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tag_notes, "CHECK_NOTES", 1_000_000)  # other tests' changes clear nothing
    now = [0.0]
    store.tags.notes = tag_notes.TagNotes(store.api, clock=lambda: now[0])
    tag, _ = _tag(joplin)
    start = store.latest_cursor()
    _, ids = _filled(joplin, 2)
    joplin.api("POST", f"/tags/{tag}/notes", {"id": ids[0]})

    def fed() -> set[str]:
        return {c.item_id for c in store.changes_since(start, limit=100_000).changes}

    wait_until(lambda: set(ids) <= fed(), what="Joplin's events of the two notes")
    assert store.get_tag(tag).note_count == 1
    # Joplin reports no tag link: this one, the note otherwise unchanged, is not seen at once...
    joplin.api("POST", f"/tags/{tag}/notes", {"id": ids[1]})
    assert store.get_tag(tag).note_count == 1
    now[0] += tag_notes.KEEP_SECONDS  # ...but once the tag has been kept that long
    assert store.get_tag(tag).note_count == 2


def test_a_search_does_not_read_the_recent_notes_again_for_notes_erased_lately(
    joplin: JoplinServer, store: JoplinStore, wire: Wire
) -> None:
    """Notes erased in the recent window are in the change feed but Joplin no longer has them: each
    search asked for them again and, past ``READ_ONE_BY_ONE`` of them, read every note saved in the
    window, bodies and all (3.4 MB for one search page in CI)."""
    folder = str(joplin.api("POST", "/folders", {"title": f"Erased {secrets.token_hex(3)}"})["id"])
    made = [
        str(joplin.api("POST", "/notes", {"title": "gone soon", "parent_id": folder})["id"])
        for _ in range(60)
    ]
    for note_id in made:
        joplin.api("DELETE", f"/notes/{note_id}", params={"permanent": "1"})
    joplin.api("DELETE", f"/folders/{folder}", params={"permanent": "1"})
    keyword = keyword_search_for(store)
    word = f"w{secrets.token_hex(4)}"
    kept = store.create_note(
        NoteDraft("Kept", f"{word} here", store.create_folder("Kept", actor="user").id), actor="user"
    )
    source = NoteSource(SourceKind.SEARCH, word, word)
    load_page(store, source, NoteOrder.UPDATED, keyword=keyword)  # reads the notes changed lately, once
    wire.clear()
    page = load_page(store, source, NoteOrder.UPDATED, keyword=keyword)
    assert [row.meta.id for row in page.rows] == [kept.id]
    asked = [path for _, path, _ in wire.requests if path == "/notes" or path.removeprefix("/notes/") in made]
    assert not asked, asked
