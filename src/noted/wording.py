"""Words that count things, the range of times that show, and titles on one line, shared by the app
and the command line."""

from __future__ import annotations

import datetime as dt
import re

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
EARLIEST_MS = (dt.datetime(1, 1, 3, tzinfo=dt.UTC) - _EPOCH) // dt.timedelta(milliseconds=1)
LATEST_MS = (dt.datetime(9999, 12, 31, tzinfo=dt.UTC) - _EPOCH) // dt.timedelta(milliseconds=1) - 1
"""The times noted keeps: 0001-01-03 to the end of 9999-12-30 (UTC), so that every one of them
shows in every time zone: Python's local time fails on 0001-01-01 and, probing a day back, on
0001-01-02 (year 0), and the year 10000 begins on 9999-12-31 east of Greenwich."""


def shown_time(ms: int) -> int:
    """``ms`` brought into the range that shows (``EARLIEST_MS``..``LATEST_MS``). Noted refuses to
    store a time outside it, but a Joplin note, or a profile written before that rule, may hold one;
    shown as the nearest time that shows, it no longer stops every list and export it is in."""
    return min(max(ms, EARLIEST_MS), LATEST_MS)


def local_time(ms: int) -> str:
    """A note's time for people, in local time (``2024-05-01 14:05``); empty for 0 (not set)."""
    if not ms:
        return ""
    moment = dt.datetime.fromtimestamp(shown_time(ms) / 1000)
    return f"{moment.year:04d}-{moment:%m-%d %H:%M}"  # strftime's %Y writes the year 5 as "5" on Linux


def plural(count: int, word: str) -> str:
    """``1 note``, ``2 notes``, ``1,024 notes`` (``word`` takes an s)."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
"""The line breaks ``str.splitlines`` breaks at (a CR LF pair as one)."""
LINE_BREAK_SIGN = "\u240a"
"""What a line break inside a line shows as: ␊, the control picture of a line feed, as a Markdown
folder's titles show one."""


def one_line(text: str) -> str:
    """``text`` for a line of output that is one item (a listing's row, a title in a message): each
    line break it holds shown as ``LINE_BREAK_SIGN``. noted refuses such titles, but one made in
    Joplin, or by an older noted, may hold one, and broke the row in two."""
    return _BREAKS.sub(LINE_BREAK_SIGN, text)
