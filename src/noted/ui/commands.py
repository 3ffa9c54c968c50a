"""Command palette providers: "open note…" by title and "move to notebook…".

Both read what they search once, when the palette opens, in a thread worker (10,000 titles take
a few milliseconds to read and no body is read); each keystroke then filters in memory: a cheap
word filter first, then Textual's fuzzy matcher on the survivors for the score and highlight.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from noted.ui.data import folder_paths
from noted.ui.messages import OpenNote

if TYPE_CHECKING:
    from noted.ui.app import NotedApp

_MAX_HITS = 40
_DISCOVER = 12


def _candidates(entries: list[tuple[str, str]], query: str) -> list[tuple[str, str]]:
    """The entries whose text holds every word of ``query`` (case-insensitive), in order."""
    words = query.casefold().split()
    return [(key, text) for key, text in entries if all(w in text.casefold() for w in words)][: _MAX_HITS * 5]


class OpenNoteProvider(Provider):
    """Open a note by (part of) its title; the notebook is shown beside it."""

    async def startup(self) -> None:
        app = cast("NotedApp", self.app)
        store = app.services.store

        def load() -> list[tuple[str, str]]:
            paths = folder_paths(store.list_folders())
            return [
                (m.id, f"Open note: {m.title or '(untitled)'}  ·  {paths.get(m.parent_id, '')}")
                for m in store.list_notes()
            ]

        worker = app.run_worker(
            load, thread=True, group="palette", exit_on_error=False, description="listing notes"
        )
        self._entries: list[tuple[str, str]] = await worker.wait() or []

    def _open(self, note_id: str) -> None:
        self.app.post_message(OpenNote(note_id))

    async def discover(self) -> Hits:
        for note_id, text in self._entries[:_DISCOVER]:  # the most recently updated first
            yield DiscoveryHit(text, partial(self._open, note_id), help="recently updated")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        scored = []
        for note_id, text in _candidates(self._entries, query):
            score = matcher.match(text)
            if score > 0:
                scored.append((score, note_id, text))
        scored.sort(key=lambda item: -item[0])
        for score, note_id, text in scored[:_MAX_HITS]:
            yield Hit(score, matcher.highlight(text), partial(self._open, note_id), text=text)


class MoveToProvider(Provider):
    """Move the marked notes (or the highlighted one) to a notebook chosen by name."""

    async def startup(self) -> None:
        app = cast("NotedApp", self.app)
        store = app.services.store

        def load() -> list[tuple[str, str]]:
            paths = sorted(folder_paths(store.list_folders()).items(), key=lambda item: item[1].casefold())
            return [(folder_id, f"Move to notebook: {path}") for folder_id, path in paths]

        worker = app.run_worker(
            load, thread=True, group="palette", exit_on_error=False, description="listing notebooks"
        )
        self._folders: list[tuple[str, str]] = await worker.wait() or []

    def _move(self, folder_id: str) -> None:
        cast("NotedApp", self.app).move_targets_to(folder_id)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for folder_id, text in _candidates(self._folders, query):
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self._move, folder_id), text=text,
                          help="moves the marked notes, or the highlighted one")  # fmt: skip

    async def discover(self) -> Hits:
        for folder_id, text in self._folders[:_DISCOVER]:
            yield DiscoveryHit(text, partial(self._move, folder_id))
