"""``StatusBar``: one line of parts — indexer, MCP server, model, conversation tokens.

The app sets the indexer part from ``IndexerStatusChanged``; any other part of the UI sets the
rest by posting ``noted.ui.messages.StatusPart("mcp" | "model" | "tokens", text)``. No clock is
shown, so a snapshot of the screen is the same every run. Parts that do not fit the line are left
out whole, with their separators (``DROPPED_FIRST``), rather than cut off at its end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:  # the indexer (and numpy) load only when indexing starts
    from noted.indexer.service import IndexStatus


PARTS = ("review", "index", "mcp", "model", "tokens")
DROPPED_FIRST = ("mcp", "model", "index", "tokens", "review")
"""The parts left out first when the line is too narrow for them all (after any part not in
``PARTS``): the server's address and the model are in the settings, while the chat's tokens and the
changes waiting for review are what the person acts on."""
SEPARATOR = " │ "
STARTING = "index starting: loading the search model…"
PREPARING = "index starting: preparing the search model (first time, ~30 s)…"


def format_index(status: IndexStatus) -> str:
    """``indexing 1,240/10,000 · 48 chunks/s``, ``index up to date``, ``search index kept up to date by
    the app (pid 4242)``."""
    progress = status.progress
    if status.state == "error":
        return f"index stopped: {status.error or 'see the log'}"
    if status.state == "standby":
        # The lease describes its holder in words ("the app (pid 4242)"); say what it does.
        return f"search index kept up to date by {status.holder or 'another noted'}"
    if status.state == "starting":
        # Loading the model: on a new profile that first makes its fast (int8) copy, some 30 s in
        # which nothing else moves; say so then rather than look stuck, and only then.
        return PREPARING if status.preparing else STARTING
    if status.state == "indexing" and progress is not None:
        rate = f" · {progress.chunks_per_second:,.0f} chunks/s" if progress.chunks_per_second else ""
        if progress.total:
            return f"indexing {progress.done:,}/{progress.total:,}{rate}"
        return f"indexing{rate}"
    failed = f" ({progress.failed} failed)" if progress is not None and progress.failed else ""
    return f"index up to date{failed}"


class StatusBar(Static):
    """The bottom line above the key bar."""

    def __init__(self, parts: dict[str, str] | None = None, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._parts: dict[str, str] = dict(parts or {})

    def on_mount(self) -> None:
        self._draw()

    def set_part(self, part: str, text: str) -> None:
        """Set (or with ``""`` hide) one part; unknown parts are shown after the known ones."""
        if text:
            self._parts[part] = text
        else:
            self._parts.pop(part, None)
        self._draw()

    def part(self, part: str) -> str:
        """The text of one part (``""`` when hidden)."""
        return self._parts.get(part, "")

    def set_index(self, status: IndexStatus) -> None:
        self.set_part("index", format_index(status))

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        extra = [p for p in self._parts if p not in PARTS]
        shown = [p for p in PARTS if p in self._parts] + extra
        dropping = [*reversed(extra), *(p for p in DROPPED_FIRST if p in self._parts)]
        room = self.content_size.width  # 0 before the first layout: all are drawn, then again
        while room and len(shown) > 1 and self._width(shown) > room:
            shown.remove(dropping.pop(0))
        pieces: list[str | tuple[str, str]] = []
        for index, part in enumerate(shown):
            if index:
                pieces.append((SEPARATOR, "$text-muted"))
            pieces.append(self._parts[part])
        self.update(Content.assemble(*pieces))

    def _width(self, parts: list[str]) -> int:
        return sum(cell_len(self._parts[p]) for p in parts) + cell_len(SEPARATOR) * (len(parts) - 1)
