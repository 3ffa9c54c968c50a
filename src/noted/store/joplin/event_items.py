"""Joplin's ``/events`` items as noted reads them: which changes it follows, and who made each."""

from __future__ import annotations

from dataclasses import dataclass

from noted.models import ACTOR_JOPLIN, ACTOR_SYNC, ChangeType

SYNC_SOURCES = frozenset({2, 3})
"""The ``source`` of a Joplin change that came by sync (``ItemChange.SOURCE_SYNC``, and
``SOURCE_DECRYPTION`` of what sync brought); 1 is an edit made on this machine."""
EVENT_FIELDS = "id,item_type,item_id,type,created_time,source"
"""What noted asks ``/events`` for (``source`` is not among its default fields)."""
_JOPLIN_CHANGE = {1: ChangeType.CREATE, 2: ChangeType.UPDATE, 3: ChangeType.DELETE}


@dataclass(frozen=True, slots=True)
class JoplinEvent:
    """One item of Joplin's ``/events`` (only notes are reported there)."""

    id: int
    item_id: str
    change_type: ChangeType
    time: int
    source: int = 1
    """Where Joplin says the change came from: ``SYNC_SOURCES``, or 1, made on this machine."""

    @property
    def actor(self) -> str:
        """Who made it, as far as Joplin tells: its sync, or an edit in Joplin on this machine."""
        return ACTOR_SYNC if self.source in SYNC_SOURCES else ACTOR_JOPLIN


def event_of(item: dict[str, object]) -> JoplinEvent | None:
    """The event in one ``/events`` item, or None for an item type noted does not follow."""
    if int(str(item.get("item_type", 0))) != 1:
        return None
    change = _JOPLIN_CHANGE.get(int(str(item.get("type", 0))))
    if change is None:
        return None
    return JoplinEvent(
        int(str(item["id"])),
        str(item["item_id"]),
        change,
        int(str(item.get("created_time", 0))),
        int(str(item.get("source", 1))),
    )
