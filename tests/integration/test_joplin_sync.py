"""noted on two machines: two Joplin profiles kept in step by Joplin's own sync (a shared folder).

Each test is one scenario of two machines in step, run through ``noted --joplin`` on each machine as a person
would type it. Joplin is started once for the module (its commands take seconds each).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.mcp_support import text_of
from tests.integration.test_joplin_mcp import stdio_client
from tests.integration.ui_support import until
from tests.support.joplin_sync import Machine, Pair, running_pair
from tests.support.tools_env import make_env
from textual.widgets import ContentSwitcher

from noted.embeddings.fake import FakeEmbedder
from noted.profile import Profile
from noted.services import Services
from noted.settings import Settings
from noted.store.joplin import JoplinStore
from noted.store.joplin.sync_command import last_sync
from noted.store.protocol import NoteOrder
from noted.ui.app import NotedApp
from noted.ui.data import NoteSource, SourceKind
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_rows import row_prompt
from noted.ui.widgets.note_viewer import NoteViewer
from noted.ui.widgets.notebook_tree import NotebookTree
from noted.ui.widgets.status_bar import StatusBar

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    with running_pair(tmp_path_factory.mktemp("two-machines")) as started:
        yield started


def _word(beside: str = "") -> str:
    """A word no other note of the run has, sharing no position of the fake embedder's vectors with
    a word of ``beside`` (the test's other words): a random collision would move the test's scores,
    pushing its note below the relevance floor about once in 60 runs."""
    fake = FakeEmbedder()  # the embedder of the pair's profiles
    taken = {fake.feature(w) for w in beside.split()}
    while True:
        word = "zq" + secrets.token_hex(4)
        feature = fake.feature(word)
        if feature is not None and all(t is None or t[0] != feature[0] for t in taken):
            return word


def _hit_ids(answer: dict[str, object]) -> list[str]:
    hits = answer["hits"]
    assert isinstance(hits, list)
    return [str(h["id"]) for h in hits]


def test_a_note_made_on_the_laptop_is_found_on_the_server_after_sync(
    pair: Pair, capsys: pytest.CaptureFixture[str]
) -> None:
    laptop, server = pair.laptop, pair.server
    word = _word(beside="Harbour Sailing ships wait for the tide sailing ships dinosaurs")
    server.noted_json(capsys, "index")  # the server's index is built and up to date before
    created = laptop.noted_json(
        capsys, "create", f"Harbour {word}", "--body", f"Sailing ships wait for the {word} tide."
    )
    note_id = created["id"]
    # Before the sync the server has nothing: the search below is not vacuous.
    assert _hit_ids(server.noted_json(capsys, "search", word, "--mode", "keyword")) == []

    pair.sync(laptop)

    status = server.noted_json(capsys, "index", "status")
    assert status["behind_by_changes"] >= 1  # the change feed saw the note arrive by sync
    assert _hit_ids(server.noted_json(capsys, "search", word, "--mode", "keyword")) == [note_id]
    indexed = server.noted_json(capsys, "index")  # one indexer pass, following the feed
    assert indexed["looked_at"] >= 1
    assert server.noted_json(capsys, "index", "status")["behind_by_changes"] == 0
    # By meaning: words of the note, one it lacks (keyword search needs them all).
    meaning = server.noted_json(capsys, "search", f"sailing ships {word} dinosaurs", "--mode", "semantic")
    assert _hit_ids(meaning)[0] == note_id


def _conflict_on_server(pair: Pair, capsys: pytest.CaptureFixture[str], word: str) -> tuple[str, str]:
    """A note changed on both machines between syncs; returns (note id, Joplin's conflict copy id).

    The laptop's edit goes up first, so the server's sync finds its own edit in conflict: the
    note takes the laptop's text and the server's text is kept in Joplin's conflict copy.
    """
    laptop, server = pair.laptop, pair.server
    note_id = laptop.noted_json(capsys, "create", f"Rota {word}", "--body", "Monday: Ann")["id"]
    pair.sync(laptop)
    laptop.noted_json(capsys, "edit", note_id, "--append", "Tuesday: Bob (laptop)")
    server.joplin.api("PUT", f"/notes/{note_id}", {"body": "Monday: Ann\nTuesday: Cid (server)"})
    pair.sync(laptop)
    conflicts = [c for c in server.noted_json(capsys, "conflicts") if c["note_id"] == note_id]
    assert len(conflicts) == 1, conflicts
    return note_id, conflicts[0]["copy_id"]


async def test_a_note_changed_on_both_machines_is_shown_as_a_conflict_and_settled_by_hand(
    pair: Pair, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    laptop, server = pair.laptop, pair.server
    note_id, copy_id = _conflict_on_server(pair, capsys, _word())
    shown = server.noted_json(capsys, "show", note_id)
    assert "Tuesday: Bob (laptop)" in shown["body"] and copy_id in shown["conflict"]
    code, out, _ = server.noted(capsys, "show", copy_id)
    assert code == 0 and "Tuesday: Cid (server)" in out and "conflict copy" in out
    compared = server.noted_json(capsys, "conflicts", "show", copy_id)
    assert "-Tuesday: Bob (laptop)" in compared["diff"] and "+Tuesday: Cid (server)" in compared["diff"]

    # The assistant's tools see it as a conflict and may not edit it (as Joplin's apps do not).
    store = server.joplin.store(tmp_path / "tools")
    try:
        env = make_env(store, tmp_path, enabled=("update_note",))
        assert (await env.ok("read_note", id=copy_id))["is_conflict"] is True
        refused = await env.error("update_note", id=copy_id, body="overwritten")
        assert "conflict copy" in (refused.message or "")
        assert "overwritten" not in store.get_note(copy_id).body  # the refusal wrote nothing
    finally:
        store.close()

    merged = tmp_path / "merged.md"
    merged.write_text("Monday: Ann\nTuesday: Bob and Cid\n", encoding="utf-8")
    server.noted_json(capsys, "conflicts", "resolve", copy_id, "--body-file", str(merged))
    assert [c for c in server.noted_json(capsys, "conflicts") if c["note_id"] == note_id] == []
    assert "conflict" not in server.noted_json(capsys, "show", note_id)
    # Neither side is lost: both are revisions of the note.
    history = server.noted_json(capsys, "history", note_id)
    bodies = [server.noted_json(capsys, "history", note_id, "--show", str(r["id"]))["body"] for r in history]
    assert any("Cid (server)" in b for b in bodies) and any("Bob (laptop)" in b for b in bodies)

    pair.sync(server)
    assert laptop.noted_json(capsys, "show", note_id)["body"] == "Monday: Ann\nTuesday: Bob and Cid\n"


def test_settling_a_conflict_by_keeping_the_copy(pair: Pair, capsys: pytest.CaptureFixture[str]) -> None:
    server = pair.server
    note_id, copy_id = _conflict_on_server(pair, capsys, _word())
    code, _, err = server.noted(capsys, "conflicts", "resolve", copy_id)
    assert code != 0 and "--keep" in err  # no choice given: nothing is changed
    assert server.noted_json(capsys, "conflicts", "show", copy_id)["copy"]["id"] == copy_id
    server.noted_json(capsys, "conflicts", "resolve", copy_id[:8], "--keep", "copy")
    assert server.noted_json(capsys, "show", note_id)["body"] == "Monday: Ann\nTuesday: Cid (server)"
    history = server.noted_json(capsys, "history", note_id)
    bodies = [server.noted_json(capsys, "history", note_id, "--show", str(r["id"]))["body"] for r in history]
    assert any("Bob (laptop)" in b for b in bodies)  # the laptop's side stays in the history


def _found(
    machine: Machine, capsys: pytest.CaptureFixture[str], word: str, note_id: str
) -> tuple[bool, bool]:
    """Whether ``machine`` finds the note by keyword, and by meaning after one indexer pass."""
    keyword = note_id in _hit_ids(machine.noted_json(capsys, "search", word, "--mode", "keyword"))
    machine.noted_json(capsys, "index")
    query = f"greenhouse tomatoes {word} dinosaurs"
    meaning = note_id in _hit_ids(machine.noted_json(capsys, "search", query, "--mode", "semantic"))
    return keyword, meaning


def test_a_note_trashed_on_one_machine_leaves_the_others_search_and_comes_back(
    pair: Pair, capsys: pytest.CaptureFixture[str]
) -> None:
    laptop, server = pair.laptop, pair.server
    word = _word(beside="Greenhouse tomatoes need shade greenhouse tomatoes dinosaurs")
    body = f"Greenhouse tomatoes need {word} shade."
    note_id = laptop.noted_json(capsys, "create", f"Greenhouse {word}", "--body", body)["id"]
    pair.sync(laptop)
    assert _found(server, capsys, word, note_id) == (True, True)  # so the next check is not vacuous

    laptop.noted_json(capsys, "trash", note_id)
    pair.sync(laptop)
    assert _found(server, capsys, word, note_id) == (False, False)
    trashed = server.noted_json(capsys, "notes", "--trash")
    assert note_id in [n["id"] for n in trashed]

    laptop.noted_json(capsys, "restore", note_id)
    pair.sync(laptop)
    assert _found(server, capsys, word, note_id) == (True, True)


async def _made_on_the_laptop_and_appended_on_the_server_by_a_client(
    pair: Pair, capsys: pytest.CaptureFixture[str], title: str, body: str, appended: str
) -> str:
    """A note made on the laptop (whose review follows from then on), synced, and appended to on the
    server by an MCP client; its id."""
    laptop, server = pair.laptop, pair.server
    note_id: str = laptop.noted_json(capsys, "create", title, "--body", body)["id"]
    laptop.noted_json(capsys, "changes")
    pair.sync(laptop)
    enable = {"NOTED_AI_TOOL_UPDATE_NOTE_ENABLED": "1"}
    async with stdio_client(server.noted_profile, server.joplin, enable) as client:
        done = await client.call_tool("update_note", {"id": note_id, "append": appended})
        assert not done.is_error, text_of(done)
    return note_id


async def test_an_assistant_edit_on_the_server_keeps_its_author_on_the_laptop(
    pair: Pair, capsys: pytest.CaptureFixture[str]
) -> None:
    laptop, server = pair.laptop, pair.server
    note_id = await _made_on_the_laptop_and_appended_on_the_server_by_a_client(
        pair, capsys, f"Budget {_word()}", "Rent: 900", "Food: 300"
    )
    server_history = server.noted_json(capsys, "history", note_id)
    assert server_history[0]["actor"] == "mcp:self:joplin-client"  # noted recorded it there
    pair.sync(server)

    history = laptop.noted_json(capsys, "history", note_id)
    newest = laptop.noted_json(capsys, "history", note_id, "--show", str(history[0]["id"]))
    # The laptop's noted never saw the edit made; the note carried who made it.
    assert "Food: 300" in newest["body"] and newest["actor"] == server_history[0]["actor"]
    # Its review entry is the sync's (as Joplin's /events say), and its diff is that revision's,
    # labelled as having come by sync.
    (entry,) = _waiting(laptop, capsys, note_id)
    assert entry["actor"] == "sync"
    assert entry["summary"] == "+1 −0 lines; written by mcp:self:joplin-client on another machine"
    shown = laptop.noted_json(capsys, "changes", "show", str(entry["id"]))
    assert "+Food: 300" in shown["diff"]
    assert newest["label"] == "came by sync"

    # An edit made in Joplin itself on the server arrives as Joplin's, the stamp being stale.
    server.joplin.api("PUT", f"/notes/{note_id}", {"body": "Rent: 900\nFood: 300\nGas: 50"})
    pair.sync(server)
    history = laptop.noted_json(capsys, "history", note_id)
    newest = laptop.noted_json(capsys, "history", note_id, "--show", str(history[0]["id"]))
    assert "Gas: 50" in newest["body"] and newest["actor"] == "sync"  # as Joplin's /events say


def _waiting(machine: Machine, capsys: pytest.CaptureFixture[str], note_id: str) -> list[dict[str, object]]:
    """The review entries of ``note_id`` that wait on ``machine`` (``noted changes --json``)."""
    return [e for e in machine.noted_json(capsys, "changes") if e.get("note_id") == note_id]


async def test_an_assistant_edit_from_the_other_machine_is_reverted_here(
    pair: Pair, capsys: pytest.CaptureFixture[str]
) -> None:
    """The review's revert goes back to the text before a change noted made on the other machine
    (before, it found no version to go back to and left the text as it was)."""
    laptop, server = pair.laptop, pair.server
    note_id = await _made_on_the_laptop_and_appended_on_the_server_by_a_client(
        pair, capsys, f"Packing {_word()}", "Boots", "Tent"
    )
    pair.sync(server)

    (entry,) = _waiting(laptop, capsys, note_id)
    code, _, err = laptop.noted(capsys, "changes", "revert", str(entry["id"]))
    assert code == 0, err
    assert laptop.noted_json(capsys, "show", note_id)["body"] == "Boots"
    assert _waiting(laptop, capsys, note_id) == []


def test_a_change_that_came_by_sync_waits_for_review_and_an_edit_made_in_joplin_here_does_not(
    pair: Pair, capsys: pytest.CaptureFixture[str]
) -> None:
    """A note the person writes in Joplin on the laptop is theirs there (``joplin``: not listed);
    on the server it arrives by sync (``sync``: listed, with its diff). Before, both machines listed
    it as ``joplin``, someone else's change."""
    laptop, server = pair.laptop, pair.server
    word = _word()
    for machine in (laptop, server):
        machine.noted_json(capsys, "changes")  # the review follows from here on
    folder = laptop.joplin.api("POST", "/folders", {"title": f"Inbox {word}"})
    note = {"title": f"Trip {word}", "body": "Lisbon in May", "parent_id": folder["id"]}
    note_id = laptop.joplin.api("POST", "/notes", note)["id"]  # as Joplin's app on the laptop writes
    assert _waiting(laptop, capsys, note_id) == []
    assert laptop.noted_json(capsys, "history", note_id)[0]["actor"] == "joplin"

    pair.sync(laptop)
    (entry,) = _waiting(server, capsys, note_id)
    assert entry["actor"] == "sync"
    shown = server.noted_json(capsys, "changes", "show", str(entry["id"]))
    assert "+Lisbon in May" in shown["diff"]  # the revision is the sync's too, so the diff is found

    server.joplin.api("PUT", f"/notes/{note_id}", {"body": "Lisbon in June"})  # the person, on the server
    assert [e["id"] for e in _waiting(server, capsys, note_id)] == [entry["id"]]  # no entry of their own


def test_noted_sync_asks_joplin_to_sync_and_says_when(pair: Pair, capsys: pytest.CaptureFixture[str]) -> None:
    laptop, server = pair.laptop, pair.server
    word = _word()
    note_id = laptop.noted_json(capsys, "create", f"Kettle {word}", "--body", "Descale monthly.")["id"]
    before = laptop.noted_json(capsys, "sync", "--status")["last_sync"] or 0
    ran = laptop.noted_json(capsys, "sync")
    assert "Completed" in ran["summary"] and ran["finished"] > before
    assert laptop.noted_json(capsys, "sync", "--status")["last_sync"] == ran["finished"]
    server.noted_json(capsys, "sync")
    assert _hit_ids(server.noted_json(capsys, "search", word, "--mode", "keyword")) == [note_id]


async def test_the_app_lists_conflicts_and_syncs_now(pair: Pair, capsys: pytest.CaptureFixture[str]) -> None:
    server = pair.server
    note_id, copy_id = _conflict_on_server(pair, capsys, _word())
    profile = Profile(server.noted_profile).ensure()
    environ = {
        "NOTED_SEARCH_INDEXER_ENABLED": "false",
        "NOTED_AI_ENABLED": "false",
        "NOTED_JOPLIN_URL": server.joplin.url,
        "NOTED_JOPLIN_TOKEN": server.joplin.token,
        "NOTED_JOPLIN_SYNC_COMMAND": server.sync_command,
    }
    services = Services.open(
        profile, welcome=False, settings=Settings.load(profile, environ=environ), backend="joplin"
    )
    store = services.store
    assert isinstance(store, JoplinStore)
    before = last_sync(store.db)
    app = NotedApp(services)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            tree = app.workspace.query_one(NotebookTree)
            await until(pilot, lambda: tree.ready, timeout=60)
            labels = [str(node.label) for node in tree.root.children]
            assert any(label.startswith("Conflicts") for label in labels), labels
            tree.select_source(NoteSource(SourceKind.CONFLICTS, title="Conflicts"))
            notes = app.workspace.query_one(NoteList)
            await until(pilot, lambda: copy_id in [r.meta.id for r in notes.rows], timeout=60)
            row = next(r for r in notes.rows if r.meta.id == copy_id)
            assert row.meta.is_conflict and "conflict" in row_prompt(row, False, NoteOrder.UPDATED).plain
            assert note_id not in [r.meta.id for r in notes.rows]  # the note itself is in its notebook

            # Opened, it reads as any note; asked to edit it, the app refuses before any typing.
            notes.focus()
            await pilot.press("g", *["j"] * [r.meta.id for r in notes.rows].index(copy_id), "enter")
            viewer = app.workspace.query_one(NoteViewer)
            await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == copy_id, timeout=60)
            viewer.action_edit()
            await pilot.pause()  # lets the app handle the edit request it posted
            assert app.workspace.query_one("#reader", ContentSwitcher).current == "viewer"

            app.workspace.action_sync_now()  # the palette's "Sync now"
            status = app.workspace.query_one(StatusBar)
            await until(pilot, lambda: status.part("sync").startswith("synced"), timeout=120)
            assert last_sync(store.db) != before
    finally:
        services.close()
