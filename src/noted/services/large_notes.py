"""``notes.largeNoteChars`` followed while a profile is open.

The limit is read where a long note's parts are cut: the headings keyword search weighs (kept with
each note by the store) and the sections a hit names. A change made here or in another process
(``noted config set``, read by the app's and the MCP server's poll of the file) reaches them from
the next search, as any other setting does, not from the next start. The index keeps the limit it
was built by until the indexer starts again (a new limit indexes the long notes again).
"""

from __future__ import annotations

from collections.abc import Callable

from noted.search.keyword import KeywordSearch
from noted.settings import SettingChange, Settings
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.store.protocol import Store
from noted.store.sqlite import SqliteStore


def follow_part(settings: Settings, store: Store, keyword: KeywordSearch) -> Callable[[], None]:
    """Give ``keyword`` and ``store`` the limit in effect, and each new one; returns the unsubscribe.

    A new limit reads the weighed headings of the notes it cuts elsewhere again, in the thread
    that changed the setting (the app's poll of the file, the settings screen's writer).
    """
    keyword.part_chars = settings.get(LARGE_NOTE_CHARS)

    def changed(changes: tuple[SettingChange, ...]) -> None:
        if all(change.key != LARGE_NOTE_CHARS.key for change in changes):
            return
        keyword.part_chars = part = settings.get(LARGE_NOTE_CHARS)
        weighing = _weighing(store)
        if weighing is not None:
            weighing.notes.part_chars = part
            weighing.notes.follow_part()

    return settings.subscribe(changed)


def _weighing(store: Store) -> SqliteStore | None:
    """The store keeping weighed headings with its notes: the embedded one, a Markdown folder's
    mirror (on Joplin, keyword search reads them as it searches)."""
    from noted.store.vault import VaultStore

    if isinstance(store, VaultStore):
        store = store.core.mirror
    return store if isinstance(store, SqliteStore) else None
