"""``noted config`` run in-process through ``noted.cli.main``, on a profile in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomlkit

from noted import cli


def run(profile: Path, *argv: str) -> int:
    return cli.main(["--profile", str(profile), *argv])


def test_set_then_get_round_trips_through_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(tmp_path, "config", "set", "ai.enabled", "on") == 0
    assert "ai.enabled = true" in capsys.readouterr().out
    assert tomlkit.parse((tmp_path / "config.toml").read_text()).unwrap()["ai"] == {"enabled": True}
    assert run(tmp_path, "config", "get", "ai.enabled") == 0
    assert capsys.readouterr().out == "true\n"
    assert not (tmp_path / "notes.db").exists()  # config never opens the database


def test_list_groups_by_section_and_names_each_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run(tmp_path, "config", "set", "mcp.allowedNotebooks", "Work, Home")
    capsys.readouterr()
    monkeypatch.setenv("NOTED_MCP_PORT", "9001")
    assert run(tmp_path, "config", "list") == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines.index("Assistant") < lines.index("Tools") < lines.index("MCP server")
    port = next(line for line in lines if "mcp.port" in line).split()
    assert port == ["mcp.port", "9001", "environment", "(NOTED_MCP_PORT)"]
    notebooks = next(line for line in lines if "mcp.allowedNotebooks" in line)
    assert '["Work", "Home"]' in notebooks and notebooks.endswith("config file")
    assert next(line for line in lines if "ai.enabled" in line).endswith("default")


@pytest.mark.parametrize("where", ["before", "after"])
def test_list_as_json_either_flag_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    argv = (
        ["--json", "config", "list", "ai.tool"]
        if where == "before"
        else ["config", "list", "ai.tool", "--json"]
    )
    assert run(tmp_path, *argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["path"] == str(tmp_path / "config.toml") and data["exists"] is False
    assert [s["key"] for s in data["settings"]] == ["ai.tool.edit_current.enabled"]
    assert data["settings"][0]["source"] == "default" and data["settings"][0]["writes_notes"] is True


def test_bad_value_exits_non_zero_and_names_the_allowed_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(tmp_path, "config", "set", "ai.provider", "foo") == 1
    err = capsys.readouterr().err
    assert 'ai.provider must be one of openai, anthropic, fake (got "foo")' in err
    assert not (tmp_path / "config.toml").exists()


def test_unknown_key_suggests_the_right_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, "config", "get", "mcp.prot") == 1
    assert "did you mean mcp.port" in capsys.readouterr().err


def test_unset_restores_the_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(tmp_path, "config", "set", "mcp.port", "9000")
    capsys.readouterr()
    assert run(tmp_path, "--json", "config", "unset", "mcp.port") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == 8765 and data["source"] == "default"
    run(tmp_path, "config", "get", "mcp.port")
    assert capsys.readouterr().out == "8765\n"


def test_a_relative_path_is_taken_from_the_current_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    (work / "key.txt").write_text("k\n", encoding="utf-8")  # the key file must exist
    assert run(tmp_path / "profile", "config", "set", "ai.apiKeyFile", "key.txt") == 0
    capsys.readouterr()
    run(tmp_path / "profile", "config", "get", "ai.apiKeyFile")
    assert capsys.readouterr().out == f"{work / 'key.txt'}\n"


def test_set_says_when_the_environment_overrides_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTED_AI_ENABLED", "1")
    assert run(tmp_path, "config", "set", "ai.enabled", "false") == 0
    out = capsys.readouterr().out
    assert "NOTED_AI_ENABLED overrides it" in out


def test_path_prints_the_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, "config", "path") == 0
    assert capsys.readouterr().out == f"{tmp_path / 'config.toml'}\n"


def test_a_secret_is_refused_with_where_it_belongs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(tmp_path, "config", "set", "ai.apiKey", "sk-abc") == 1
    err = capsys.readouterr().err
    assert "never stores secrets" in err and "ai.apiKeyFile" in err
    assert not (tmp_path / "config.toml").exists()


def test_a_keymap_entry_is_set_and_read_on_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(tmp_path, "config", "set", "ui.keymap.note.save", "ctrl+s,f2") == 0
    capsys.readouterr()
    assert run(tmp_path, "config", "get", "ui.keymap.note.save") == 0
    assert capsys.readouterr().out == "ctrl+s,f2\n"
    assert run(tmp_path, "config", "get", "ui.keymap") == 0
    assert json.loads(capsys.readouterr().out) == {"note.save": "ctrl+s,f2"}
