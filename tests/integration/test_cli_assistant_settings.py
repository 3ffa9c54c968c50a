"""``noted config set`` refusing what would be saved and then do nothing, as a real process.

Each refusal exits 2 with one line saying what is wrong and what is allowed, and the config file is
left as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import run_noted


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    root = tmp_path / "profile"
    assert run_noted(root, "config", "path").returncode == 0
    return root


def config_text(profile: Path) -> str:
    path = profile / "config.toml"
    return path.read_text(encoding="utf-8") if path.exists() else ""


@pytest.mark.parametrize(
    "args",
    [("ui.keymap.nosuch.id", "ctrl+w"), ("ui.keymap", '{"note.save": "ctrl+s", "nosuch.id": "ctrl+w"}')],
    ids=["one-entry", "whole-table"],
)
def test_a_keymap_entry_for_an_unknown_binding_is_refused_with_the_valid_ids(
    profile: Path, args: tuple[str, str]
) -> None:
    before = config_text(profile)
    done = run_noted(profile, "config", "set", *args)
    # Not vacuous: before, the entry was saved (exit 0) and silently did nothing in the app.
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "nosuch.id" in lines[0], done.stderr
    assert "note.save" in lines[0] and "chat.send" in lines[0]  # the valid ids are listed
    assert config_text(profile) == before


def test_a_keymap_entry_for_a_real_binding_is_saved(profile: Path) -> None:
    done = run_noted(profile, "config", "set", "ui.keymap.note.save", "ctrl+w")
    assert done.returncode == 0, done.stderr
    assert "ctrl+w" in config_text(profile)


@pytest.mark.parametrize(
    ("provider", "url", "fault"),
    [
        ("anthropic", "http://127.0.0.1:33167fake-claude", "the port '33167fake-claude' is not a number"),
        ("anthropic", "http://127.0.0.1:33167/v1", "must not end in /v1"),
        ("openai", "http://127.0.0.1:11434", "usually /v1"),
        ("openai", "http://bad host/v1", "is not a host name"),
    ],
)
def test_a_server_url_that_cannot_work_is_refused_saying_what_is_wrong(
    profile: Path, provider: str, url: str, fault: str
) -> None:
    assert run_noted(profile, "config", "set", "ai.provider", provider).returncode == 0
    before = config_text(profile)
    done = run_noted(profile, "config", "set", "ai.baseUrl", url)
    # Not vacuous: before, every one of these was saved and failed only when the chat began.
    assert done.returncode != 0, done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and fault in lines[0], done.stderr
    assert config_text(profile) == before


def test_a_missing_api_key_file_is_refused(profile: Path, tmp_path: Path) -> None:
    before = config_text(profile)
    done = run_noted(profile, "config", "set", "ai.apiKeyFile", str(tmp_path / "no-such-key"))
    assert done.returncode != 0 and "no-such-key" in done.stderr and "No such file" in done.stderr
    assert config_text(profile) == before
    key = tmp_path / "key.txt"
    key.write_text("sk-test\n", encoding="utf-8")
    assert run_noted(profile, "config", "set", "ai.apiKeyFile", str(key)).returncode == 0
