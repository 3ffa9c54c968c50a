"""A note erased in Joplin itself, whose revisions noted kept, through the MCP tools: the
``note_history`` tool (the chat's too: one registry) lists it and ``restore_note`` writes it again,
for a client without a scope and one whose scope holds the notebook the feed last saw it in. To a
client whose scope does not, both answer byte for byte as for a note that never existed.

A client in review mode gets a proposal from ``restore_note``: ``noted changes`` says the note is
erased and written again, a rejection writes nothing, and an accept writes it again in its last
notebook, or, while that notebook is in the trash, is refused (saying to restore that notebook) and waits."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from tests.integration.mcp_support import Cli, bearer, cli_runner, http_client
from tests.support.joplin import JoplinServer, shared_server

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.deps import McpDeps
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.models import ACTOR_USER, Folder, Note, NoteDraft, NotePatch
from noted.ops import review_list
from noted.ops.review import Review
from noted.profile import Profile
from noted.search.joplin import keyword_search_for
from noted.settings import Settings
from noted.store.joplin import JoplinStore
from noted.store.sqlite.review import SqliteReview
from noted.tools import all_tools, build_registry

pytestmark = pytest.mark.slow
NOWHERE = "0" * 32


async def _answer(client: Client, tool: str, note_id: str) -> str:
    """The tool's whole answer, the note's id written as ID."""
    result = await client.call_tool(tool, {"id": note_id})
    text = json.dumps([result.is_error, result.structured_content, [c.model_dump() for c in result.content]])
    return text.replace(note_id, "ID")


def _erased_plan(joplin: JoplinServer, store: JoplinStore) -> tuple[Folder, Folder, Note]:
    """Notebooks "Work" and "Other", and the note "Plan" saved twice by noted in "Work", then
    erased through Joplin's API."""
    work = store.create_folder("Work", actor=ACTOR_USER)
    other = store.create_folder("Other", actor=ACTOR_USER)
    note = store.create_note(NoteDraft("Plan", "first text\n", work.id), actor=ACTOR_USER)
    store.update_note(note.id, NotePatch(body="second text\n"), actor=ACTOR_USER)
    joplin.api("DELETE", f"/notes/{note.id}", params={"permanent": "1"})
    return work, other, note


async def test_an_erased_note_is_listed_and_restored_over_mcp_in_scope_and_hidden_outside(
    tmp_path: Path,
) -> None:
    """Both tools said "no note with id …" for the erased note, to every client."""
    joplin: JoplinServer = shared_server(tmp_path.parent)
    joplin.wipe()
    store = joplin.store(tmp_path / "store")
    settings = Settings.load(tmp_path / "config.toml")
    for tool in all_tools():
        settings.set(f"ai.tool.{tool.name}.enabled", True)
    deps = McpDeps(
        store, keyword_search_for(store), settings, build_registry(settings), review=SqliteReview(store.db)
    )
    try:
        work, other, note = _erased_plan(joplin, store)
        clients = ClientTokens.beside(settings.path)
        tokens = {
            "all": clients.add("all"),
            "work": clients.add("work", notebooks=[work.id]),
            "other": clients.add("other", notebooks=[other.id]),
        }
        http = HttpServer(NotedMcp(deps, poll_seconds=0.2), HttpOptions(port=0, clients_file=clients.path))
        await http.start()
        try:
            answers: dict[str, dict[str, Any]] = {}
            for name, token in tokens.items():
                async with http_client(str(http.url), "legacy", headers=bearer(token)) as client:
                    if name == "other":  # not vacuous: the others reach the note by the same call
                        for called in ("note_history", "restore_note"):
                            assert await _answer(client, called, note.id) == await _answer(
                                client, called, NOWHERE
                            )
                        continue
                    result = await client.call_tool("note_history", {"id": note.id})
                    assert not result.is_error and result.structured_content is not None, result.content
                    answers[name] = result.structured_content
            async with http_client(str(http.url), "legacy", headers=bearer(tokens["work"])) as client:
                restored = await client.call_tool("restore_note", {"id": note.id})
        finally:
            await http.stop()
        for name, listed in answers.items():
            assert (listed["title"], listed["total"], listed["erased"]) == ("Plan", 2, True), name
        assert not restored.is_error and restored.structured_content is not None, restored.content
        assert restored.structured_content["notebook_id"] == work.id
        back = joplin.api("GET", f"/notes/{note.id}", params={"fields": "title,body,parent_id"})
        assert (back["title"], back["body"], back["parent_id"]) == ("Plan", "second text\n", work.id)
    finally:
        store.close()


async def _proposed(client: Client, note_id: str) -> str:
    result = await client.call_tool("restore_note", {"id": note_id})
    assert not result.is_error and result.structured_content is not None, result.content
    assert result.structured_content["status"] == "pending_review"
    return str(result.structured_content["proposal"])


