"""What an AI app did to notebooks and tags over MCP, as the person reviews it with ``noted changes``.

Through the SDK's real client over Streamable HTTP, with the person's commands run at the prompt
(``cli_runner``), as ``test_mcp_review_entries`` does for notes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.mcp_support import World, bearer, cli_runner, http_client, http_server, make_world
from tests.integration.test_mcp_review_entries import _calls

from noted.mcp.client_tokens import ClientTokens
from noted.store.sqlite.review import SqliteReview


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    for tool in ("update_notebook", "delete_tag", "manage_tags"):
        w.settings.set(f"ai.tool.{tool}.enabled", True)
    yield w
    w.close()


@pytest.fixture
def token(world: World) -> str:
    return ClientTokens.beside(world.settings.path).add("cursor", tools=["all"])


async def test_a_clients_notebook_rename_is_listed_shown_and_reverted_but_the_persons_rename_stays(
    world: World, token: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = cli_runner(world, capsys, monkeypatch)
    assert cli("changes")[0] == 0
    await _calls(world, token, [("update_notebook", {"id": world.work_id, "title": "Job"})])
    code, out, err = await asyncio.to_thread(cli, "changes")
    assert code == 0, err
    assert f'notebook "Job"  {world.work_id}' in out
    assert "mcp:cursor" in out and 'renamed from "Work"' in out
    (entry,) = json.loads(cli("--json", "changes")[1])
    assert (entry["kind"], entry["item_id"], entry["note_id"]) == ("notebook", world.work_id, "")
    code, out, err = cli("changes", "show", str(entry["id"]))
    assert code == 0 and 'title: "Work" → "Job"' in out

    assert cli("notebook", "rename", "Job", "Mine")[0] == 0  # the person renames it again
    code, out, err = cli("changes", "revert", str(entry["id"]))
    assert code == 3, err
    assert 'it was renamed again since: it stays "Mine"' in out
    assert world.store.get_folder(world.work_id).title == "Mine"
    assert json.loads(cli("--json", "changes")[1]) == []


async def test_a_tag_a_client_deleted_is_put_back_on_its_notes(
    world: World, token: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = cli_runner(world, capsys, monkeypatch)
    assert cli("tag", world.work_note, "urgent")[0] == 0
    assert cli("changes")[0] == 0
    tag = world.store.find_tag("urgent")
    assert tag is not None
    await _calls(world, token, [("delete_tag", {"id": tag.id})])
    listed = json.loads((await asyncio.to_thread(cli, "--json", "changes"))[1])
    (entry,) = [e for e in listed if e["kind"] == "tag"]
    assert entry["summary"] == "deleted (was on 1 note)"
    code, out, err = cli("changes", "revert", str(entry["id"]))
    assert code == 0, err
    assert "Reverted change" in out and 'tag "urgent"' in out
    assert [t.title for t in world.store.note_tags(world.work_note)] == ["urgent"]


async def test_showing_a_scoped_clients_delete_tag_proposal_names_the_tag_and_the_notes_it_untags(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    world.deps = dataclasses.replace(world.deps, review=SqliteReview(world.store.db))
    cli = cli_runner(world, capsys, monkeypatch)
    for note in (world.work_note, world.private_note):
        assert cli("tag", note, "urgent")[0] == 0
    tag = world.store.find_tag("urgent")
    assert tag is not None
    clients = ClientTokens.beside(world.settings.path)
    token = clients.add("rev", notebooks=[world.work_id], tools=["all"], writes="review")
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), "2026-07-28", headers=bearer(token)) as client:
            assert not (await client.call_tool("delete_tag", {"id": tag.id})).is_error
    (proposal,) = json.loads((await asyncio.to_thread(cli, "--json", "changes", "--pending"))[1])
    code, out, err = cli("changes", "show", proposal["proposal"])
    assert code == 0, err
    # The note in "Work" is named; the one in "Private", outside the client's scope, is not
    # (it keeps the tag when the proposal is accepted).
    assert 'Takes the tag "urgent" off 1 note in the client\'s notebooks' in out
    assert '"Quarter budget"' in out and "Secret budget" not in out
