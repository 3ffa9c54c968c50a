"""The whole attachment and management story, end to end: an AI app, through MCP (the SDK's real client, both protocol
eras) or through the OpenAPI door (plain HTTP), creates a note in a new notebook with an attached
image, finds it, reads the image, renames the notebook and tags the note; and the note's history
shows each step with the app's name."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from tests.integration.mcp_support import MODES, World, http_client, http_server, make_world, text_of
from tests.support.images import b64, image_bytes, size_of
from tests.support.polling import scaled

from noted.mcp.token import create
from noted.tools import all_tools

STEPS = (
    "created the note's notebook",
    "created the note",
    "added an attachment",
    "changed the note (text, title, notebook, to-do state or trash)",
    "changed the note's notebook (renamed, moved, trashed or restored)",
    "added a tag to the note",
)
"""What the history must show, oldest first (the attachment's link is a change of the note)."""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    for tool in all_tools():  # the person switched the write tools on for this app
        w.settings.set(tool.setting_key, True)
    yield w
    w.close()


def _check_history(history: dict[str, Any], actor: str) -> None:
    ours = [a["what"] for a in reversed(history["activity"]) if a["actor"] == actor]
    assert ours == list(STEPS), ours
    assert {a["actor"] for a in history["activity"]} == {actor}
    assert {r["actor"] for r in history["revisions"]} == {actor}


@pytest.mark.parametrize("mode", MODES)
async def test_through_mcp(world: World, mode: str) -> None:
    png = image_bytes(1200, 600)
    async with http_server(world) as http, http_client(str(http.url), mode, name="Claude Desktop") as client:

        async def call(name: str, args: dict[str, Any]) -> types.CallToolResult:
            result = await client.call_tool(name, args)
            assert not result.is_error, f"{name}: {text_of(result)}"
            return result

        def data(result: types.CallToolResult) -> dict[str, Any]:
            assert isinstance(result.structured_content, dict)
            return result.structured_content

        made = data(
            await call(
                "create_note",
                {
                    "title": "Whiteboard photo",
                    "body": "From the kickoff.",
                    "notebook_title": "Project Kestrel",
                },
            )
        )
        assert made["notebook_created"] is True
        attached = data(
            await call(
                "attach_file",
                {
                    "note_id": made["id"],
                    "filename": "board.png",
                    "mime": "image/png",
                    "content_base64": b64(png),
                },
            )
        )
        found = data(await call("search_notes", {"query": "kickoff"}))
        assert [r["id"] for r in found["results"]] == [made["id"]]
        listed = data(await call("list_attachments", {"note_id": made["id"]}))
        assert [a["id"] for a in listed["attachments"]] == [attached["id"]]

        image = await call("read_attachment", {"id": attached["id"]})
        text, picture = image.content  # the description as JSON text, then the image itself
        assert isinstance(text, types.TextContent) and isinstance(picture, types.ImageContent)
        assert picture.mime_type == "image/png"
        assert size_of(base64.b64decode(picture.data)) == (512, 256)
        assert json.loads(text.text)["image"]["original_width"] == 1200

        await call("update_notebook", {"id": made["notebook_id"], "title": "Project Kestrel (2025)"})
        await call("manage_tags", {"note_id": made["id"], "add": ["kickoff"]})
        history = data(await call("note_history", {"id": made["id"]}))
    _check_history(history, "mcp:self:Claude Desktop")
    assert world.store.get_folder(made["notebook_id"]).title == "Project Kestrel (2025)"


async def test_through_the_openapi_door(world: World, tmp_path: Path) -> None:
    token_path = tmp_path / "token"
    token = create(token_path)
    headers = {"authorization": f"Bearer {token}", "user-agent": "Mozilla/5.0 (compatible; ChatGPT-User/1.0)"}
    png = image_bytes(600, 1200, "JPEG")
    async with http_server(world, token_file=token_path, actions=True, allow_remote=True) as http:
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{http.port}", headers=headers, timeout=scaled(120)
        ) as web:

            async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
                response = await web.post(f"/actions/{name}", json=args)
                assert response.status_code == 200, f"{name}: {response.text[:300]}"
                body: dict[str, Any] = response.json()
                return body

            made = await call(
                "create_note",
                {
                    "title": "Receipt",
                    "body": "Dinner with the team.",
                    "notebook_title": "Expenses 2025",
                    "attachments": [
                        {"filename": "receipt.jpg", "mime": "image/jpeg", "content_base64": b64(png)}
                    ],
                },
            )
            assert made["notebook_created"] is True
            (attached,) = made["attachments"]
            found = await call("list_notes", {"notebook_id": made["notebook_id"]})
            assert [n["id"] for n in found["notes"]] == [made["id"]]
            read = await call("read_attachment", {"id": attached["id"], "detail": "low"})
            (file,) = read["openaiFileResponse"]
            assert file["mime_type"] == "image/jpeg" and size_of(base64.b64decode(file["content"])) == (
                64,
                128,
            )
            await call("update_notebook", {"id": made["notebook_id"], "title": "Expenses (team)"})
            await call("manage_tags", {"note_id": made["id"], "add": ["to-claim"]})
            history = await call("note_history", {"id": made["id"]})
    # create_note stored the attachment before the note, and linked it in the note's first revision.
    ours = [a["what"] for a in reversed(history["activity"])]
    assert ours == [STEPS[0], STEPS[2], STEPS[1], STEPS[4], STEPS[5]]
    assert {a["actor"] for a in history["activity"]} == {"actions:self:ChatGPT-User"}
    assert world.store.get_note(made["id"]).body.endswith(f"![receipt.jpg](:/{attached['id']})\n")
