"""Secrets (API keys, tokens): read from the environment or from a file a setting names, never stored.

Nothing here logs or echoes a secret; error messages name the variable or file, never the content.
"""

from __future__ import annotations

from collections.abc import Sequence

from noted.errors import ConfigError
from noted.settings.core import Settings
from noted.settings.handles import AI_API_KEY_FILE, AI_PROVIDER, JOPLIN_TOKEN_FILE
from noted.settings.spec import Setting

API_KEY_VARIABLE = "NOTED_API_KEY"
PROVIDER_KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
}
JOPLIN_TOKEN_VARIABLE = "NOTED_JOPLIN_TOKEN"


def read_secret(settings: Settings, *, variables: Sequence[str], file_key: Setting[str]) -> str | None:
    """The first non-empty variable of ``variables``, else the content of the file ``file_key`` names.

    Returns ``None`` when neither gives one.

    Raises:
        ConfigError: the file is named but cannot be read or is empty.
    """
    for name in variables:
        value = settings.environ.get(name, "").strip()
        if value:
            return value
    path = settings.get_path(file_key)
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise ConfigError(f"cannot read {path}, the file {file_key.key} names: {reason}") from None
    if not text:
        raise ConfigError(f"{path}, the file {file_key.key} names, is empty")
    return text


def api_key(settings: Settings, provider: str | None = None) -> str | None:
    """The chat provider's API key: ``NOTED_API_KEY``, the provider's usual variable, or the key file."""
    chosen = provider or settings.get(AI_PROVIDER)
    variables = (API_KEY_VARIABLE, *PROVIDER_KEY_VARIABLES.get(chosen, ()))
    return read_secret(settings, variables=variables, file_key=AI_API_KEY_FILE)


def joplin_token(settings: Settings) -> str | None:
    """Joplin's Data API token: ``NOTED_JOPLIN_TOKEN`` or the file ``joplin.tokenFile`` names."""
    return read_secret(settings, variables=(JOPLIN_TOKEN_VARIABLE,), file_key=JOPLIN_TOKEN_FILE)