def _absent(joplin: JoplinServer, note_id: str) -> None:
    with pytest.raises(httpx.HTTPStatusError, match="404"):
        joplin.api("GET", f"/notes/{note_id}", params={"fields": "id"})


async def test_a_restore_of_an_erased_note_in_review_mode_waits_is_shown_rejected_and_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """restore_note answered "no note with id" in review mode, though note_history listed the note."""
    joplin: JoplinServer = shared_server(tmp_path.parent)
    joplin.wipe()
    monkeypatch.setenv("NOTED_JOPLIN_TOKEN", joplin.token)
    monkeypatch.setenv("NOTED_JOPLIN_URL", joplin.url)
    monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "fake")
    profile = tmp_path / "noted"
    cli = cli_runner(profile, capsys, monkeypatch)
    assert cli("init", "--joplin")[0] == 0
    store = joplin.store(profile)
    settings = Settings.load(Profile(profile))
    settings.set("ai.tool.restore_note.enabled", True)
    review = SqliteReview(store.db)
    deps = McpDeps(store, keyword_search_for(store), settings, build_registry(settings), review=review)
    try:
        work, other, note = _erased_plan(joplin, store)
        clients = ClientTokens.beside(settings.path)
        work_token = clients.add("work", notebooks=[work.id], writes="review")
        other_token = clients.add("other", notebooks=[other.id], writes="review")
        http = HttpServer(NotedMcp(deps, poll_seconds=0.2), HttpOptions(port=0, clients_file=clients.path))
        await http.start()
        try:
            async with http_client(str(http.url), "legacy", headers=bearer(other_token)) as client:
                # outside its notebooks: as for a note that never existed, and nothing proposed
                assert await _answer(client, "restore_note", note.id) == await _answer(
                    client, "restore_note", NOWHERE
                )
            assert review.proposals() == []
            async with http_client(str(http.url), "legacy", headers=bearer(work_token)) as client:
                first, second = [await _proposed(client, note.id) for _ in range(2)]
                _absent(joplin, note.id)  # nothing written yet
                listed = review_list.items(Review(store, review)).rows  # the app's Changes view
                assert {r.summary for r in listed if r.proposal} == {
                    "waits for you: restore note (an erased note: accepting writes it again)"
                }
                await _decide(cli, joplin, store, note.id, work.id, first, second)
                status = await client.call_tool("proposal_status", {"ids": [first, second]})
                assert status.structured_content is not None, status.content
                states = {p["proposal"]: p["status"] for p in status.structured_content["proposals"]}
                assert states == {first: "rejected", second: "applied"}
        finally:
            await http.stop()
        back = joplin.api("GET", f"/notes/{note.id}", params={"fields": "title,body,parent_id"})
        assert (back["title"], back["body"], back["parent_id"]) == ("Plan", "second text\n", work.id)
        assert store.note_history(note.id)[0].actor == "mcp:work"
    finally:
        store.close()


async def _decide(
    cli: Cli, joplin: JoplinServer, store: JoplinStore, note_id: str, work_id: str, *refs: str
) -> None:
    """The person, at another prompt (a thread: the client's loop runs in this one), reads both
    proposals, rejects the first, accepts the second while its notebook is in the trash (it
    waits: the person can bring the notebook back), then once it is back."""
    first, second = refs

    async def run(*args: str) -> tuple[int, str, str]:
        return await asyncio.to_thread(cli, *args, "--joplin")

    code, out, err = await run("changes")
    assert code == 0 and 'restore note "Plan" (an erased note: accepting writes it again)' in out, (out, err)
    code, out, err = await run("changes", "show", first)
    assert code == 0, err
    assert (
        "erased outside noted" in out
        and 'writes it again, as its newest revision, with its id, in "Work"' in out
    )
    assert "+second text" in out, out
    code, out, err = await run("changes", "reject", first)
    assert code == 0, err
    _absent(joplin, note_id)
    joplin.api("DELETE", f"/folders/{work_id}")  # to Joplin's trash: still in the client's notebooks
    code, out, err = await run("changes", "show", second)
    assert code == 0 and "the notebook it was last in is in the trash: restore that notebook" in out, out
    code, out, err = await run("changes", "accept", second)
    # In the person's words, as the other refusals of an accept: no tool name (restore_notebook).
    assert code == 1 and "restore_notebook" not in err, (out, err)
    assert (
        f'note "Plan" was last in a notebook in the trash: restore that notebook, then accept {second} '
        "again (it still waits), or reject it" in err
    ), (out, err)
    _absent(joplin, note_id)
    store.restore_folder(work_id, actor=ACTOR_USER)
    code, out, err = await run("changes", "accept", second)
    assert code == 0, err
