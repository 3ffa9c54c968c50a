"""Opening the Joplin store from a profile's settings: ``joplin.url``, ``joplin.tokenFile``."""

from __future__ import annotations

from pathlib import Path

from noted.errors import ConfigError
from noted.settings import Settings, joplin_token
from noted.settings.handles import JOPLIN_URL
from noted.store.history.thinning import Thinning
from noted.store.joplin.store import JoplinStore


def open_joplin_store(settings: Settings, profile_dir: Path) -> JoplinStore:
    """The Joplin store the settings describe, its sidecar in ``profile_dir``.

    Raises:
        ConfigError: no token is set, or the token file cannot be read.
    """
    token = joplin_token(settings)
    if not token:
        raise ConfigError(
            "Joplin's API token is not set",
            hint="copy it from Joplin (Options, Web Clipper) into a file and run "
            "`noted config set joplin.tokenFile PATH`, or set NOTED_JOPLIN_TOKEN",
        )
    return JoplinStore.open(
        profile_dir, url=settings.get(JOPLIN_URL), token=token, thinning=Thinning.of(settings)
    )
