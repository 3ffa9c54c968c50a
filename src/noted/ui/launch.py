"""Opening the app: what ``noted tui`` runs, and what the UI benchmark times.

Loading the app's modules (Textual most of all) takes about half a second. ``open_app`` reads what
the first screen shows, the first page of All notes and the notebook tree, in a thread meanwhile,
so the panes have their rows when they mount and the first frame shows them, rather than a frame of
empty panes followed by another once the rows arrive. This module imports neither Textual nor the
app's modules until ``open_app`` needs them.

``FirstLook`` keeps no reader state (it holds list rows and the tree, never a note to show), so it
stays here rather than in ``reader_model``.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from noted.errors import NotedError
from noted.services import Services
from noted.store.protocol import NoteOrder
from noted.ui import memory
from noted.ui.data import ALL_NOTES, PAGE_SIZE, NotePage, TreeData, load_page, load_tree

if TYPE_CHECKING:
    from noted.ui.app import NotedApp

log = logging.getLogger(__name__)


class FirstLook:
    """The first page of All notes (newest first) and the notebook tree, read in a thread.

    Each is handed out once, and only if it has arrived: a pane that finds nothing here reads for
    itself, as it does whenever it loads. ``cursor`` is where the change feed stood before the
    reading, so a change made meanwhile by another process still reaches the screen.
    """

    def __init__(self, services: Services) -> None:
        self._services = services
        self.cursor: int | None = None
        self._page: NotePage | None = None
        self._tree: TreeData | None = None
        self._thread = threading.Thread(target=self._read, name="noted-first-look", daemon=True)

    def start(self) -> FirstLook:
        self._thread.start()
        return self

    def _read(self) -> None:
        store = self._services.store
        try:
            self.cursor = store.latest_cursor()
            self._page = load_page(store, ALL_NOTES, NoteOrder.UPDATED, 0, PAGE_SIZE, self._services.keyword)
            self._tree = load_tree(store)
        except NotedError as exc:  # the panes read again, and say what is wrong if it still is
            log.warning("reading the first screen ahead failed: %s", exc)
        except Exception:
            log.exception("reading the first screen ahead failed")

    def wait(self, timeout: float | None = None) -> None:
        """Until the reading is done (tests; the app itself never waits for it)."""
        self._thread.join(timeout)

    def take_page(self) -> NotePage | None:
        page, self._page = self._page, None
        return page

    def take_tree(self) -> TreeData | None:
        tree, self._tree = self._tree, None
        return tree


def open_app(services: Services, *, background: bool = True) -> NotedApp:
    """The app on ``services``, with its first screen read while its modules load."""
    memory.quiet_start()
    first_look = FirstLook(services).start()
    from noted.ui.app import NotedApp

    return NotedApp(services, background=background, first_look=first_look)
