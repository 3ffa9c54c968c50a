"""Every scoped tool answers a thing outside the client's scope byte for byte as one that does
not exist: notes, notebooks, tags, attachments and proposals by id, notebooks and tags by title.

``ARGUMENTS`` is the table: each argument of a tool that names something, and what it names. A
tool argument of that shape missing from it fails the test, so a new tool cannot slip past. Each
tool is called through the SDK's client with each of its own documented examples that holds such
an argument, once naming hidden things and once things that do not exist; the two answers, the
names written alike, must be the same. On every backend: the check is in the tools, the lookups
in each store.

Not vacuous: for every kind, a client without a scope gets another answer for the hidden thing
from some tool (it reaches it). That client writes in review mode, so its writes wait as
proposals and the world stays as it was; one of them is the hidden proposal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from tests.integration.mcp_support import bearer, http_client
from tests.support.backends import BACKENDS, LocalStore, open_backend

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.deps import McpDeps
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.models import NoteDraft
from noted.ops.attachments import attach_to_note
from noted.search.joplin import keyword_search_for
from noted.settings import Settings
from noted.store.sqlite.review import SqliteReview
from noted.tools import all_tools, build_registry

ARGUMENTS = {
    ("semantic_search_notes", "notebook_id"): "notebook",
    ("semantic_search_notes", "tag_id"): "tag",
    ("read_note", "id"): "note",
    ("read_notes", "ids"): "note",
    ("note_history", "id"): "note",
    ("note_links", "id"): "note",
    ("list_notes", "notebook_id"): "notebook",
    ("list_notes", "tag_id"): "tag",
    ("list_tag_notes", "tag_id"): "tag",
    ("list_notebook_notes", "notebook_id"): "notebook",
    ("get_notebook", "id"): "notebook",
    ("get_tag", "id"): "tag",
    ("list_attachments", "note_id"): "note",
    ("get_attachment", "id"): "attachment",
    ("read_attachment", "id"): "attachment",
    ("proposal_status", "ids"): "proposal",
    ("create_notebook", "parent_id"): "notebook",
    ("update_notebook", "id"): "notebook",
    ("update_notebook", "parent_id"): "notebook",
    ("delete_notebook", "id"): "notebook",
    ("restore_notebook", "id"): "notebook",
    ("rename_tag", "id"): "tag",
    ("delete_tag", "id"): "tag",
    ("attach_file", "note_id"): "note",
    ("replace_attachment", "id"): "attachment",
    ("delete_attachment", "id"): "attachment",
    ("create_note", "notebook_id"): "notebook",
    ("create_note", "notebook_title"): "notebook title",
    ("update_note", "id"): "note",
    ("update_note", "notebook_id"): "notebook",
    ("delete_note", "id"): "note",
    ("restore_note", "id"): "note",
    ("manage_tags", "note_id"): "note",
}
"""Each tool argument that names a thing, and the kind of thing it names."""
QUERIES = {"notebook title": "notebook:{} budget", "tag title": "tag:{} budget"}
"""Search filters that name a thing by title, for each search tool."""
SEARCHES = ("search_notes", "find_notes", "semantic_search_notes")
NOWHERE = {
    "note": "0" * 32,
    "notebook": "1" * 32,
    "tag": "2" * 32,
    "attachment": "3" * 32,
    "proposal": "p999",
    "notebook title": "Nowhere",
    "tag title": "nothing",
}


def _names_a_thing(key: str) -> bool:
    return key.endswith(("id", "ids", "_title"))


@dataclass
class Hidden:
    """The things outside the client's scope (in "Private"), by kind, and the client's token."""

    things: dict[str, str]
    scoped: str


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as opened:
        yield opened


def _deps(store: LocalStore, tmp_path: Path) -> McpDeps:
    settings = Settings.load(tmp_path / "config.toml")
    for tool in all_tools():
        settings.set(f"ai.tool.{tool.name}.enabled", True)
    return McpDeps(
        store, keyword_search_for(store), settings, build_registry(settings), review=SqliteReview(store.db)
    )


def _hide(store: LocalStore, clients: ClientTokens) -> Hidden:
    work = store.create_folder("Work", actor="user")
    private = store.create_folder("Private", actor="user")
    store.create_note(NoteDraft("Quarter budget", "The budget for the quarter.\n", work.id), actor="user")
    secret = store.create_note(NoteDraft("Secret budget", "The secret budget.\n", private.id), actor="user")
    (tag,) = store.tag_note(secret.id, ["secret"], actor="user")
    file = attach_to_note(
        store, secret, b"SECRET BYTES\n", filename="keys.txt", mime="text/plain", title="keys", actor="user"
    )
    things = {
        "note": secret.id,
        "notebook": private.id,
        "tag": tag.id,
        "attachment": file.id,
        "notebook title": "Private",
        "tag title": "secret",
    }
    return Hidden(things, clients.add("work", notebooks=[work.id]))


async def _answer(client: Client, name: str, args: dict[str, Any], words: dict[str, str]) -> str:
    try:
        result = await client.call_tool(name, args)
    except MCPError as exc:
        text = f"{exc.error.code} {exc.error.message}"
    else:
        text = json.dumps(
            [result.is_error, result.structured_content, [c.model_dump() for c in result.content]]
        )
    for value, word in words.items():
        text = re.sub(rf"(?<![0-9A-Za-z]){re.escape(value)}(?![0-9A-Za-z])", word, text)
    return text


def _calls(things: dict[str, str]) -> list[tuple[str, dict[str, Any], str]]:
    """Each call of the table: (tool, arguments naming ``things``, the kinds it names)."""
    calls = []
    for tool in (t for t in all_tools() if not t.editor):
        keys = [k for k in tool.input_schema.get("properties", {}) if _names_a_thing(k)]
        unknown = [k for k in keys if (tool.name, k) not in ARGUMENTS]
        assert not unknown, f"{tool.name}: say in ARGUMENTS what {unknown} name"
        for example in tool.examples:
            named = {k: ARGUMENTS[(tool.name, k)] for k in keys if k in example}
            if named:
                args = {
                    k: ([things[named[k]]] if isinstance(v, list) else things[named[k]]) if k in named else v
                    for k, v in example.items()
                }
                calls.append((tool.name, args, ",".join(sorted(set(named.values())))))
        if tool.name in SEARCHES:
            for kind, query in QUERIES.items():
                calls.append((tool.name, {"query": query.format(things[kind])}, kind))
    return calls


async def test_a_thing_outside_the_scope_answers_as_one_that_does_not_exist(
    store: LocalStore, tmp_path: Path
) -> None:
    deps = _deps(store, tmp_path)
    clients = ClientTokens.beside(deps.settings.path)
    hidden = _hide(store, clients)
    everything = clients.add("other", writes="review")
    http = HttpServer(NotedMcp(deps, poll_seconds=0.2), HttpOptions(port=0, clients_file=clients.path))
    await http.start()
    try:
        async with (
            http_client(str(http.url), "legacy", headers=bearer(hidden.scoped)) as scoped,
            http_client(str(http.url), "legacy", headers=bearer(everything)) as other,
        ):
            proposed = await other.call_tool("update_note", {"id": hidden.things["note"], "append": "x"})
            assert not proposed.is_error and proposed.structured_content is not None, proposed.content
            status = await other.call_tool("proposal_status", {})
            assert status.structured_content is not None
            hidden.things["proposal"] = status.structured_content["proposals"][0]["proposal"]
            words = {v: kind.upper() for things in (hidden.things, NOWHERE) for kind, v in things.items()}
            differ, reached = [], set()
            for name, args, kinds in _calls(hidden.things):
                outside = await _answer(scoped, name, args, words)
                missing = await _answer(scoped, name, _nowhere(args, hidden.things), words)
                if outside != missing:
                    differ.append((name, args, outside, missing))
                if await _answer(other, name, args, words) != outside:
                    reached.update(kinds.split(","))
            made = await scoped.call_tool("create_tag", {"title": "SECRET"})  # used only elsewhere
            assert made.structured_content is not None and made.structured_content["created"], made.content
            after = await _answer(scoped, "get_tag", {"id": made.structured_content["id"]}, words)
            assert after == await _answer(scoped, "get_tag", {"id": NOWHERE["tag"]}, words)
    finally:
        await http.stop()
    assert differ == [], differ
    assert reached == set(NOWHERE), f"no client reached the hidden {set(NOWHERE) - reached}: nothing proven"
    assert [t.title for t in store.note_tags(hidden.things["note"])] == ["secret"]  # nothing changed there


def _nowhere(args: dict[str, Any], things: dict[str, str]) -> dict[str, Any]:
    """``args`` with every hidden thing named in it replaced by one of its kind that does not exist."""
    swap = {things[kind]: NOWHERE[kind] for kind in things}

    def swapped(value: Any) -> Any:
        if isinstance(value, list):
            return [swapped(v) for v in value]
        if isinstance(value, str):
            for old, new in swap.items():
                value = re.sub(rf"(?<![0-9A-Za-z]){re.escape(old)}(?![0-9A-Za-z])", new, value)
        return value

    return {k: swapped(v) for k, v in args.items()}
