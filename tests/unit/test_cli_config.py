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
    keys = [s["key"] for s in data["settings"]]
    assert keys[0] == "ai.tool.edit_current.enabled" and data["settings"][0]["writes_notes"] is True
    assert "ai.tool.read_note.enabled" in keys and "ai.tool.delete_note.enabled" in keys  # every tool's


def test_bad_value_exits_2_and_names_the_allowed_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 2, bad input, as the README's table says (it was 1, "refused", before)
    assert run(tmp_path, "config", "set", "ai.provider", "foo") == 2
    err = capsys.readouterr().err
    assert 'ai.provider must be one of openai, anthropic, fake (got "foo")' in err
    assert not (tmp_path / "config.toml").exists()


def test_unknown_key_suggests_the_right_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, "config", "get", "mcp.prot") == 2
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
    assert run(tmp_path, "config", "set", "ai.apiKey", "sk-abc") == 2
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


# What exists: themes, tools and keys (issue 34, item 11). Each refusal is one line, exit 2, and
# leaves no config file behind; before, each of these was saved and did nothing.


def refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: str, *said: str) -> None:
    assert run(tmp_path, "config", "set", key, value) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("noted: ") and "nothing was saved" in lines[0], lines
    for words in said:
        assert words in lines[0], lines[0]
    assert not (tmp_path / "config.toml").exists()


def test_a_theme_that_does_not_exist_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(
        tmp_path,
        capsys,
        "ui.theme",
        "noted-drak",
        'no theme is named "noted-drak"',
        "noted-dark, noted-light",
    )
    themes = tmp_path / "themes"
    themes.mkdir()
    (themes / "broken.toml").write_text('primary = "not a colour"\n', encoding="utf-8")
    refused(tmp_path, capsys, "ui.theme", "broken", "broken.toml", "'primary'")
    (themes / "mine.toml").write_text('primary = "#ff0000"\n', encoding="utf-8")
    # not vacuous: a file of one's own, a bundled theme and one of Textual's are all taken
    for name in ("mine", "noted-light", "nord"):
        assert run(tmp_path, "config", "set", "ui.theme", name) == 0
    assert "ui.theme = nord" in capsys.readouterr().out


def test_the_switch_of_a_tool_that_does_not_exist_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused(tmp_path, capsys, "ai.tool.delete_notes.enabled", "true", "no tool has the id delete_notes")
    assert run(tmp_path, "config", "set", "ai.tool.delete_note.enabled", "true") == 0  # the real id


