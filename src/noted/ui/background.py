"""The app's long-lived work: following the change feed and ``config.toml``, the indexer, and the
embedded MCP server. ``NotedApp`` mixes this in, starts it when it mounts and stops it when it
unmounts; each runs in a worker and reaches the screen only through messages.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App
from textual.worker import get_current_worker

from noted.errors import NotedError
from noted.services import Services
from noted.ui.messages import IndexerStatusChanged, StatusPart, StoreChanged

if TYPE_CHECKING:
    from noted.indexer.service import IndexStatus
    from noted.mcp.embedded import EmbeddedMcpServer, McpState
    from noted.ui.launch import FirstLook

log = logging.getLogger("noted.ui.app")  # the logger these lines have always come from

FOLLOW_SECONDS = 0.25
"""How often the follower reads the change feed: a change made elsewhere shows within a second."""
SETTINGS_SECONDS = 1.0
"""How often the app re-reads ``config.toml`` for changes made elsewhere (a shell, another app)."""


class RunsInBackground(App[Any]):
    """The app's followers, indexer and MCP server (mixed into the app, which sets these fields)."""

    services: Services
    first_look: FirstLook | None
    _mcp: EmbeddedMcpServer | None
    _mcp_lock: asyncio.Lock
    mcp_status: str
    """The MCP server's status-bar text (the settings screen shows it too)."""

    def _index_progress(self, status: IndexStatus) -> None:
        self.post_message(IndexerStatusChanged(status))  # from the indexer's thread

    @work(
        thread=True,
        exclusive=True,
        group="settings",
        exit_on_error=False,
        description="following config.toml",
    )
    def follow_settings(self) -> None:
        """Re-read the config file when another process changed it (``noted config set``…), as the
        MCP server does; the changes reach the app and its panes through the settings' subscribers."""
        worker = get_current_worker()
        reported: str | None = None
        while not worker.is_cancelled:
            time.sleep(SETTINGS_SECONDS)
            try:
                self.services.settings.reload()
                reported = None
            except NotedError as exc:  # a half-typed file: say it once, keep the values in effect
                if str(exc) != reported:
                    reported = str(exc)
                    log.warning("config file not reloaded: %s", exc)
                    self.call_from_thread(
                        self.notify, f"{exc}", title="Settings not reloaded", severity="warning"
                    )

    @work(thread=True, exclusive=True, group="follower", exit_on_error=False, description="following changes")
    def follow_changes(self) -> None:
        """Post a ``StoreChanged`` for each batch of changes in the feed until the app ends."""
        worker = get_current_worker()
        store = self.services.store
        self.services.start_watching()  # a Markdown folder's outside changes reach the feed
        # From where the rows read ahead were read, if they were: what changed since reaches the screen.
        cursor = None if self.first_look is None else self.first_look.cursor
        while not worker.is_cancelled:
            if cursor is None:
                try:  # on Joplin this asks Joplin, which may be off when the app starts
                    cursor = store.latest_cursor()
                except NotedError as exc:
                    log.warning("reading the change feed failed: %s", exc)
                    time.sleep(1.0)
                    continue
            try:
                page = store.changes_since(cursor)
            except NotedError as exc:  # a busy database: try again rather than stop following
                log.warning("reading the change feed failed: %s", exc)
                time.sleep(1.0)
                continue
            if page.changes:
                self.post_message(StoreChanged.of(page.changes, page.cursor))
            cursor = page.cursor
            if not page.has_more:
                time.sleep(FOLLOW_SECONDS)

    @work(
        thread=True, exclusive=True, group="indexer", exit_on_error=False, description="starting the indexer"
    )
    def start_indexer(self) -> None:
        """Load the embedding model and start indexing (in a thread: the model takes a moment)."""
        service = self.services.start_indexer(label="tui", on_status=self._index_progress)
        if service is None:
            self.post_message(StatusPart("index", "index off"))
        else:
            self.post_message(IndexerStatusChanged(service.status))

    @work(exclusive=False, group="mcp", exit_on_error=False, description="starting the MCP server")
    async def apply_mcp(self, restart: bool = False) -> None:
        """Start or stop the embedded MCP server to follow ``mcp.enabled`` (``restart``: a new address)."""
        async with self._mcp_lock:  # one start or stop at a time, in the order asked
            if self._mcp is None:
                # The MCP SDK takes a while to import: do it off the event loop, and only when wanted.
                embedded = await asyncio.to_thread(importlib.import_module, "noted.mcp.embedded")
                deps = importlib.import_module("noted.mcp.deps").McpDeps.of(
                    self.services, log_path=self.services.profile.log_path
                )
                # poll_seconds=0: the app follows config.toml itself (follow_settings).
                self._mcp = embedded.EmbeddedMcpServer(deps, on_state=self._mcp_state, poll_seconds=0)
            if restart and self._mcp.running:
                await self._mcp.stop()
            await self._mcp.apply_settings()

    def _mcp_state(self, state: McpState) -> None:
        if state.running:
            count = len(state.clients)
            text = f"MCP {state.url} · {count} client{'' if count == 1 else 's'}"
        else:
            text = f"MCP failed: {state.error}" if state.error else "MCP off"
        self.mcp_status = text
        self.post_message(StatusPart("mcp", text))  # post: the server may report from another thread
