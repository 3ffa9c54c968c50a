"""Secrets (Joplin's token): read from the environment or from a file a setting names, never stored.

The chat provider's API key is read by ``noted.providers.load_api_key``.

Nothing here logs or echoes a secret; error messages name the variable or file, never the content.
"""

from __future__ import annotations

from collections.abc import Sequence

from noted.errors import ConfigError
from noted.settings.core import Settings
from noted.settings.handles import JOPLIN_TOKEN_FILE
from noted.settings.spec import Setting

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


def joplin_token(settings: Settings) -> str | None:
    """Joplin's Data API token: ``NOTED_JOPLIN_TOKEN`` or the file ``joplin.tokenFile`` names."""
    return read_secret(settings, variables=(JOPLIN_TOKEN_VARIABLE,), file_key=JOPLIN_TOKEN_FILE)
