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


def dropped(rows: Sequence[Row], now: int, rule: Thinning) -> set[int]:
    """The ids of the revisions that ``rule`` thins at ``now``, among one note's ``rows`` (all of
    them, oldest first).

    A revision older than ``keep_all_days`` goes when a later old one shares its day (its week,
    past ``keep_daily_days``), unless the next one is another actor's. Whether a later one shares
    the day or week does not depend on that one's own age, so what a rule drops at one moment it
    drops at any later one: thinning a little at every save ends where thinning once would.
    """
    cutoff = now - rule.keep_all_days * DAY_MS
    daily = now - rule.keep_daily_days * DAY_MS
    later_days: set[int] = set()
    later_weeks: set[int] = set()
    drop: set[int] = set()
    for i in range(len(rows) - 1, -1, -1):
        row = rows[i]
        if row.time >= cutoff:
            continue
        day = row.time // DAY_MS
        week = (day + _THURSDAY) // 7
        handover = i + 1 < len(rows) and rows[i + 1].actor != row.actor
        shared = day in later_days if row.time >= daily else week in later_weeks
        if shared and not handover and i + 1 < len(rows):
            drop.add(row.id)
        later_days.add(day)
        later_weeks.add(week)
    return drop
