"""The one composition root: builds the parts of noted for a profile, and closes them.

Front ends (the CLI, the TUI, the MCP server) get a ``Services`` and never build parts themselves.
Nothing here runs at import time.
"""

from __future__ import annotations

from dataclasses import dataclass

from noted.profile import Profile
from noted.search.keyword import KeywordSearch
from noted.store.protocol import Store
from noted.store.sqlite import SqliteStore
from noted.store.welcome import create_welcome


@dataclass
class Services:
    """The long-lived parts built for one profile."""

    profile: Profile
    store: Store
    keyword: KeywordSearch

    @classmethod
    def open(cls, profile: Profile, *, welcome: bool = True) -> Services:
        """Open (and on first run create) the profile's store and what sits on it."""
        first_run = profile.is_new
        store = SqliteStore.open(profile.db_path, profile.resources_dir)
        try:
            if first_run and welcome:
                create_welcome(store)
            keyword = KeywordSearch(store)
        except BaseException:
            store.close()
            raise
        return cls(profile=profile, store=store, keyword=keyword)

    def close(self) -> None:
        """Close every part, the store last."""
        self.store.close()
