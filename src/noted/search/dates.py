"""Dates of the ``created:``, ``updated:`` and ``due:`` filters, resolved to epoch milliseconds.

A value names the start of a period in local time, as in Joplin:

- ``YYYY``, ``YYYYMM``, ``YYYYMMDD`` (``YYYY-MM`` and ``YYYY-MM-DD`` are accepted too): midnight at
  the start of that year, month or day.
- ``day-N``, ``week-N``, ``month-N``, ``year-N`` (or ``+N``): the start of the current day, week,
  month or year, moved N such periods back (or forward). ``day-0`` is today at midnight,
  ``day-1`` yesterday at midnight, ``month-0`` the first of this month.

``created:X`` then means "on or after X" and ``-created:X`` "before X".

Deviation from Joplin: a week starts on Monday (ISO 8601); Joplin follows the locale of moment.js,
which starts weeks on Sunday in English.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from noted.errors import QueryError

_ABSOLUTE = re.compile(r"^(\d{4})(?:-?(\d{2})(?:-?(\d{2}))?)?$")
_RELATIVE = re.compile(r"^(day|week|month|year)([+-])(\d{1,6})$", re.IGNORECASE)

DATE_FORMS = "use YYYY, YYYYMM, YYYYMMDD or day-N/week-N/month-N/year-N"


def _bad(value: str, why: str = "") -> QueryError:
    detail = f" ({why})" if why else ""
    return QueryError(f'bad date "{value}"{detail}: {DATE_FORMS}')


def _local_ms(day: date) -> int:
    """Local midnight at the start of ``day``, in epoch milliseconds (DST-aware)."""
    return int(datetime(day.year, day.month, day.day).timestamp() * 1000)


def _shift_months(day: date, months: int) -> date:
    index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(index, 12)
    return date(year, month + 1, 1)


def _relative(unit: str, offset: int, today: date) -> date:
    if unit == "day":
        return today + timedelta(days=offset)
    if unit == "week":
        monday = today - timedelta(days=today.weekday())
        return monday + timedelta(weeks=offset)
    if unit == "month":
        return _shift_months(today.replace(day=1), offset)
    return date(today.year + offset, 1, 1)


def resolve_date(value: str, now: datetime | None = None) -> int:
    """The start of the period ``value`` names, in local time, as epoch milliseconds.

    Args:
        value: ``YYYY``, ``YYYYMM``, ``YYYYMMDD`` or ``day|week|month|year`` followed by ``±N``.
        now: The moment relative values count from (default: now, local time).

    Raises:
        QueryError: When ``value`` is not one of those forms or names no real date.
    """
    text = value.strip()
    absolute = _ABSOLUTE.match(text)
    if absolute:
        year, month, day = (int(g) if g else 1 for g in absolute.groups())
        if not 1 <= month <= 12:
            raise _bad(value, f"no month {month}")
        try:
            start = date(year, month, day)
        except ValueError:
            raise _bad(value, "no such day") from None
        if year < 1970:
            raise _bad(value, "years start at 1970")
        return _local_ms(start)
    relative = _RELATIVE.match(text)
    if relative:
        unit, sign, amount = relative.groups()
        offset = int(amount) if sign == "+" else -int(amount)
        today = (now or datetime.now()).date()
        try:
            start = _relative(unit.lower(), offset, today)
        except (ValueError, OverflowError):
            raise _bad(value, "too far away") from None
        return _local_ms(start)
    raise _bad(value)
