"""A few notes in one notebook of an embedded store, and the titles a keyword search finds."""

from __future__ import annotations

from noted.models import NoteDraft
from noted.search.keyword import KeywordSearch
from noted.store.sqlite import SqliteStore


class Notes:
    """Notes added to *Inbox*, searched with the embedded keyword search."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self.search = KeywordSearch(store)
        self.inbox = store.create_folder("Inbox", actor="user").id

    def add(self, title: str, body: str, **kw: object) -> str:
        draft = NoteDraft(title, body, parent_id=self.inbox, **kw)  # type: ignore[arg-type]
        return self.store.create_note(draft, actor="user").id

    def titles(self, query: str) -> set[str]:
        return {h.title for h in self.search.search(query).hits}
