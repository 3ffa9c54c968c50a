"""The settings the indexer reads as it starts say so in their help (which the settings screen
shows under each one): a running app or MCP server keeps the embedding model and the part of a
large note it started with. The help said "Changing it rebuilds the index", which a person
changing it in the settings screen took to mean now; the index kept the old model until a start."""

from __future__ import annotations

from pathlib import Path

from noted.profile import Profile
from noted.services import Services
from noted.settings import Settings
from noted.settings.handles import EMBEDDING_MODEL, EMBEDDING_PROVIDER, LARGE_NOTE_CHARS
from noted.settings.registry import env_names


def test_the_help_of_what_the_indexer_reads_at_start_says_it_applies_at_the_next_start(
    tmp_path: Path,
) -> None:
    profile = Profile(tmp_path / "profile").ensure()
    settings = Settings.load(profile, environ={env_names(EMBEDDING_PROVIDER.key)[0]: "fake"})
    services = Services.open(profile, welcome=False, settings=settings)
    try:
        running = services.indexer_service(label="test").indexer
        model, part = running.embedder, running.part_chars
        # As the settings screen saves them (and as the app's poll of config.toml reloads them).
        settings.set(EMBEDDING_MODEL, str(tmp_path / "another-model"))
        settings.set(LARGE_NOTE_CHARS, part // 2)
        # Not vacuous: the setting took, and the next start's indexer reads it.
        assert services.indexer_service(label="next").indexer.part_chars == part // 2
        # The running one keeps what it started with; should it ever follow a change, the help
        # below must say so instead.
        assert running.embedder is model and running.part_chars == part
    finally:
        services.close()
    for handle in (EMBEDDING_PROVIDER, EMBEDDING_MODEL, LARGE_NOTE_CHARS):
        assert "at the next start of the app and the MCP server" in handle.help, handle.key
