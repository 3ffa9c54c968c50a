"""The settings registry, its TOML file, environment overrides, subscribers and reload."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit
from tests.support.polling import scaled

from noted.errors import ConfigError, DiskFullError
from noted.profile import Profile
from noted.providers.config import load_api_key
from noted.settings import (
    SECTIONS,
    SETTINGS,
    SettingChange,
    Settings,
    Source,
    env_names,
    looks_secret,
)
from noted.settings.handles import (
    AI_API_KEY_FILE,
    AI_APPROVE_WRITES,
    AI_WRITES,
    MCP_ALLOWED_NOTEBOOKS,
    MCP_HOST,
    MCP_PORT,
    MCP_TOKEN_FILE,
    MCP_WRITES,
    UI_KEYMAP,
)
from noted.tools import build_registry

USER_FILE = """\
# my own notes about this file
backend = "sqlite"  # keep the embedded store

[ai]
# I use a local Ollama
enabled = false
model = "llama3.2"  # small and quick

[mcp]
port = 9000
"""


def load(tmp_path: Path, **environ: str) -> Settings:
    return Settings.load(Profile(tmp_path), environ=environ)


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


# the table itself


def test_every_default_is_valid_for_its_own_kind() -> None:
    for spec in SETTINGS:
        if not (spec.empty_means and spec.closed):  # such an empty default is only had by unsetting
            assert spec.coerce(spec.default) == spec.default, spec.key
        assert spec.section in SECTIONS, spec.key
        assert spec.label and spec.help, spec.key


def test_keys_and_environment_names_are_unique_and_no_key_names_a_secret() -> None:
    keys = [spec.key for spec in SETTINGS]
    assert len(keys) == len(set(keys))
    names = [name for key in keys for name in env_names(key)]
    assert len(names) == len(set(names))
    assert not [key for key in keys if looks_secret(key)]
    assert looks_secret("ai.apiKey") and looks_secret("mcp.token") and not looks_secret("mcp.tokenFile")


def test_defaults_apply_when_there_is_no_file_and_reading_creates_nothing(tmp_path: Path) -> None:
    settings = load(tmp_path)
    assert settings.resolve("ai.enabled").value is False
    assert settings.resolve("ai.allowRemote").value is False
    assert settings.resolve("ai.provider").value == "openai"
    assert settings.resolve("ai.baseUrl").value == "http://127.0.0.1:11434/v1"
    assert settings.resolve("ai.approveWrites").value is True
    assert settings.resolve("ai.budgetTokens").value == 80_000
    assert settings.resolve("ai.embedding.provider").value == "onnx"
    assert settings.resolve("search.relevance").value == "normal"
    assert settings.resolve("mcp.port").value == 8765
    assert settings.resolve("mcp.allowedNotebooks").value == ()
    assert settings.resolve("ai.tool.edit_current.enabled").value is False
    assert settings.source("ai.enabled") == "default"
    assert settings.get_path(AI_API_KEY_FILE) is None
    assert not settings.path.exists()


# the file


def test_set_changes_only_its_own_line_and_keeps_comments(tmp_path: Path) -> None:
    path = write_config(tmp_path, USER_FILE)
    settings = load(tmp_path)
    settings.set("ai.enabled", "on")
    settings.set("ai.provider", "anthropic")
    settings.set("ai.tool.update_note.enabled", True)
    text = path.read_text(encoding="utf-8")
    for line in USER_FILE.splitlines():
        if line != "enabled = false":
            assert line in text, f"lost: {line!r}"
    assert "enabled = true" in text
    again = load(tmp_path)
    assert again.resolve("ai.enabled").value is True
    assert again.resolve("ai.provider").value == "anthropic"
    assert again.resolve("ai.model").value == "llama3.2"
    assert again.resolve("mcp.port").value == 9000
    assert again.resolve("ai.tool.update_note.enabled").value is True
    assert again.source("ai.provider") == "config file"


def test_a_new_file_is_laid_out_as_nested_tables(tmp_path: Path) -> None:
    settings = load(tmp_path)
    settings.set("backend", "joplin")
    settings.set("ai.embedding.model", "/models/e5")
    settings.set("mcp.allowedNotebooks", "Work, Home")
    settings.set("ui.keymap.note.save", "ctrl+s")
    data = tomlkit.parse(settings.path.read_text(encoding="utf-8")).unwrap()
    assert data == {
        "backend": "joplin",
        "ai": {"embedding": {"model": "/models/e5"}},
        "mcp": {"allowedNotebooks": ["Work", "Home"]},
        "ui": {"keymap": {"note.save": "ctrl+s"}},
    }
    assert settings.get(UI_KEYMAP) == {"note.save": "ctrl+s"}
    assert settings.resolve("ui.keymap.note.save").value == "ctrl+s"


def test_unset_removes_the_key_and_the_table_it_leaves_empty(tmp_path: Path) -> None:
    settings = load(tmp_path)
    settings.set("mcp.port", 8000)
    settings.set("backend", "joplin")
    resolved = settings.unset("mcp.port")
    assert resolved.value == 8765 and resolved.source is Source.DEFAULT
    data = tomlkit.parse(settings.path.read_text(encoding="utf-8")).unwrap()
    assert data == {"backend": "joplin"}


def test_a_bad_value_in_the_file_is_a_problem_and_the_default_stands_in(tmp_path: Path) -> None:
    write_config(tmp_path, '[ai]\nprovider = "gpt"\nenabeld = true\nmodel = "x"\n')
    settings = load(tmp_path)
    assert settings.resolve("ai.provider").value == "openai"
    assert settings.resolve("ai.model").value == "x"
    problems = " | ".join(settings.problems)
    assert "ai.provider must be one of openai, anthropic, fake" in problems
    assert "unknown setting ai.enabeld (did you mean ai.enabled" in problems


@pytest.mark.parametrize("notebooks", ["[]", '[""]', '["Work", 5]', "5"])
def test_a_guard_the_file_holds_wrongly_stays_shut(tmp_path: Path, notebooks: str) -> None:
    # the default stood in for a bad value: every notebook for mcp.allowedNotebooks = [] (or a
    # list with a number in it), and writes landing at once for mcp.writes = "reveiw"
    # (and a read tool on for a typo in switching it off)
    write_config(
        tmp_path,
        f'[mcp]\nallowedNotebooks = {notebooks}\nwrites = "reveiw"\nport = "x"\n'
        '[ai.tool.read_note]\nenabled = "of"\n',
    )
    settings = load(tmp_path)
    assert settings.get(MCP_ALLOWED_NOTEBOOKS) == ("",)  # names no notebook: shares none
    assert settings.get(MCP_WRITES) == "review"
    build_registry(settings)  # the read tools declare their switches, on by default
    assert not settings.tool_enabled("read_note") and settings.tool_enabled("read_notes")
    assert settings.get(MCP_PORT) == MCP_PORT.default  # not vacuous: other settings take the default
    problems = " | ".join(settings.problems)
    assert "until it is fixed, no notebook is shared" in problems
    assert "until it is fixed, every AI app's writes wait for your review" in problems
    assert "ai.tool.read_note.enabled must be true or false" in problems and "the tool is off" in problems
    write_config(tmp_path, '[mcp]\nallowedNotebooks = ["Work"]\nwrites = "direct"\n')
    assert load(tmp_path).get(MCP_ALLOWED_NOTEBOOKS) == ("Work",) and load(tmp_path).problems == ()


def test_the_assistant_s_review_mode_misspelt_in_the_file_stays_review(tmp_path: Path) -> None:
    # ai.writes = "reveiw" read as the default, ask; with ai.approveWrites off, nothing is asked,
    # so the assistant's changes landed at once where the person had asked for proposals.
    write_config(tmp_path, '[ai]\nwrites = "reveiw"\napproveWrites = false\n')
    settings = load(tmp_path)
    assert settings.get(AI_WRITES) == "review"
    assert not settings.get(AI_APPROVE_WRITES)  # not vacuous: the rest of the file is read
    problems = " | ".join(settings.problems)
    assert "ai.writes must be one of ask, review, direct" in problems
    assert "until it is fixed, the assistant's changes wait for your review" in problems


def test_a_file_that_does_not_parse_is_reported_and_never_overwritten(tmp_path: Path) -> None:
    path = write_config(tmp_path, "[ai\nenabled = true\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load(tmp_path)
    assert path.read_text(encoding="utf-8") == "[ai\nenabled = true\n"


def test_the_write_is_atomic_a_failed_replace_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_config(tmp_path, USER_FILE)
    settings = load(tmp_path)

    def crash(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(DiskFullError, match="is full"):  # a storage fault, exit 12 on the command line
        settings.set("ai.enabled", True)
    assert path.read_text(encoding="utf-8") == USER_FILE
    left = sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock"))
    assert left == ["config.toml"]  # no temp file left behind
    assert settings.resolve("ai.enabled").value is False


def test_a_symlinked_config_file_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "noted.toml"
    real.parent.mkdir()
    real.write_text(USER_FILE, encoding="utf-8")
    (tmp_path / "config.toml").symlink_to(real)
    load(tmp_path).set("mcp.port", 9100)
    assert (tmp_path / "config.toml").is_symlink()
    assert "port = 9100" in real.read_text(encoding="utf-8")


# values and their messages


@pytest.mark.parametrize(
    ("key", "text", "message"),
    [
        ("ai.provider", "foo", 'ai.provider must be one of openai, anthropic, fake (got "foo")'),
        ("search.relevance", "lax", "search.relevance must be one of strict, normal, loose"),
        ("mcp.port", "70000", "mcp.port must be a whole number from 1 to 65535 (got 70000)"),
        ("mcp.port", "http", "mcp.port must be a whole number from 1 to 65535"),
        ("ai.enabled", "maybe", 'ai.enabled must be true or false (got "maybe")'),
        ("ai.baseUrl", "ftp://host/", "it must start with http:// or https://"),
        ("mcp.allowedNotebooks", "[1, 2]", "mcp.allowedNotebooks must be a list of text"),
        ("ui.keymap", "[1]", "ui.keymap must be a table of text values"),
    ],
)
def test_bad_values_are_refused_naming_what_is_allowed(
    tmp_path: Path, key: str, text: str, message: str
) -> None:
    settings = load(tmp_path)
    with pytest.raises(ConfigError) as caught:
        settings.set(key, text)
    assert message in str(caught.value)
    assert not settings.path.exists()


@pytest.mark.parametrize(
    ("key", "example"),
    [("joplin.url", "http://127.0.0.1:41184"), ("ai.baseUrl", "http://127.0.0.1:11434/v1")],
)
def test_a_bad_url_is_refused_with_an_example_for_its_own_setting(
    tmp_path: Path, key: str, example: str
) -> None:
    # Before: joplin.url's refusal gave Ollama's address as the example.
    with pytest.raises(ConfigError) as caught:
        load(tmp_path).set(key, "file:///x")
    assert caught.value.hint == f"write it like {example}"


@pytest.mark.parametrize(("word", "value"), [("1", True), ("YES", True), ("on", True), ("off", False)])
def test_booleans_accept_the_usual_words(tmp_path: Path, word: str, value: bool) -> None:
    assert load(tmp_path).set("ai.enabled", word).value is value


def test_lists_and_tables_read_json_or_plain_text(tmp_path: Path) -> None:
    settings = load(tmp_path)
    assert settings.set("mcp.allowedNotebooks", '["Work, old", "Home"]').value == ("Work, old", "Home")
    assert settings.set("mcp.allowedOrigins", "").value == ()
    table = settings.set("ui.keymap", '{"note.save" = "ctrl+s", "chat.send" = "ctrl+j"}').value
    assert table == {"note.save": "ctrl+s", "chat.send": "ctrl+j"}


@pytest.mark.parametrize("text", ["", " ", ",", " , ", "[]", '[""]', '[" "]', '["", "  "]'])
def test_an_empty_value_never_lifts_the_notebook_limit(tmp_path: Path, text: str) -> None:
    # Empty means every notebook, so `config set mcp.allowedNotebooks "$BOOKS"` with BOOKS unset, or
    # NOTED_MCP_ALLOWEDNOTEBOOKS= left in a script, shared them all; `config unset` is the way to.
    settings = load(tmp_path)
    settings.set("mcp.allowedNotebooks", "Work")
    with pytest.raises(ConfigError, match="never means every notebook") as caught:
        settings.set("mcp.allowedNotebooks", text)
    assert "noted config unset mcp.allowedNotebooks" in str(caught.value)
    assert load(tmp_path).get(MCP_ALLOWED_NOTEBOOKS) == ("Work",)
    with pytest.raises(
        ConfigError, match="environment variable NOTED_MCP_ALLOWEDNOTEBOOKS: .* every notebook"
    ) as caught:
        load(tmp_path, NOTED_MCP_ALLOWEDNOTEBOOKS=text)
    assert "unset NOTED_MCP_ALLOWEDNOTEBOOKS for the config file's value" in str(caught.value) or text.strip()
    assert settings.unset("mcp.allowedNotebooks").value == ()


def test_an_empty_value_never_lifts_the_token_of_the_mcp_server(tmp_path: Path) -> None:
    # NOTED_MCP_TOKENFILE= overrode the token file of config.toml with none: the server on loopback
    # then took requests without a token.
    settings = load(tmp_path)
    settings.set("mcp.tokenFile", str(tmp_path / "mcp-token"))
    with pytest.raises(ConfigError, match="never means no token"):
        settings.set("mcp.tokenFile", " ")
    with pytest.raises(ConfigError, match="NOTED_MCP_TOKENFILE: mcp.tokenFile is empty"):
        load(tmp_path, NOTED_MCP_TOKENFILE="")
    assert load(tmp_path).get_path(MCP_TOKEN_FILE) == tmp_path / "mcp-token"
    assert settings.unset("mcp.tokenFile").value == ""


@pytest.mark.parametrize("text", ["", " ", "http://127.0.0.1", "127.0.0.1:8765", "my host", " ::1"])
def test_the_listen_address_of_the_mcp_server_is_a_host_and_nothing_else(tmp_path: Path, text: str) -> None:
    # `config set mcp.host ""` was saved, and the server then listened on 127.0.0.1 while the
    # settings said ""; a URL or a port was saved too, and refused only when the server started.
    settings = load(tmp_path)
    settings.set("mcp.host", "::1")
    with pytest.raises(ConfigError, match="not a host name or an IP address; nothing was saved"):
        settings.set("mcp.host", text)
    assert load(tmp_path).get(MCP_HOST) == "::1"
    for good in ("0.0.0.0", "[::1]", "localhost", "notes-box.lan"):
        assert settings.set("mcp.host", good).value == good


def test_an_unknown_key_suggests_close_ones(tmp_path: Path) -> None:
    settings = load(tmp_path)
    with pytest.raises(ConfigError) as caught:
        settings.set("ai.enabeld", "1")
    assert "did you mean ai.enabled" in str(caught.value)
    with pytest.raises(ConfigError, match=r"did you mean ai\.allowRemote\?"):
        settings.resolve("ai.allowremote")


def test_secrets_are_refused_by_key_and_by_value(tmp_path: Path) -> None:
    settings = load(tmp_path)
    with pytest.raises(ConfigError, match="never stores secrets"):
        settings.set("ai.apiKey", "sk-abcdef")
    with pytest.raises(ConfigError, match="path of a file"):
        settings.set("ai.apiKeyFile", "sk-proj-abcdef123")
    assert not settings.path.exists()


def test_paths_are_read_from_the_config_folder(tmp_path: Path) -> None:
    settings = load(tmp_path)
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "openai.txt").write_text("k\n", encoding="utf-8")  # it must exist
    settings.set("ai.apiKeyFile", "keys/openai.txt")
    assert settings.get_path(AI_API_KEY_FILE) == tmp_path / "keys" / "openai.txt"


# the environment


def test_the_environment_overrides_the_file_and_says_so(tmp_path: Path) -> None:
    write_config(tmp_path, USER_FILE)
    settings = load(tmp_path, NOTED_AI_ENABLED="yes", NOTED_MCP_PORT="7000", NOTED_AI_ALLOW_REMOTE="1")
    assert settings.resolve("ai.enabled").value is True
    assert settings.source("ai.enabled") == "environment (NOTED_AI_ENABLED)"
    assert settings.resolve("mcp.port").value == 7000
    assert settings.resolve("ai.allowRemote").value is True
    assert settings.source("ai.allowRemote") == "environment (NOTED_AI_ALLOW_REMOTE)"
    assert (
        load(tmp_path, NOTED_AI_ALLOWREMOTE="on").source("ai.allowRemote").endswith("(NOTED_AI_ALLOWREMOTE)")
    )
    resolved = settings.set("ai.enabled", False)  # saved, but the variable still wins for this run
    assert resolved.value is True and resolved.source is Source.ENV
    assert load(tmp_path).resolve("ai.enabled").value is False


def test_a_bad_environment_value_names_the_variable_and_the_allowed_values(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, NOTED_AI_PROVIDER="gemini")
    assert "NOTED_AI_PROVIDER" in str(caught.value)
    assert "one of openai, anthropic, fake" in str(caught.value)
    with pytest.raises(ConfigError, match="NOTED_AI_ALLOWREMOTE and NOTED_AI_ALLOW_REMOTE"):
        load(tmp_path, NOTED_AI_ALLOWREMOTE="1", NOTED_AI_ALLOW_REMOTE="0")


# tool switches


def test_tool_switches_exist_before_and_after_the_tool_declares_them(tmp_path: Path) -> None:
    write_config(tmp_path, "[ai.tool.update_note]\nenabled = true\n[ai.tool.serch_notes]\nenabled = false\n")
    settings = load(tmp_path, NOTED_AI_TOOL_DELETE_NOTE_ENABLED="on")
    assert settings.resolve("ai.tool.read_note.enabled").value is False  # undeclared: off, the safe side
    assert settings.resolve("ai.tool.delete_note.enabled").value is True
    assert settings.source("ai.tool.delete_note.enabled") == "environment (NOTED_AI_TOOL_DELETE_NOTE_ENABLED)"
    spec = settings.register_tool_setting("read_note", title="Read a note", default=True, write=False)
    settings.register_tool_setting("search_notes", title="Search notes", default=True, write=False)
    settings.register_tool_setting("update_note", title="Update a note", default=False, write=True)
    settings.register_tool_setting("delete_note", title="Delete a note", default=False, write=True)
    assert spec.key == "ai.tool.read_note.enabled" and spec.registered and spec.writes_notes is False
    assert settings.tool_enabled("read_note") is True
    assert settings.tool_enabled("update_note") is True  # the file says so
    assert settings.tool_enabled("delete_note") is True  # the environment says so
    assert not settings.resolve("ai.tool.serch_notes.enabled").spec.registered  # a typo, kept apart
    tools = [e.key for e in settings.entries() if e.spec.section == "Tools"]
    assert "ai.tool.read_note.enabled" in tools and "ai.tool.serch_notes.enabled" in tools
    with pytest.raises(ConfigError, match="different defaults"):
        settings.register_tool_setting("read_note", title="Read", default=False, write=False)
    with pytest.raises(ConfigError, match="lowercase"):
        settings.register_tool_setting("Read-Note", title="Read", default=True, write=False)


# subscribers and reload


def test_subscribers_hear_each_change_once_and_can_leave(tmp_path: Path) -> None:
    settings = load(tmp_path)
    heard: list[tuple[SettingChange, ...]] = []

    def broken(changes: tuple[SettingChange, ...]) -> None:
        raise RuntimeError("a buggy listener")

    settings.subscribe(broken)  # registered first, so the next one proves it did not stop the rest
    leave = settings.subscribe(heard.append)
    settings.set("ai.tool.update_note.enabled", "true")
    settings.set("ai.tool.update_note.enabled", "true")  # no change in effect: nobody is told
    assert heard == [(SettingChange("ai.tool.update_note.enabled", False, True),)]
    leave()
    settings.set("ai.tool.update_note.enabled", "false")
    assert len(heard) == 1
    assert load(tmp_path).resolve("ai.tool.update_note.enabled").value is False


def test_reload_picks_up_an_edit_made_by_another_process(tmp_path: Path) -> None:
    mine = load(tmp_path)
    heard: list[tuple[SettingChange, ...]] = []
    mine.subscribe(heard.append)
    assert mine.reload() == ()
    load(tmp_path).set("ai.tool.update_note.enabled", True)  # another process, its own object
    changes = mine.reload()
    assert changes == (SettingChange("ai.tool.update_note.enabled", False, True),)
    assert heard == [changes]
    assert mine.resolve("ai.tool.update_note.enabled").value is True
    assert mine.reload() == ()
    mine.path.write_text("# edited by hand\n[mcp]\nenabled = true\n", encoding="utf-8")
    assert {c.key for c in mine.reload()} == {"ai.tool.update_note.enabled", "mcp.enabled"}


def test_reload_of_a_broken_file_keeps_the_values_in_effect(tmp_path: Path) -> None:
    settings = load(tmp_path)
    settings.set("mcp.port", 9000)
    settings.path.write_text("[mcp\nport = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        settings.reload()
    assert settings.resolve("mcp.port").value == 9000


def test_entries_are_grouped_by_section_in_display_order(tmp_path: Path) -> None:
    entries = load(tmp_path).entries()
    seen = [e.spec.section for e in entries]
    assert [s for i, s in enumerate(seen) if i == 0 or seen[i - 1] != s] == [s for s in SECTIONS if s in seen]
    assert json.dumps([e.to_json() for e in entries])  # plain data all the way down


# secrets


def test_the_api_key_file_is_the_one_ai_api_key_file_names_beside_the_config(tmp_path: Path) -> None:
    # As the services read it: the setting's path (relative to the config file) into load_api_key.
    (tmp_path / "key.txt").write_text("  from-file\n", encoding="utf-8")
    settings = load(tmp_path)
    settings.set("ai.apiKeyFile", "key.txt")
    assert load_api_key("openai", key_file=settings.get_path(AI_API_KEY_FILE), environ={}) == "from-file"
    (tmp_path / "key.txt").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match="is empty"):
        load_api_key("openai", key_file=settings.get_path(AI_API_KEY_FILE), environ={})


def test_settings_is_a_leaf_that_imports_only_errors_profile_and_tempfiles() -> None:
    code = (
        "import sys, noted.settings; "
        "print(sorted(m for m in sys.modules if m.startswith(('noted', 'textual', 'openai', 'mcp'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    modules = [m for m in eval(out) if not m.startswith("noted.settings")]
    assert modules == ["noted", "noted.errors", "noted.profile", "noted.tempfiles"]


def test_many_tool_switches_round_trip(tmp_path: Path) -> None:
    # tomlkit once mis-nested the third dotted key added under [ai]; every value must survive.
    settings = Settings.load(tmp_path / "config.toml", environ={})
    keys = [f"ai.tool.{name}.enabled" for name in ("create_note", "create_notebook", "update_note")]
    for key in keys:
        settings.set(key, "true")
    again = Settings.load(tmp_path / "config.toml", environ={})
    assert [again.resolve(k).value for k in keys] == [True, True, True]
    assert [again.source(k) for k in keys] == ["config file"] * 3
    assert again.problems == ()


def test_two_processes_setting_different_keys_both_keep_theirs(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = (
        "import sys; from pathlib import Path; from noted.settings import Settings\n"
        "s = Settings.load(Path(sys.argv[1]), environ={})\n"
        "for i in range(15): s.set(f'ai.tool.{sys.argv[2]}{i}.enabled', 'true')\n"
    )
    path = tmp_path / "config.toml"
    procs = [subprocess.Popen([sys.executable, "-c", script, str(path), name]) for name in ("a", "b")]
    assert [p.wait(timeout=scaled(300)) for p in procs] == [0, 0]
    final = Settings.load(path, environ={})
    for name in ("a", "b"):
        for i in range(15):
            assert final.resolve(f"ai.tool.{name}{i}.enabled").value is True, f"lost {name}{i}"
