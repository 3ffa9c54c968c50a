"""Which old revisions a note's history keeps: the rule, apart from any storage.

Every revision younger than ``keep_all_days`` is kept. Older ones are thinned: up to
``keep_daily_days`` of age, the last revision of each day (UTC) is kept; beyond that, the last of
each week (Monday to Sunday, UTC). Whatever its age, a revision is also kept when the next one
was made by another actor: the state each actor left a note in (what the person had before the
assistant or an outside app wrote, and what that writer left) stays, so "undo what the assistant
did" always has a state to go back to. A note's newest revision is never dropped.

What recovery relies on holds inside the first window: both sides of a conflict, and every save
before and after an edit by another writer, are revisions younger than ``keep_all_days`` for that
long, and thinning never touches them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from noted.settings import Settings
from noted.settings.handles import HISTORY_KEEP_ALL_DAYS, HISTORY_KEEP_DAILY_DAYS

DAY_MS = 24 * 60 * 60 * 1000
_THURSDAY = 3
"""1970-01-01 was a Thursday: days since the epoch plus this, over seven, count Monday weeks."""


@dataclass(frozen=True, slots=True)
class Thinning:
    """The rule's two ages, in days (the ``history.*`` settings)."""

    keep_all_days: int = 7
    keep_daily_days: int = 90

    @classmethod
    def of(cls, settings: Settings) -> Thinning:
        """The rule the ``history.*`` settings give."""
        return cls(settings.get(HISTORY_KEEP_ALL_DAYS), settings.get(HISTORY_KEEP_DAILY_DAYS))


@dataclass(frozen=True, slots=True)
class Row:
    """What the rule looks at in a revision: its id (the order of saves), time and actor."""

    id: int
    time: int
    actor: str


def _bucket(time: int, now: int, rule: Thinning) -> tuple[str, int]:
    day = time // DAY_MS
    if time >= now - rule.keep_daily_days * DAY_MS:
        return ("day", day)
    return ("week", (day + _THURSDAY) // 7)


def dropped(rows: Sequence[Row], now: int, rule: Thinning) -> set[int]:
    """The ids of the revisions that ``rule`` thins at ``now``, among one note's ``rows`` (all of
    them, oldest first)."""
    cutoff = now - rule.keep_all_days * DAY_MS
    last_of_bucket: dict[tuple[str, int], int] = {}
    for row in rows:
        if row.time < cutoff:
            last_of_bucket[_bucket(row.time, now, rule)] = row.id
    drop: set[int] = set()
    for row, after in zip(rows, rows[1:], strict=False):
        if row.time >= cutoff or after.actor != row.actor:
            continue
        if last_of_bucket[_bucket(row.time, now, rule)] != row.id:
            drop.add(row.id)
    return drop
