"""The app's long-lived work: following the change feed and ``config.toml``, the indexer, and the
embedded MCP server. ``NotedApp`` owns a ``Background``, starts it when it mounts and stops it when
it unmounts; each part runs in a worker of the app and reaches the screen only through messages.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.worker import get_current_worker

from noted.errors import BackendError, NotedError
from noted.ops.review import pending_line
from noted.services import Services
from noted.settings.handles import MCP_ENABLED, MCP_HOST, MCP_PORT
from noted.ui.messages import IndexerStatusChanged, StatusPart, StoreChanged
from noted.ui.workers import in_thread

if TYPE_CHECKING:
    from noted.indexer.service import IndexStatus
    from noted.mcp.embedded import EmbeddedMcpServer, McpState

log = logging.getLogger("noted.ui.app")  # the logger these lines have always come from

FOLLOW_SECONDS = 0.25
"""How often the follower reads the change feed: a change made elsewhere shows within a second."""
MCP_RESTART_KEYS = frozenset({MCP_HOST.key, MCP_PORT.key})
"""Settings the running MCP server must restart to follow (``mcp.enabled`` starts or stops it)."""
REVIEW_ROUNDS = 8
"""Rounds of the follower between two counts of the changes to review when nothing changed (2 s)."""
SETTINGS_SECONDS = 1.0
"""How often the app re-reads ``config.toml`` for changes made elsewhere (a shell, another app)."""


class Background:
    """The app's followers, indexer and MCP server, run as workers of ``app``."""

    def __init__(self, app: App[Any], services: Services) -> None:
        self._app = app
        self._services = services
        self._mcp: EmbeddedMcpServer | None = None
        self._mcp_lock = asyncio.Lock()
        self.mcp_status = ""
        """The MCP server's status-bar text (the settings screen shows it too)."""

    def start(self, cursor: int | None) -> None:
        """Follow ``config.toml`` and the change feed (from ``cursor``, or from now), and start
        the indexer."""
        self._thread(self._follow_settings, "settings", "following config.toml")
        self._thread(lambda: self._follow_changes(cursor), "follower", "following changes")
        self._thread(self._start_indexer, "indexer", "starting the indexer")

    def _thread(self, work: Callable[[], None], group: str, description: str) -> None:
        in_thread(self._app, work, group, description, exclusive=True)

    async def stop(self) -> None:
        """Stop the MCP server and the indexer (the app cancels the followers with its workers)."""
        if self._mcp is not None:
            await self._mcp.stop()
        indexer = self._services.indexer
        if indexer is not None:
            indexer.stop(timeout=2.0)

    def _index_progress(self, status: IndexStatus) -> None:
        self._app.post_message(IndexerStatusChanged(status))  # from the indexer's thread

    def _follow_settings(self) -> None:
        """Re-read the config file when another process changed it (``noted config set``…), as the
        MCP server does; the changes reach the app and its panes through the settings' subscribers."""
        worker = get_current_worker()
        settings = self._services.settings
        reported: str | None = None
        told = set(settings.problems)  # the app says those at start
        while not worker.is_cancelled:
            time.sleep(SETTINGS_SECONDS)
            try:
                settings.reload()
                reported = None
            except NotedError as exc:  # a half-typed file: say it once, keep the values in effect
                if str(exc) != reported:
                    reported = str(exc)
                    log.warning("config file not reloaded: %s", exc)
                    self._app.call_from_thread(
                        self._app.notify, f"{exc}", title="Settings not reloaded", severity="warning"
                    )
            for problem in settings.problems:  # a value not allowed, written meanwhile: its default applies
                if problem not in told:
                    self._app.call_from_thread(
                        self._app.notify, problem, title="Settings", severity="warning", timeout=8
                    )
            told = set(settings.problems)

    def _follow_changes(self, cursor: int | None) -> None:
        """Post a ``StoreChanged`` for each batch of changes in the feed until the app ends."""
        worker = get_current_worker()
        store = self._services.store
        self._services.start_watching()  # a Markdown folder's outside changes reach the feed
        waited, scanned, away = 0, "", ""
        while not worker.is_cancelled:
            scanned = self._say_scanned(scanned)
            try:
                if cursor is None:  # on Joplin this asks Joplin, which may be off when the app starts
                    cursor = store.latest_cursor()
                page = store.changes_since(cursor)
            except BackendError as exc:  # Joplin off: the client's retries pace the next try
                away = self._say_away(away, exc)
                time.sleep(1.0)
                continue
            except NotedError as exc:  # a busy database: try again rather than stop following
                log.warning("reading the change feed failed: %s", exc)
                time.sleep(1.0)
                continue
            if away:  # what the panes read meanwhile failed, and changes made then are not in the feed
                away = self._say_back(page.cursor)
            if page.changes:
                self._app.post_message(StoreChanged.of(page.changes, page.cursor))
            cursor = page.cursor
            waited = self._count_review(waited, bool(page.changes))
            if not page.has_more:
                time.sleep(FOLLOW_SECONDS)

    def _say_away(self, said: str, exc: BackendError) -> str:
        """Say once that the notes cannot be read (Joplin is off) and that the app keeps trying."""
        if not said:
            log.warning("reading the change feed failed: %s; trying again until it answers", exc)
            self._app.notify(
                f"{exc}. The app tries again by itself and shows the notes once it answers.",
                title="Notes not reachable", severity="warning", timeout=10,
            )  # fmt: skip
        return str(exc)

    def _say_back(self, cursor: int) -> str:
        """Read every pane again (an empty ``StoreChanged`` does) and say so. Returns "" (not away)."""
        log.info("the change feed answers again; the panes are read anew")
        self._app.post_message(StoreChanged(cursor=cursor))
        self._app.notify("The notes can be read again: the notebooks and notes are shown anew.", title="Back")
        return ""

    def _say_scanned(self, said: str) -> str:
        """Say once that a Markdown folder is scanned rather than watched, and why (the status bar
        keeps it while it lasts), and that it is watched again. Returns what is said now."""
        problem = self._services.watch_problem()
        if problem != said:
            self._app.post_message(StatusPart("folder", "folder scanned, not watched" if problem else ""))
            if problem:
                self._app.notify(problem, title="Markdown folder", severity="warning", timeout=10)
            elif said:
                self._app.notify("Watched again: outside changes show at once.", title="Markdown folder")
        return problem

    def _count_review(self, waited: int, changed: bool) -> int:
        """Put the number of changes and proposals that wait in the status bar: after changes, and
        every few seconds (another process may have proposed a write). Returns the rounds to wait."""
        if not changed and waited > 0:
            return waited - 1
        try:
            review = self._services.review
            review.refresh()
            count = review.rows.count(along=False) + len(review.rows.proposals())
        except NotedError as exc:
            log.warning("counting the changes to review failed: %s", exc)
            return REVIEW_ROUNDS
        self._app.post_message(StatusPart("review", pending_line(count)))
        return REVIEW_ROUNDS

    def _start_indexer(self) -> None:
        """Load the embedding model and start indexing (in a thread: the model takes a moment)."""
        service = self._services.start_indexer(label="tui", on_status=self._index_progress)
        if service is None:
            self._app.post_message(StatusPart("index", "index off"))
        else:
            self._app.post_message(IndexerStatusChanged(service.status))

    def apply_mcp(self, *, restart: bool = False) -> None:
        """Start or stop the embedded MCP server to follow ``mcp.enabled`` (``restart``: a new address)."""
        self._app.run_worker(
            self._apply_mcp(restart), exclusive=False, group="mcp", exit_on_error=False,
            description="starting the MCP server",
        )  # fmt: skip

    def settings_changed(self, keys: tuple[str, ...]) -> None:
        """Start, stop or move the MCP server if these settings say so."""
        moved = bool(MCP_RESTART_KEYS.intersection(keys))
        if MCP_ENABLED.key in keys or (moved and self._mcp is not None):
            self.apply_mcp(restart=moved)

    async def _apply_mcp(self, restart: bool) -> None:
        async with self._mcp_lock:  # one start or stop at a time, in the order asked
            if self._mcp is None:
                # The MCP SDK takes a while to import: do it off the event loop, and only when wanted.
                embedded = await asyncio.to_thread(importlib.import_module, "noted.mcp.embedded")
                deps = importlib.import_module("noted.mcp.deps").McpDeps.of(
                    self._services, log_path=self._services.profile.log_path
                )
                # poll_seconds=0: the app follows config.toml itself (_follow_settings).
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
        self._app.post_message(StatusPart("mcp", text))  # post: the server may report from another thread
