"""noted's change feed on Joplin: Joplin's ``/events``, mirrored into the sidecar with actors.

Joplin's ``/events?cursor=N`` lists note changes after its change id ``N``, 100 at a time, and
keeps only the newest change of each note (an older one is deleted when a newer is added), so a
follower sees every note that changed, once, which is what the indexer and the UI need. Joplin
drops changes older than 90 days that its own services have processed: a noted that has not
looked for that long should rebuild its index (``noted index --rebuild``).

noted's own writes append their change to the sidecar's ``joplin_feed`` when Joplin answers, so
none is lost when Joplin drops it for a newer one. Each pull copies the new events there, each
once by Joplin's id; an event that is one of those writes is left out (it is in the feed already),
and the others are edits made in Joplin itself (actor ``joplin``) or writes of noted's whose
answer never came (their actor). noted's cursor is the id of that table, so notebook, tag and
attachment changes (which Joplin does not report) share one ordered feed with the note changes.

On first use the mirror copies the changes Joplin still keeps (the last 90 days, one per note),
marked as Joplin's: followers start from noted's newest cursor anyway, and keyword search learns
which notes changed lately (see ``noted.search.joplin``).

Joplin's change ids start again when its data does (its "delete local data and re-download", a
new install): it then answers noted's cursor with nothing, as when nothing changed, until its new
ids pass the old ones. An idle pull therefore asks Joplin now and then for its newest change id;
one below noted's cursor means the log started again, and noted looks at every note afresh
(``Sidecar.restart``), so the index and the review follow from the notes Joplin has now.

Joplin logs every request it answers, so a process that follows the feed for long (the app, the
MCP server, ``noted index --watch``) paces its polls (``pace``): the feed's questions
(``changes_since``, ``latest_cursor``, ``notes_changed_since``) ask Joplin at most once per gap,
whichever part of the process asks (the app's follower, the indexer, the review's count), and
answer from the sidecar in between. The gap grows from ``PACE_MIN_SECONDS`` to
``PACE_MAX_SECONDS`` while Joplin reports nothing new, and is short again as soon as it does. The
sidecar is read every time: noted's own writes, this process's and other noted processes' on the
profile, are in it at once. The reads that must see Joplin as it is now (before a write, the
history, search's recent notes) always ask. A pull that fails is not paced: the client's retries
pace it, and the next question asks again, so a Joplin that is back is seen at once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection

from noted.errors import BackendError
from noted.models import ChangePage
from noted.store.joplin.client import JoplinClient
from noted.store.joplin.event_items import EVENT_FIELDS, JoplinEvent, event_of
from noted.store.joplin.sidecar import Sidecar

log = logging.getLogger(__name__)

MAX_PAGES_PER_PULL = 200
"""A pull copies at most this many pages of 100 events; the next pull goes on from there."""
RESTART_CHECK_SECONDS = 60.0
"""How often an idle pull asks whether Joplin's change log started again (the first one always does)."""
PACE_MIN_SECONDS = 0.25
"""The gap between two of a paced feed's asks while Joplin reports changes."""
PACE_MAX_SECONDS = 1.5
"""The longest gap, reached after a few asks that found nothing: a change made in Joplin shows
within it (0.75 s on average), at a cost of 40 requests a minute."""


class EventFeed:
    """Follows Joplin's ``/events`` into the sidecar and answers noted's feed questions."""

    def __init__(
        self, client: JoplinClient, sidecar: Sidecar, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.client = client
        self.sidecar = sidecar
        self._lock = threading.Lock()
        self._clock = clock
        self._checked: float | None = None
        self._paced = False
        self._gap = PACE_MIN_SECONDS
        self._due = 0.0

    def pace(self) -> None:
        """Pace the feed's questions from now on (see the module's docstring)."""
        self._paced = True

    def pull(self, *, poll: bool = False) -> None:
        """Copy Joplin's new events into the sidecar; a ``poll`` of a paced feed only when it is due."""
        with self._lock:
            if poll and self._paced and self._clock() < self._due:
                return
            moved = self._copy()
            if self._paced:
                self._gap = PACE_MIN_SECONDS if moved else min(self._gap * 2, PACE_MAX_SECONDS)
                self._due = self._clock() + self._gap

    def _copy(self) -> bool:
        """Copy Joplin's new events (under the lock); True when there were any."""
        moved = False
        cursor = self.sidecar.joplin_cursor() or 0
        for _ in range(MAX_PAGES_PER_PULL):
            answer = self.client.get("/events", {"cursor": cursor, "fields": EVENT_FIELDS})
            if not isinstance(answer, dict):
                raise BackendError("Joplin answered /events with something other than a page of events")
            events: list[JoplinEvent] = []
            for item in answer.get("items", []):
                event = event_of(item)
                if event is not None:
                    events.append(event)
            next_cursor = int(str(answer.get("cursor", cursor)))
            if events or next_cursor != cursor:  # an idle poll writes nothing
                self.sidecar.mirror(events, next_cursor)
                moved = True
            elif cursor and not answer.get("items"):
                self._check_restart(cursor)
            cursor = next_cursor
            if not answer.get("has_more"):
                break
        return moved

    def _check_restart(self, cursor: int) -> None:
        """Look at every note afresh if Joplin's newest change id is below ``cursor``."""
        now = time.monotonic()
        if self._checked is not None and now - self._checked < RESTART_CHECK_SECONDS:
            return
        self._checked = now
        answer = self.client.get("/events")  # without a cursor: Joplin's newest change id
        newest = int(str(answer.get("cursor", cursor))) if isinstance(answer, dict) else cursor
        if newest >= cursor:
            return
        log.warning(
            "Joplin's change log started again (its newest change is %d, noted had read up to %d: "
            "its data was downloaded again, or it was installed anew); every note is looked at afresh",
            newest,
            cursor,
        )
        params = {"fields": "id", "include_deleted": "1", "include_conflicts": "1"}
        present = {str(item["id"]) for item in self.client.get_all("/notes", params)}
        self.sidecar.restart(present, newest)

    def changes_since(self, cursor: int, limit: int = 1000) -> ChangePage:
        """Changes after noted's ``cursor``, oldest first."""
        self.pull(poll=True)
        return self.sidecar.changes_since(cursor, limit)

    def notes_changed_since(self, cursor: int, limit: int) -> tuple[set[str], bool]:
        """The notes changed after noted's ``cursor`` (Joplin's new events included)."""
        self.pull(poll=True)
        return self.sidecar.notes_changed_since(cursor, limit)

    def first_change_not_by(self, cursor: int, actors: Collection[str]) -> int | None:
        """The first change after noted's ``cursor`` by none of ``actors`` (Joplin's new events included)."""
        self.pull(poll=True)
        return self.sidecar.first_change_not_by(cursor, actors)

    def latest_cursor(self) -> int:
        """noted's cursor of the newest change (Joplin's new events included)."""
        self.pull(poll=True)
        return self.sidecar.latest_cursor()
