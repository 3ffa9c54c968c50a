"""A scope is a set of notebooks fixed by id, set up by a person and then used by an AI app.

The person's side is the real command line (``main``, in this process); the app's side is the
SDK's client over HTTP (and stdio where a scope applies there). The profile holds a top-level
"Work" and a "Work" inside "Secret", the case the issue reproduced: a scope that named titles let
a client see both, and any "Work" made later. Not vacuous: every assertion that something is
hidden is paired with a check that the thing exists and is found without the scope.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.integration.mcp_support import (
    Cli,
    World,
    add_client,
    bearer,
    cli_runner,
    http_client,
    http_server,
    make_world,
    noted_command,
    raw_stdio,
    text_of,
)
from tests.support.polling import wait_for_async

from noted.errors import ConfigError
from noted.mcp.client_tokens import ClientTokens
from noted.mcp.embedded import EmbeddedMcpServer
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.models import NoteDraft
from noted.settings import Settings
from noted.settings.handles import MCP_ALLOWED_NOTEBOOKS
from noted.store.sqlite.review import SqliteReview


@dataclass(frozen=True)
class Inner:
    """Secret/Work, beside make_world's top-level Work and Private, and its note."""

    secret: str
    work: str
    note: str


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    for tool in ("create_note", "create_notebook", "update_notebook", "delete_notebook", "rename_tag",
                 "delete_tag", "create_tag", "manage_tags"):  # fmt: skip
        w.settings.set(f"ai.tool.{tool}.enabled", True)
    yield w
    w.close()


@pytest.fixture
def inner(world: World) -> Inner:
    secret = world.store.create_folder("Secret", actor="user")
    work = world.store.create_folder("Work", parent_id=secret.id, actor="user")
    body = "# Budget\n\nThe inner budget, kept in Secret.\n"
    note = world.store.create_note(NoteDraft("Inner budget", body, work.id), actor="user")
    return Inner(secret.id, work.id, note.id)


