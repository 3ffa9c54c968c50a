"""``noted mcp config CLIENT --client NAME``: the HTTP snippet for a named client carries that
client's token, never the main one.

The main token (``noted mcp token``) has the global scope. Asked for the snippet of a client scoped
to Work, the HTTP form read the main token file (``$(cat mcp-token)``, ``NOTED_MCP_TOKEN`` "set to
the content of mcp-token", or the token itself with ``--show-token``), so an app set up by it saw
every notebook; without a main token it had no header at all, and every request was refused (401).
"""

from __future__ import annotations

import json
import logging
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.mcp_support import World, add_client, cli_runner, make_world

CLIENTS = ("claude", "cursor", "zed", "codex")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    yield w
    w.close()


def _http(out: str) -> str:
    (snippet,) = [s["text"] for s in json.loads(out) if s["transport"] == "http"]
    where = [s["where"] for s in json.loads(out) if s["transport"] == "http"][0]
    return f"{where}\n{snippet}"


@pytest.mark.parametrize("app", CLIENTS)
@pytest.mark.parametrize("main_token", [True, False])
def test_a_named_clients_http_snippet_names_its_own_token_not_the_main_one(
    world: World,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    app: str,
    main_token: bool,
) -> None:
    cli = cli_runner(world, capsys, monkeypatch)
    if main_token:
        assert cli("mcp", "token")[0] == 0
    add_client(cli, "work", "--notebooks", "Work")
    code, out, err = cli("--json", "mcp", "config", app, "--client", "work")
    assert code == 0, err
    http = _http(out)
    # not vacuous: without --client the same snippet does name the main token file (when there is one)
    assert "mcp-token" not in http
    assert "work" in http  # the person is told which token goes there
    if app == "codex":
        server = tomllib.loads(http.split("\n", 1)[1])["mcp_servers"]["noted"]
        assert server["bearer_token_env_var"] == "NOTED_MCP_TOKEN"
    elif app == "claude":
        assert "Authorization: Bearer" in http
    else:
        key = "context_servers" if app == "zed" else "mcpServers"
        entry = json.loads(http.split("\n", 1)[1])[key]["noted"]
        assert entry["headers"]["Authorization"].startswith("Bearer ")
    code, out, _ = cli("--json", "mcp", "config", app)
    assert code == 0 and ("mcp-token" in _http(out)) == main_token


def test_show_token_for_a_named_client_is_refused_and_prints_no_token(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = cli_runner(world, capsys, monkeypatch)
    assert cli("mcp", "token")[0] == 0
    main = (world.profile.root / "mcp-token").read_text().strip()
    add_client(cli, "work", "--notebooks", "Work")
    logging.getLogger("noted").handlers.clear()
    code, out, err = cli("mcp", "config", "cursor", "--client", "work", "--show-token")
    assert code == 2, err
    assert main not in out and main not in err
    assert out == "" and "work" in err and "noted mcp token add work" in err
