"""The part of the ``Store`` protocol (``noted.store.protocol``) about the change feed and the
revisions of each note."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from noted.models import Change, ChangePage, HistoryPruned, Revision


class HistoryStore(Protocol):
    """The change feed, and the revisions of each note with who made them."""

    def changes_since(self, cursor: int, limit: int = 1000) -> ChangePage: ...
    def notes_changed_since(self, cursor: int, limit: int) -> tuple[set[str], bool]:
        """The notes the first ``limit`` changes after ``cursor`` changed (``update``, ``create``,
        ``delete`` of a note; not its tags), and whether more changes follow; cheaper than reading
        the changes when only which notes is asked (search's ``N notes changed since indexed``)."""
        ...

    def latest_cursor(self) -> int: ...
    def first_change_not_by(self, cursor: int, actors: Collection[str]) -> int | None:
        """The id of the first change after ``cursor`` made by none of ``actors`` (None when
        there is none), found without reading the changes before it: the review skips what the
        person did alone."""
        ...

    def item_changes(self, item_ids: Sequence[str], *, limit: int = 200) -> list[Change]:
        """The changes to any of these items (notes, notebooks, tags, attachments; a ``note_tag``
        change counts for its note), newest first, at most ``limit``: who did what to one note and
        the things around it, without reading the whole feed."""
        ...

    def note_history(self, note_id: str, *, bodies: bool = True) -> list[Revision]:
        """The note's revisions, newest first; without ``bodies`` each one's ``body`` is empty
        (a listing: a thousand revisions of a large note would be a thousand copies of it), and
        ``get_revision`` reads one whole."""
        ...

    def get_revision(self, revision_id: int) -> Revision: ...
    def kept_notes(self, prefix: str = "") -> dict[str, str]:
        """The notes with kept revisions (erased ones too: ``noted.ops.erased``) whose ids start
        with ``prefix``, each with its newest revision's title."""
        ...

    def prune_history(self, *, now: int | None = None) -> HistoryPruned:
        """Thin every note's revisions by the history rule (``noted.store.history.thinning``),
        store what it keeps in its smallest form, and give the freed space back to the disk."""
        ...
