"""Every scoped tool refuses a thing outside the client's scope in the very words it uses for one
that does not exist.

Each tool on is called, through the SDK's client, with its own documented example, once with the
ids of a note and a notebook outside the client's scope and once with ids that name nothing; the
two answers, the ids named alike, must be the same. Not vacuous: the main token (no scope) gets a
different answer for the hidden ids, for some tool at least (it reaches them).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from tests.integration.mcp_support import World, bearer, http_client, http_server, make_world

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.token import create
from noted.tools import all_tools

NOWHERE_NOTE, NOWHERE_BOOK = "0" * 32, "1" * 32


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    for tool in all_tools():
        w.settings.set(f"ai.tool.{tool.name}.enabled", True)
    yield w
    w.close()


def _ids(schema: dict[str, Any]) -> dict[str, str]:
    """The arguments of a tool that name a note or a notebook: "note" or "notebook"."""
    named = {}
    for key, spec in schema.get("properties", {}).items():
        said = str(spec.get("description", "")).lower()
        if key.endswith("id") and spec.get("type") == "string":
            named[key] = "notebook" if "notebook" in said or "parent" in key else "note"
    return named


async def _answer(client: Client, name: str, args: dict[str, Any], ids: dict[str, str]) -> str:
    try:
        result = await client.call_tool(name, args)
    except MCPError as exc:
        text = exc.error.message
    else:
        text = json.dumps(
            [result.is_error, result.structured_content, [c.model_dump() for c in result.content]]
        )
    for value, word in ids.items():
        text = text.replace(value, word)
    return text


async def test_a_thing_outside_the_scope_is_refused_as_one_that_does_not_exist(
    world: World, tmp_path: Path
) -> None:
    clients = ClientTokens.beside(world.settings.path)
    work = clients.add("work", notebooks=[world.work_id])
    main = create(tmp_path / "main-token")
    hidden = {"note": world.private_note, "notebook": world.private_id}
    nowhere = {"note": NOWHERE_NOTE, "notebook": NOWHERE_BOOK}
    words = {v: k.upper() for ids in (hidden, nowhere) for k, v in ids.items()}  # named alike
    differ, reached = [], []
    async with (
        http_server(world, clients_file=clients.path, token_file=tmp_path / "main-token") as http,
        http_client(str(http.url), "legacy", headers=bearer(work)) as scoped,
        http_client(str(http.url), "legacy", headers=bearer(main)) as everything,
    ):
        calls = []
        for tool in (t for t in all_tools() if not t.editor and t.examples):
            named = _ids(tool.input_schema)
            for example in tool.examples:
                keys = [k for k in named if k in example]
                if keys:
                    args = {k: hidden[named[k]] if k in keys else v for k, v in example.items()}
                    gone = {k: nowhere[named[k]] if k in keys else v for k, v in example.items()}
                    calls.append((tool.name, args, gone))
        answers = []
        for name, args, gone in calls:  # the scoped client's first (the main token's writes change things)
            outside = await _answer(scoped, name, args, words)
            missing = await _answer(scoped, name, gone, words)
            answers.append(outside)
            if outside != missing:
                differ.append((name, outside, missing))
        for (name, args, _), outside in zip(calls, answers, strict=True):
            if await _answer(everything, name, args, words) != outside:
                reached.append(name)
    assert differ == [], differ
    assert reached, "the main token reached none of the hidden things: the check proves nothing"
