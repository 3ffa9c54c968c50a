"""``noted mcp serve`` (HTTP, as a real process), ``noted mcp token`` and ``noted mcp config``."""

from __future__ import annotations

import json
import logging
import os
import stat
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.mcp_support import World, http_client, make_world, serve_process

from noted.cli import main
from noted.errors import ConfigError
from noted.mcp.options import HttpOptions
from noted.settings import Settings
from noted.settings.handles import MCP_TOKEN_FILE


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    yield w
    w.close()


def run(world: World, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--profile", str(world.profile.root), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


async def test_serve_over_http_until_sigterm(world: World) -> None:
    async with serve_process(world) as served:
        assert served.url.startswith("http://127.0.0.1:"), served.out
        async with http_client(served.url, "legacy", name="cli-test") as client:
            found = await client.call_tool("search_notes", {"query": "budget"})
            assert not found.is_error
    assert served.returncode == 0, served.err
    assert "stopped" in served.out
    assert "no token" in served.out  # the banner says how it is protected


def test_serve_beyond_loopback_without_a_token_is_refused(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(world, capsys, "mcp", "serve", "--host", "0.0.0.0", "--port", "0")
    assert code == 2  # a configuration the settings do not allow is bad input (README's table)
    assert "noted mcp token" in err and "0.0.0.0" in err


@pytest.mark.parametrize("host", ["http://0.0.0.0", "127.0.0.1:8765", "my host"])
def test_serve_on_something_that_is_not_a_host_names_the_option(
    world: World, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    # A URL or an address with its port was taken for a remote host: the refusal spoke of tokens.
    code, _, err = run(world, capsys, "mcp", "serve", "--host", host, "--port", "0")
    assert code == 2
    assert err.strip().splitlines() == [
        f"noted: --host {host!r} is not a host name or an IP address (write it like 127.0.0.1 or ::1)"
    ]


def test_token_creates_a_private_strong_file_and_sets_the_setting(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(world, capsys, "mcp", "token")
    assert code == 0, out
    path = world.profile.root / "mcp-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(path.read_text().strip()) >= 64
    assert Settings.load(world.profile).get_path(MCP_TOKEN_FILE) == path
    assert path.read_text().strip() not in out  # never shown unless asked

    code, _, err = run(world, capsys, "mcp", "token")
    assert code == 2 and "--force" in err
    old = path.read_text()
    code, out, _ = run(world, capsys, "mcp", "token", "--force", "--show")
    assert code == 0 and path.read_text() != old and path.read_text().strip() in out


@pytest.mark.parametrize("client", ["claude", "cursor", "zed", "codex"])
def test_config_prints_working_snippets(
    world: World, capsys: pytest.CaptureFixture[str], client: str
) -> None:
    assert run(world, capsys, "mcp", "token")[0] == 0
    code, out, err = run(world, capsys, "mcp", "config", client, "--json")
    assert code == 0, err
    by_transport = {s["transport"]: s for s in json.loads(out)}
    stdio, http = by_transport["stdio"]["text"], by_transport["http"]["text"]
    profile = str(world.profile.root)
    assert profile in stdio and "--stdio" in stdio and "serve" in stdio
    assert "http://127.0.0.1:8765/mcp" in http
    if client == "codex":
        server = tomllib.loads(stdio)["mcp_servers"]["noted"]
        assert server["args"] == ["--profile", profile, "mcp", "serve", "--stdio"]
        assert tomllib.loads(http)["mcp_servers"]["noted"]["bearer_token_env_var"] == "NOTED_MCP_TOKEN"
    elif client == "claude":
        server = json.loads(stdio.split("\n\n")[0])["mcpServers"]["noted"]
        assert os.path.isabs(server["command"]) and server["args"][-1] == "--stdio"
        assert "Authorization: Bearer" in http
    else:
        key = "context_servers" if client == "zed" else "mcpServers"
        assert json.loads(stdio)[key]["noted"]["args"][:2] == ["--profile", profile]
        assert json.loads(http)[key]["noted"]["headers"]["Authorization"].startswith("Bearer ")
    token = (world.profile.root / "mcp-token").read_text().strip()
    assert token not in out
    code, out, _ = run(world, capsys, "mcp", "config", client, "--transport", "http", "--show-token")
    assert code == 0
    assert (token in out) == (client != "codex")  # codex reads tokens only from the environment


def test_token_add_list_revoke_manage_named_clients(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `token add` opens the profile's services, which point the noted loggers at the profile's log
    # file for the rest of the process; put them back afterwards so later tests' caplog still works
    noted_logger = logging.getLogger("noted")
    for attribute in ("handlers", "propagate", "level"):
        monkeypatch.setattr(noted_logger, attribute, getattr(noted_logger, attribute))
    monkeypatch.setattr(noted_logger, "handlers", list(noted_logger.handlers))
    code, out, _ = run(
        world, capsys, "--json", "mcp", "token", "add", "claude", "--notebooks", "Work", "--tools", "read"
    )
    assert code == 0
    added = json.loads(out)
    assert added["name"] == "claude" and len(added["token"]) >= 43 and added["tools"] == ["read"]
    clients_file = world.profile.config_path.with_name("mcp-clients.json")
    assert stat.S_IMODE(clients_file.stat().st_mode) == 0o600
    assert added["token"] not in clients_file.read_text()  # only its hash is kept
    code, out, _ = run(world, capsys, "--json", "mcp", "token", "list")
    assert code == 0 and json.loads(out) == [
        {
            "name": "claude",
            "notebooks": ["Work"],
            "notebook_ids": [world.work_id],
            "tools": ["read"],
            "created": json.loads(out)[0]["created"],
            "writes": "direct",
        }
    ]
    assert added["token"] not in out
    code, _, err = run(world, capsys, "mcp", "token", "add", "claude")
    assert code != 0 and "exists already" in err
    code, _, err = run(world, capsys, "mcp", "token", "add", "typo", "--notebooks", "Wrok")
    assert code == 1 and 'no notebook with id or title "Wrok"' in err  # a typo is refused, not kept
    code, _, err = run(world, capsys, "mcp", "token", "add", "other", "--tools", "no_such_tool")
    assert code != 0 and "no_such_tool" in err
    code, out, _ = run(world, capsys, "mcp", "config", "claude", "--transport", "stdio", "--client", "claude")
    assert code == 0 and '"--client",' in out and "--stdio --client claude" in out
    assert run(world, capsys, "mcp", "token", "revoke", "claude")[0] == 0
    code, _, err = run(world, capsys, "mcp", "token", "revoke", "claude")
    assert code != 0 and "no client token named" in err
    code, _, err = run(world, capsys, "mcp", "serve", "--stdio", "--client", "claude")
    assert code != 0 and "no client token named" in err


def test_a_token_file_left_empty_by_hand_keeps_the_server_shut(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    # `noted config set mcp.tokenFile ""` is refused, but written by hand the empty text meant "no
    # token": anything on this machine could call the loopback server. It now stands for a file that
    # is not there, so the server refuses to start, and serve prints the file's problem. It printed
    # a second line too, about a token file named "no-token-file (…)" that "does not exist", and
    # `config list` showed that stand-in as the value: now the one line, and the value as written.
    world.settings.path.write_text('[mcp]\ntokenFile = ""\n', encoding="utf-8")
    options = HttpOptions.from_settings(Settings.load(world.profile))
    assert options.token_required()
    with pytest.raises(ConfigError, match='mcp.tokenFile = "" in the config file is refused') as refused:
        options.open_token()  # the app's embedded server says this
    assert "no-token-file" not in str(refused.value)
    code, out, err = run(world, capsys, "mcp", "serve", "--host", "0.0.0.0", "--port", "0")
    assert code == 2 and "listening" not in out
    lines = err.strip().splitlines()
    assert lines[0] == (
        "noted: config.toml: mcp.tokenFile is empty, and an empty value never means no token; "
        "until it is fixed, the MCP server does not start"
    )
    assert len(lines) == 1, err
    code, out, err = run(world, capsys, "config", "list", "mcp.tokenFile")
    assert code == 0 and out.split() == ["MCP", "server", "mcp.tokenFile", '""', "config", "file"], out
    assert "until it is fixed, the MCP server does not start" in err