@pytest.fixture
def cli(world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    return cli_runner(world, capsys, monkeypatch)


def _clients_file(world: World) -> Path:
    return ClientTokens.beside(world.settings.path).path


def _ids(result: Any) -> set[str]:
    return {r["id"] for r in result.structured_content["results"]}


# resolving names ---------------------------------------------------------------------------------


def test_an_ambiguous_title_is_refused_listing_the_matches_by_path(
    world: World, inner: Inner, cli: Cli
) -> None:
    code, _, err = cli("mcp", "token", "add", "alpha", "--notebooks", "Work", "--tools", "read")
    assert code == 2
    assert '"Work" matches 2 notebooks' in err and '"Work"' in err and '"Secret/Work"' in err
    assert "path" in err  # what to give instead
    assert not _clients_file(world).exists()  # nothing was added


def test_names_that_are_empty_fail_closed_never_open(world: World, cli: Cli) -> None:
    for option, value in (("--notebooks", ""), ("--notebooks", ","), ("--notebooks", " , "),
                          ("--tools", ""), ("--tools", ",")):  # fmt: skip
        code, _, err = cli("mcp", "token", "add", "gap", option, value)
        assert code == 2 and f"{option} is empty" in err, (option, value, err)
    code, _, err = cli("mcp", "token", "add", "gap", "--tools", "read,serch_notes")
    assert code == 2 and "serch_notes" in err and "search_notes" in err  # the known names are listed
    assert not _clients_file(world).exists()


async def test_a_scope_by_path_holds_its_notebook_and_what_is_made_inside_it_later(
    world: World, inner: Inner, cli: Cli
) -> None:
    alpha = add_client(cli, "alpha", "--notebooks", "Secret/Work", "--tools", "read")
    writer = add_client(cli, "writer", "--notebooks", "Private")
    code, out, _ = cli("mcp", "token", "list")
    assert code == 0 and "alpha: notebooks Secret/Work;" in out  # shown as a path, not an id
    inner_id = inner.work
    async with http_server(world, clients_file=_clients_file(world)) as http:
        url = str(http.url)
        async with http_client(url, "legacy", headers=bearer(writer)) as client:
            # a client scoped elsewhere makes a "Work" of its own and fills it: alpha must not see it
            made = await client.call_tool("create_notebook", {"title": "Work", "parent_id": world.private_id})
            assert not made.is_error, text_of(made)
            planted = await client.call_tool(
                "create_note",
                {
                    "title": "Planted budget",
                    "body": "budget budget",
                    "notebook_id": made.structured_content["id"],
                },
            )
            assert not planted.is_error, text_of(planted)
        later = world.store.create_folder("2026", parent_id=inner_id, actor="user")  # made later, inside
        kept = world.store.create_note(NoteDraft("Later budget", "budget", later.id), actor="user").id
        top = world.store.create_folder("Work", actor="user")  # yet another "Work", made later
        world.store.create_note(NoteDraft("Top budget", "budget", top.id), actor="user")
        async with http_client(url, "2026-07-28", headers=bearer(alpha)) as client:
            notebooks = (await client.call_tool("list_notebooks", {})).structured_content["notebooks"]
            assert {(n["id"], n["parent_id"]) for n in notebooks} == {(inner_id, ""), (later.id, inner_id)}
            found = await client.call_tool("search_notes", {"query": "budget"})
            assert _ids(found) == {inner.note, kept}
            hidden = await client.call_tool("read_note", {"id": world.work_note})
            assert hidden.is_error
    code, out, _ = cli("mcp", "token", "list")
    assert "alpha: notebooks Secret/Work;" in out and "writer: notebooks Private;" in out


async def test_a_scope_holds_over_stdio_too(world: World, inner: Inner, cli: Cli) -> None:
    add_client(cli, "alpha", "--notebooks", "Secret/Work", "--tools", "read")
    async with raw_stdio(world, "--client", "alpha") as (send, reply):
        call = {"name": "search_notes", "arguments": {"query": "budget"}}
        await send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}).encode())
        found = (await reply())["result"]["structuredContent"]["results"]
    assert [r["id"] for r in found] == [inner.note]


# mcp.allowedNotebooks ------------------------------------------------------------------------------


async def test_allowed_notebooks_are_resolved_once_and_written_back_as_ids(
    world: World, inner: Inner
) -> None:
    world.settings.set("mcp.allowedNotebooks", "Private, Secret/Work")
    async with http_server(world) as http:
        assert world.settings.get(MCP_ALLOWED_NOTEBOOKS) == (world.private_id, inner.work)
        world.store.create_folder("Private", parent_id=world.work_id, actor="user")  # same title, elsewhere
        async with http_client(str(http.url), "legacy") as client:
            notebooks = (await client.call_tool("list_notebooks", {})).structured_content["notebooks"]
            assert {n["id"] for n in notebooks} == {world.private_id, inner.work}
            found = await client.call_tool("search_notes", {"query": "budget"})
            assert world.work_note not in _ids(found) and world.private_note in _ids(found)


