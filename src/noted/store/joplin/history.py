"""The change feed and the history of the Joplin store: Joplin's events, and the revisions and
actors the sidecar keeps for what Joplin does not."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from noted.errors import NotFoundError
from noted.models import (
    ACTOR_JOPLIN,
    ACTOR_SYNC,
    SYNCED_LABEL,
    Change,
    ChangePage,
    HistoryPruned,
    Note,
    Revision,
    now_ms,
)
from noted.store.joplin.base import NOTE_FIELDS, JoplinApi, note_of
from noted.store.joplin.provenance import writer_of
from noted.store.revisions import labelled


class History:
    """What changed, who changed it, and the revisions of each note."""

    def __init__(self, api: JoplinApi) -> None:
        self.api = api

    def changes_since(self, cursor: int, limit: int = 1000) -> ChangePage:
        return self.api.feed.changes_since(cursor, limit)

    def notes_changed_since(self, cursor: int, limit: int) -> tuple[set[str], bool]:
        return self.api.feed.notes_changed_since(cursor, limit)

    def first_change_not_by(self, cursor: int, actors: Collection[str]) -> int | None:
        return self.api.feed.first_change_not_by(cursor, actors)

    def latest_cursor(self) -> int:
        return self.api.feed.latest_cursor()

    def item_changes(self, item_ids: Sequence[str], *, limit: int = 200) -> list[Change]:
        """The changes noted has seen to any of ``item_ids``, newest first, at most ``limit``.

        Every write noted made is here with its actor, each as it happened. Edits made in Joplin
        itself are known only through its ``/events``, which keep a note's newest change: two
        made there between two looks of noted's show as one.
        """
        self.api.feed.pull()
        return self.api.sidecar.item_changes(item_ids, limit)

    def recent_notes(self, since: int) -> dict[str, tuple[int, int]]:
        """Notes changed since ``since`` (ms), each with a version that moves when it may have changed.

        Keyword search reads these itself: Joplin's search index may not have them yet.
        """
        self.api.feed.pull()
        return self.api.sidecar.recent_notes(since)

    def note_history(self, note_id: str, *, bodies: bool = True) -> list[Revision]:
        """The revisions noted recorded for a note, newest first.

        The note's text as it is now joins them first when noted has not seen it: an edit made in
        Joplin, or one that came by sync (its writer's, when noted wrote it on the other machine).
        A note Joplin erased (its own apps, a script) keeps the revisions noted recorded
        (``noted.ops.erased``); with none, it is not found.
        """
        try:
            item = self.api.note_item(note_id, NOTE_FIELDS + ",user_data")
        except NotFoundError:
            kept = self.api.sidecar.note_history(note_id, bodies=bodies)
            if not kept:
                raise
            return kept
        self.keep_outside_state(note_of(item), str(item.get("user_data") or ""))
        return self.api.sidecar.note_history(note_id, bodies=bodies)

    def get_revision(self, revision_id: int) -> Revision:
        return self.api.sidecar.get_revision(revision_id)

    def kept_notes(self, prefix: str = "") -> dict[str, str]:
        return self.api.sidecar.kept_notes(prefix)

    def prune_history(self, *, now: int | None = None) -> HistoryPruned:
        return self.api.sidecar.prune_history(now or now_ms())

    def keep_outside_state(self, note: Note, user_data: str) -> None:
        """Record the note as Joplin had it, when that state is not the last one noted knows.

        Without it, "undo what the assistant did" would have no state to go back to for a note
        written in Joplin. The feed is brought up to date first: Joplin keeps only a note's newest
        change, so the edit made there would be gone from its events once noted's write lands.
        The state is Joplin's, unless noted wrote it on another machine (its stamp says who, and
        the revision is labelled ``SYNCED_LABEL`` when it came by sync): its sync's, stamped when it
        arrived (as its feed row, which the review pairs it with), when the note's last change came
        by sync; else an edit in Joplin on this machine.
        """
        last = self.api.sidecar.last_revision(note.id)
        if last is None or (last.title, last.body) != (note.title, note.body):
            self.api.feed.pull()
            newest = self.api.sidecar.item_changes([note.id], 1)
            synced = newest[0] if newest and newest[0].actor == ACTOR_SYNC else None
            writer = writer_of(user_data, note.title, note.body)
            actor = writer or (ACTOR_JOPLIN if synced is None else ACTOR_SYNC)
            when = note.updated_time if synced is None else max(note.updated_time, synced.time)
            with labelled(SYNCED_LABEL if writer and synced else ""):
                self.api.sidecar.save_revision(note, actor, when)
