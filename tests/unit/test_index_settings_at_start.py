"""A setting a running app or MCP server reads only as it starts carries one mark
(``Setting.at_start``) that the settings screen, ``noted config`` and the help all render. Help
written by hand said "Changing it rebuilds the index" of the embedding model, which a person
changing it in the settings screen took to mean now; the index kept the old model until a start.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.cli import run_noted
from textual.app import App

from noted.profile import Profile
from noted.services import Services
from noted.settings import Settings
from noted.settings.handles import EMBEDDING_MODEL, EMBEDDING_PROVIDER, LARGE_NOTE_CHARS, SETTINGS
from noted.settings.registry import env_names
from noted.settings.resolved import ResolvedSetting
from noted.settings.spec import AT_START
from noted.ui.screens.settings_sections import setting_row

FAKE_MODEL = {env_names(EMBEDDING_PROVIDER.key)[0]: "fake"}


class RecordingSettings(Settings):
    """The real settings, noting the key of every value read while ``read`` is a set."""

    read: set[str] | None = None

    def resolve(self, key: Any) -> ResolvedSetting:
        entry = super().resolve(key)
        if self.read is not None:
            self.read.add(entry.key)
        return entry


def test_what_is_read_only_at_start_is_marked_and_what_is_marked_is_not_read_at_use(tmp_path: Path) -> None:
    profile = Profile(tmp_path / "profile").ensure()
    settings = RecordingSettings(profile.config_path, environ=FAKE_MODEL)
    at_start: set[str] = set()
    at_use: set[str] = set()
    settings.read = at_start
    services = Services.open(profile, welcome=False, settings=settings)
    try:
        services.semantic(), services.indexer_service(label="test"), services.registry  # as the app starts
        finder = services.finder()
        settings.read = at_use
        finder.search("hello")
    finally:
        services.close()
    marked = {spec.key for spec in SETTINGS if spec.at_start}
    # Not vacuous: both sides read something, so a mark wrongly added or left off shows below.
    assert at_start and at_use
    # A setting read as it starts and not again at use keeps its start value: it must say so.
    assert at_start - at_use <= marked
    # A setting wholly marked must not be one read at use (it would be live, the mark a lie).
    assert not at_use & {spec.key for spec in SETTINGS if spec.at_start == AT_START}


def test_a_running_indexer_keeps_what_it_started_with(tmp_path: Path) -> None:
    profile = Profile(tmp_path / "profile").ensure()
    settings = Settings.load(profile, environ=FAKE_MODEL)
    services = Services.open(profile, welcome=False, settings=settings)
    try:
        running = services.indexer_service(label="test").indexer
        model, part = running.embedder, running.part_chars
        # As the settings screen saves them (and as the app's poll of config.toml reloads them).
        settings.set(EMBEDDING_MODEL, str(tmp_path / "another-model"))
        settings.set(LARGE_NOTE_CHARS, part // 2)
        # Not vacuous: the setting took, and the next start's indexer reads it.
        assert services.indexer_service(label="next").indexer.part_chars == part // 2
        # The running one keeps what it started with; should it ever follow a change, the mark goes.
        assert running.embedder is model and running.part_chars == part
    finally:
        services.close()
    assert EMBEDDING_MODEL.at_start and LARGE_NOTE_CHARS.at_start


async def test_the_screen_and_the_help_render_the_mark(tmp_path: Path) -> None:
    settings = Settings.load(tmp_path / "config.toml")
    async with App().run_test():  # a setting's choices need an app to be built in
        for spec in SETTINGS:
            findable: list[Any] = []
            setting_row(settings.resolve(spec), spec.section, findable, ())
            # The text the screen's filter searches holds what its help line shows.
            assert ("applies at the next start of the app" in findable[0][1]) is bool(spec.at_start), spec.key
            assert spec.explained.endswith(spec.next_start), spec.key


def test_the_config_command_renders_the_mark(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    done = run_noted(profile, "config", "set", EMBEDDING_MODEL.key, "")
    assert done.returncode == 0, done.stderr
    assert f"note: {EMBEDDING_MODEL.next_start}" in done.stdout.splitlines()
    live = run_noted(profile, "config", "set", "search.relevance", "strict")
    assert "next start" not in live.stdout, live.stdout
    listed = json.loads(run_noted(profile, "config", "list", "--json").stdout)["settings"]
    shown = {entry["key"]: entry.get("next_start", "") for entry in listed}
    assert shown[EMBEDDING_MODEL.key] == EMBEDDING_MODEL.next_start and not shown["search.relevance"]
    lines = run_noted(profile, "config", "list", "ai.embedding.model").stdout
    assert "at next start" in lines