@pytest.mark.parametrize("where", ["serve", "app", "stdio"])
async def test_an_ambiguous_allowed_notebook_refuses_the_start_saying_how_to_fix_it(
    world: World, inner: Inner, where: str
) -> None:
    world.settings.set("mcp.allowedNotebooks", "Work")
    if where == "serve":
        with pytest.raises(ConfigError) as caught:
            await HttpServer(NotedMcp(world.deps), HttpOptions(port=0)).start()
        message = str(caught.value)
    elif where == "app":
        server = EmbeddedMcpServer(world.deps, options=HttpOptions(port=0), poll_seconds=0)
        with pytest.raises(ConfigError):
            await server.start()
        message = server.state.error or ""
        assert not server.state.running
    else:
        process = await asyncio.create_subprocess_exec(
            *noted_command(), "--profile", str(world.profile.root), "mcp", "serve", "--stdio",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await process.communicate(b"")
        assert process.returncode != 0 and out == b""
        message = err.decode()
    assert '"Work" matches 2 notebooks' in message and '"Secret/Work"' in message, message
    assert "noted config set mcp.allowedNotebooks" in message
    assert world.settings.get(MCP_ALLOWED_NOTEBOOKS) == ("Work",)  # left for the person to fix


async def test_a_guard_written_wrongly_in_the_config_file_stays_shut(world: World) -> None:
    # `noted config set` refuses these, but written by hand the default stood in: every notebook
    # for an empty list (or one with a number in it), writes landing at once for a misspelt review
    world.deps = dataclasses.replace(world.deps, review=SqliteReview(world.store.db))
    write = {"title": "Planted", "notebook_id": world.work_id}
    switches = world.settings.path.read_text(encoding="utf-8")  # the write tools the fixture put on
    async with http_server(world) as http, http_client(str(http.url), "legacy") as client:
        before = (await client.call_tool("list_notebooks", {})).structured_content["notebooks"]
        assert world.work_id in {n["id"] for n in before}  # not vacuous: shared while it is sound
        for notebooks in ("[]", '["Work", 5]'):
            world.settings.path.write_text(
                f'{switches}\n[mcp]\nallowedNotebooks = {notebooks}\nwrites = "reveiw"\n', encoding="utf-8"
            )
            world.settings.reload()  # as the running server does about once a second
            listed = await client.call_tool("list_notebooks", {})
            assert listed.structured_content["notebooks"] == [], notebooks
            found = await client.call_tool("search_notes", {"query": "budget"})
            assert _ids(found) == set(), notebooks
        world.settings.path.write_text(f'{switches}\n[mcp]\nwrites = "reveiw"\n', encoding="utf-8")
        world.settings.reload()
        made = await client.call_tool("create_note", write)
        assert made.structured_content["status"] == "pending_review", text_of(made)
    assert "Planted" not in {n.title for n in world.store.list_notes()}


# tags ---------------------------------------------------------------------------------------------


def _normal(value: Any, ids: dict[str, str]) -> Any:
    """An answer with ids replaced by names given in order of appearance, for comparing two worlds."""
    text = json.dumps(value, sort_keys=True)
    for found in re.findall(r"[0-9a-f]{32}", text):
        ids.setdefault(found, f"id{len(ids)}")
        text = text.replace(found, ids[found])
    return json.loads(text)


async def _tag_session(world: World, token: str) -> list[Any]:
    """What a client scoped to Work gets from a round of tag calls (text of each answer)."""
    answers: list[Any] = []
    async with http_server(world, clients_file=_clients_file(world)) as http:
        async with http_client(str(http.url), "legacy", headers=bearer(token)) as client:

            async def call(name: str, **args: Any) -> dict[str, Any]:
                result = await client.call_tool(name, args)
                answers.append({"tool": name, "error": result.is_error, "text": text_of(result)})
                return result.structured_content or {}

            tags = (await call("list_tags"))["tags"]
            shared = next(t["id"] for t in tags if t["title"] == "shared")
            await call("get_tag", id=shared)
            await call("create_tag", title="Hidden")
            renamed = await call("rename_tag", id=shared, title="HIDDEN")  # onto a title used elsewhere?
            await call("get_tag", id=renamed["id"])
            await call("manage_tags", note_id=world.work_note, add=["mine"])
            mine = next(t["id"] for t in (await call("list_tags"))["tags"] if t["title"] == "mine")
            await call("rename_tag", id=mine, title="ours")
            await call("delete_tag", id=renamed["id"])
            await call("list_tags")
            # a tag on no note, made by this client: there, by id, only once one of its notes
            # carries it (a tag used only elsewhere, made anew, cannot be told from it)
            made = await call("create_tag", title="fresh")
            await call("get_tag", id=made["id"])
            await call("rename_tag", id=made["id"], title="fresher")
            await call("delete_tag", id=made["id"])
    return answers


async def test_tag_answers_do_not_depend_on_notes_outside_the_scope(tmp_path: Path) -> None:
    """Two profiles alike in Work and different outside it: one has "shared" and "hidden" on a
    note in Private, the other not. A client scoped to Work gets the same answers in both."""
    worlds = [make_world(tmp_path / name) for name in ("outside", "alone")]
    try:
        sessions = []
        for world, outside in zip(worlds, (True, False), strict=True):
            for tool in ("rename_tag", "delete_tag", "create_tag", "manage_tags"):
                world.settings.set(f"ai.tool.{tool}.enabled", True)
            world.store.tag_note(world.work_note, ["shared"], actor="user")
            if outside:
                world.store.tag_note(world.private_note, ["SHARED", "Hidden", "hushhush"], actor="user")
            clients = ClientTokens.beside(world.settings.path)
            token = clients.add("scoped", notebooks=[world.work_id])
            names: dict[str, str] = {}
            sessions.append(_normal(await _tag_session(world, token), names))
        refused = [(a["tool"], re.sub(r"id\d+", "ID", a["text"])) for a in sessions[1] if a["error"]]
        unknown = 'no tag with id "ID"; list_tags lists them'
        assert refused == [(t, unknown) for t in ("get_tag", "rename_tag", "delete_tag")], sessions[1]
        assert sessions[0] == sessions[1]
        private = [t.title for t in worlds[0].store.note_tags(worlds[0].private_note)]
        assert private == ["Hidden", "hushhush", "shared"]  # the note outside kept its tags as they were
    finally:
        for world in worlds:
            world.close()


# notebooks ----------------------------------------------------------------------------------------


async def test_a_client_cannot_move_or_trash_the_top_of_its_scope_and_is_told_whose_limit(
    world: World, inner: Inner, cli: Cli
) -> None:
    token = add_client(cli, "alpha", "--notebooks", "Secret/Work")
    inner_id = inner.work
    async with http_server(world, clients_file=_clients_file(world)) as http:
        async with http_client(str(http.url), "legacy", headers=bearer(token)) as client:
            trashed = await client.call_tool("delete_notebook", {"id": inner_id})
            assert trashed.is_error and 'the client token "alpha"' in text_of(trashed)
            moved = await client.call_tool("update_notebook", {"id": inner_id, "parent_id": ""})
            assert moved.is_error and 'the client token "alpha"' in text_of(moved)
            assert "mcp.allowedNotebooks" not in text_of(moved)  # the limit is the token's, not the setting's
            child = (
                await client.call_tool("create_notebook", {"title": "Sub", "parent_id": inner_id})
            ).structured_content
            out = await client.call_tool("update_notebook", {"id": child["id"], "parent_id": ""})
            assert out.is_error and 'the client token "alpha"' in text_of(out)
            renamed = await client.call_tool("update_notebook", {"id": inner_id, "title": "Job"})
            assert not renamed.is_error, text_of(renamed)  # held by id: a rename keeps it in scope
    assert not world.store.get_folder(inner_id).is_trashed
    assert world.store.get_folder(inner_id).parent_id == inner.secret


async def test_a_name_set_while_serving_is_resolved_and_matches_nothing_until_then(world: World) -> None:
    """`noted config set mcp.allowedNotebooks Private` in another process, while a server runs."""
    async with http_server(world) as http, http_client(str(http.url), "legacy") as client:
        other = Settings.load(world.profile)  # another process's view of the same config file
        other.set("mcp.allowedNotebooks", "Private")
        await wait_for_async(lambda: world.settings.get(MCP_ALLOWED_NOTEBOOKS) == (world.private_id,))
        found = await client.call_tool("search_notes", {"query": "budget"})
        assert _ids(found) == {world.private_note}  # and not Work's, which matched before
