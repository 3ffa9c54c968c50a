"""The OpenAPI door's parts without a server: the document, client names, consent, answers."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError
from referencing.exceptions import Unresolvable

from noted.errors import ConfigError
from noted.mcp.actions import (
    FILE_FIELD,
    LEFT_OUT,
    MAX_SUMMARY,
    actions_actor,
    answer,
    client_of,
    openapi_document,
)
from noted.mcp.options import HttpOptions
from noted.mcp.token import create
from noted.models import ToolStatus
from noted.settings import Settings
from noted.tools import ImageData, Tool, all_tools
from noted.tools.registry import ToolResult

SERVED = [t for t in all_tools() if not t.editor and t.name not in LEFT_OUT]


def test_the_document_is_valid_openapi_31_with_one_operation_per_tool_and_the_same_schemas() -> None:
    doc = openapi_document(SERVED, "https://notes.example.net")
    validate(doc)  # raises on an invalid document
    assert doc["openapi"] == "3.1.0" and doc["servers"] == [{"url": "https://notes.example.net"}]
    assert set(doc["paths"]) == {f"/actions/{t.name}" for t in SERVED}
    for tool in SERVED:
        operation = doc["paths"][f"/actions/{tool.name}"]["post"]
        assert operation["operationId"] == tool.name
        assert operation["requestBody"]["content"]["application/json"]["schema"] == tool.input_schema
        answer_schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
        if tool.name == "read_attachment":
            assert set(answer_schema["properties"]) == {*tool.wire_output_schema["properties"], FILE_FIELD}
        else:
            assert answer_schema == tool.wire_output_schema  # a write may answer pending_review
        assert len(operation["description"]) <= MAX_SUMMARY and tool.description.startswith(
            operation["description"].rstrip("…")
        )
        assert operation["x-openai-isConsequential"] is tool.is_write
    assert doc["security"] == [{"bearerAuth": []}]
    assert doc["components"]["securitySchemes"]["bearerAuth"] == {"type": "http", "scheme": "bearer"}


def test_the_validator_would_catch_a_broken_document() -> None:
    # Not vacuous: the same check refuses a document with a dangling reference or no info.
    doc = openapi_document(SERVED, "https://notes.example.net")
    broken = copy.deepcopy(doc)
    broken["paths"]["/actions/search_notes"]["post"]["responses"]["400"]["content"]["application/json"][
        "schema"
    ]["$ref"] = "#/components/schemas/Nope"
    with pytest.raises((OpenAPIValidationError, Unresolvable)):
        validate(broken)
    without_info = {k: v for k, v in doc.items() if k != "info"}
    with pytest.raises(OpenAPIValidationError):
        validate(without_info)


@pytest.mark.parametrize(
    ("headers", "name"),
    [
        ({"x-client-name": "My Script"}, "My Script"),
        (
            {
                "user-agent": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"
            },
            "ChatGPT-User",
        ),
        ({"user-agent": "curl/8.5.0"}, "curl"),
        ({"user-agent": "python-httpx/0.27.0"}, "python-httpx"),
        ({"x-client-name": "evil\nname\x00", "user-agent": "curl/8"}, "evil name"),
        ({}, "unknown"),
    ],
)
def test_the_client_is_named_from_its_headers(headers: dict[str, str], name: str) -> None:
    assert client_of(headers) == name
    assert actions_actor(None, headers) == f"actions:self:{name}"  # its own word: never a token's name


def test_actions_need_consent_and_a_token(tmp_path: Path) -> None:
    token = tmp_path / "token"
    create(token)
    no_consent = HttpOptions(port=0, token_file=token, actions=True, allow_remote=False)
    with pytest.raises(ConfigError) as refused:
        no_consent.open_token()
    assert "ai.allowRemote" in str(refused.value) and "remote service" in str(refused.value)
    no_token = HttpOptions(port=0, actions=True, allow_remote=True)
    with pytest.raises(ConfigError) as missing:
        no_token.open_token()
    assert "noted mcp token" in str(missing.value)
    assert HttpOptions(port=0, token_file=token, actions=True, allow_remote=True).open_token() is not None
    assert HttpOptions(port=0).open_token() is None  # without actions, loopback needs no token


def test_options_read_the_switch_and_the_consent_from_settings(tmp_path: Path) -> None:
    settings = Settings.load(tmp_path / "config.toml", environ={})
    assert HttpOptions.from_settings(settings).actions is False
    assert HttpOptions.from_settings(settings, actions=True).actions is True  # --actions
    settings.set("mcp.actions.enabled", True)
    settings.set("ai.allowRemote", True)
    options = HttpOptions.from_settings(settings)
    assert options.actions and options.allow_remote
    assert options.openapi_url(9000) == "http://127.0.0.1:9000/openapi.json"


def test_answers_map_each_status_and_carry_images_as_files() -> None:
    image = ImageData("image/png", b"\x89PNG fake")
    ok = answer(
        ToolResult("read_attachment", ToolStatus.OK, {"id": "x", "filename": "shot.png"}, images=(image,))
    )
    assert ok.status_code == 200
    body = json.loads(bytes(ok.body))
    assert body[FILE_FIELD] == [{"name": "shot.png", "mime_type": "image/png", "content": "iVBORyBmYWtl"}]
    for status, code in (("error", 400), ("refused", 403), ("conflict", 409), ("internal", 500)):
        failed = answer(
            ToolResult("t", ToolStatus(status), message="why", field="f" if status == "error" else None)
        )
        assert failed.status_code == code
        assert json.loads(bytes(failed.body))["error"] == "why"


def test_every_tool_served_is_a_plain_tool() -> None:
    assert all(isinstance(t, Tool) and not t.editor for t in SERVED) and len(SERVED) <= 30  # ChatGPT's cap


def test_the_readme_names_every_tool_left_out_of_the_document() -> None:
    """The README said only `find_notes` was left out, and "noted has 28" (it had 30) after two
    more tools joined ``LEFT_OUT``: it must name each, and count nothing that drifts."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    door = readme[readme.index("- `GET /openapi.json`") :]
    door = door[: door.index("- `POST /actions/{tool}`")]
    assert all(f"`{name}`" in door for name in LEFT_OUT), door
    assert "noted has 2" not in readme and "noted has 3" not in readme
