"""The parts ``noted.services.Services`` builds from settings alone: the embedding model and the
chat provider's configuration. Each module here is imported on first use, so ``noted show``
loads neither."""

from __future__ import annotations

from typing import TYPE_CHECKING

from noted.profile import Profile
from noted.settings import Settings
from noted.settings.handles import (
    AI_ALLOW_REMOTE,
    AI_API_KEY_FILE,
    AI_BASE_URL,
    AI_ENABLED,
    AI_MODEL,
    AI_PROVIDER,
    AI_TIMEOUT_SECONDS,
    EMBEDDING_BASE_URL,
    EMBEDDING_MODEL,
    EMBEDDING_PASSAGE_PREFIX,
    EMBEDDING_PROVIDER,
    EMBEDDING_QUERY_PREFIX,
    EMBEDDING_THREADS,
)

if TYPE_CHECKING:
    from noted.embeddings import Embedder
    from noted.providers import ProviderConfig


def embedder_for(s: Settings, profile: Profile) -> Embedder:
    """The embedding model the settings name (the packaged one unless told otherwise), loaded now."""
    from noted.embeddings import make_embedder
    from noted.providers import load_api_key

    kind = s.get(EMBEDDING_PROVIDER)
    threads = s.get(EMBEDDING_THREADS) or None
    if kind == "fake":
        return make_embedder("fake")
    # Every model takes them ("" keeps the model's own); they shape the vectors, so its id.
    prefixes = {
        "query_prefix": s.get(EMBEDDING_QUERY_PREFIX),
        "passage_prefix": s.get(EMBEDDING_PASSAGE_PREFIX),
    }
    if kind == "openai":
        return make_embedder(
            "openai",
            base_url=s.get(EMBEDDING_BASE_URL) or s.get(AI_BASE_URL),
            model=s.get(EMBEDDING_MODEL),
            api_key=load_api_key("openai", key_file=s.get_path(AI_API_KEY_FILE)),
            allow_remote=s.get(AI_ALLOW_REMOTE),
            **prefixes,
        )
    folder = s.get(EMBEDDING_MODEL)
    if folder:
        return make_embedder("folder", path=folder, threads=threads, **prefixes)
    return make_embedder("local", threads=threads, quantized_cache=profile.root / "models", **prefixes)


def provider_config_for(s: Settings) -> ProviderConfig:
    """The chat provider's configuration as the settings say now."""
    from noted.providers import ProviderConfig, load_api_key

    kind = s.get(AI_PROVIDER)
    return ProviderConfig(
        kind=kind,
        model=s.get(AI_MODEL),
        base_url=s.get(AI_BASE_URL) or None,
        api_key=load_api_key(kind, key_file=s.get_path(AI_API_KEY_FILE)),
        enabled=s.get(AI_ENABLED),
        allow_remote=s.get(AI_ALLOW_REMOTE),
        timeout=float(s.get(AI_TIMEOUT_SECONDS)),
        # The chat engine retries within ai.timeoutSeconds and shows each try; an SDK retry
        # would wait the whole timeout again, unseen.
        max_retries=0,
    )