def test_config_says_of_each_switch_what_is_served(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `config get|unset|list` never declared the tools, so a read tool's switch read as off
    # ("which no part of this process has declared") while `tools list` and MCP had it on
    assert cli.main(["--profile", str(tmp_path), "init"]) == 0
    assert run(tmp_path, "config", "set", "ai.tool.get_notebook.enabled", "false") == 0
    assert run(tmp_path, "config", "set", "ai.tool.create_note.enabled", "true") == 0
    capsys.readouterr()
    assert run(tmp_path, "--json", "tools", "list") == 0
    served = {t["setting"]: t["enabled"] for t in json.loads(capsys.readouterr().out)["tools"]}
    assert served["ai.tool.read_note.enabled"] and not served["ai.tool.get_notebook.enabled"]  # not vacuous
    assert run(tmp_path, "--json", "config", "list", "ai.tool") == 0
    listed = {s["key"]: s["value"] for s in json.loads(capsys.readouterr().out)["settings"]}
    assert {key: listed[key] for key in served} == served
    for key, on in served.items():
        assert run(tmp_path, "config", "get", key) == 0
        assert capsys.readouterr().out == ("true\n" if on else "false\n"), key
    assert run(tmp_path, "config", "unset", "ai.tool.get_notebook.enabled") == 0
    assert capsys.readouterr().out.startswith("ai.tool.get_notebook.enabled = true  (removed")


def test_each_config_command_refuses_the_switch_of_a_tool_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `config get ai.tool.nonexistent.enabled` printed false, exit 0, while `set` refused it
    for argv in (["get"], ["unset"], ["set", "true"], ["list"]):
        command, *value = argv
        key = "ai.tool.nonexistent.enabled" if command != "list" else "ai.tool"
        code = run(tmp_path, "config", command, key, *value)
        out, err = capsys.readouterr()
        if command == "list":  # listed only as the tools that exist
            assert code == 0 and "nonexistent" not in out and "ai.tool.read_note.enabled" in out
            continue
        assert code == 2 and out == "", (argv, out)
        assert err.count("\n") == 1 and "no tool has the id nonexistent" in err, err
    assert not (tmp_path / "config.toml").exists()
    # one the config file holds (a tool of an older noted) can still be removed
    (tmp_path / "config.toml").write_text("[ai.tool.gone]\nenabled = true\n", encoding="utf-8")
    assert run(tmp_path, "config", "unset", "ai.tool.gone.enabled") == 0
    assert "gone" not in (tmp_path / "config.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("keys", "said"),
    [
        ("ctrl+sss", '"ctrl+sss" is not a key Textual knows'),
        ("?", 'write "question_mark" for "?"'),
        ("ctrl+s, f2", '" f2" is not a key Textual knows'),  # Textual's keymap keeps the space
        ("Escape", '"Escape" is not a key Textual knows'),
        ("cmd+s", "\"cmd+s\": 'cmd' is not a modifier"),
        ("ctrl+s,", '"" is not a key Textual knows'),
    ],
)
def test_a_key_textual_never_sends_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], keys: str, said: str
) -> None:
    refused(tmp_path, capsys, "ui.keymap.note.save", keys, "ui.keymap.note.save: " + said)


def test_keys_textual_knows_are_taken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for keys in ("ctrl+s,f2", "question_mark", "ctrl+shift+up", "pageup", "slash", "A", "space"):
        assert run(tmp_path, "config", "set", "ui.keymap.note.save", keys) == 0, capsys.readouterr().err
    refused(tmp_path / "whole", capsys, "ui.keymap", '{"note.save": "ctrl+s", "no.such": "f2"}', "no.such")


@pytest.mark.parametrize(
    ("key", "value"),
    [("ai.model", "llama\nrm -rf"), ("mcp.host", "127.0.0.1\x1b[2J"), ("joplin.syncCommand", "joplin\tsync"),
     ("mcp.allowedNotebooks", "Work,Pri\x07vate"), ("ui.keymap.note.save", "ctrl+s\r")],
)  # fmt: skip
def test_control_characters_in_a_one_line_value_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: str
) -> None:
    refused_line = "must be one line of text without control characters"
    assert run(tmp_path, "config", "set", key, value) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and refused_line in lines[0], lines
    assert not (tmp_path / "config.toml").exists()


def test_list_reports_a_hand_written_theme_that_does_not_exist_as_the_app_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, `config list` showed `ui.theme nonexistent config file` and no problem, while the app
    said the theme was not found and used noted-dark. A theme file of the profile's own counts."""
    (tmp_path / "config.toml").write_text('[ui]\ntheme = "nonexistent"\n', encoding="utf-8")
    assert run(tmp_path, "config", "list", "ui.theme") == 0
    captured = capsys.readouterr()
    assert captured.out.split() == ["Appearance", "ui.theme", "noted-dark", "default"]
    assert (
        captured.err == 'noted: config.toml: ui.theme: no theme is named "nonexistent"; the default applies\n'
    )
    (tmp_path / "themes").mkdir()
    (tmp_path / "themes" / "nonexistent.toml").write_text('primary = "#ff0000"\n', encoding="utf-8")
    assert run(tmp_path, "config", "list", "ui.theme") == 0
    captured = capsys.readouterr()
    assert "nonexistent" in captured.out and captured.err == ""
