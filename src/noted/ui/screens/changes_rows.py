"""The Changes view's list and diff, and how it (and the note's history) draws a change: the actor
cut short, the time, a summary or a heading fitted to the width, the diff coloured.

A row is one line: a summary longer than the room left beside the time and the actor gives way in
its quoted titles first (``retitled from "Gym rou…"``, the quotes kept), then at its end, after a
whole word (``+1 −0 lines; retitled from…``); the diff (Enter) says the rest.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

ACTS: list[BindingType] = [
    Binding("a", "screen.accept", "Accept", id="changes.accept", tooltip="Mark reviewed (a proposal is applied)"),
    Binding("r", "screen.revert", "Revert", id="changes.revert", tooltip="Restore the version before (a proposal is rejected)"),
    Binding("o", "screen.open", "Open", id="changes.open", tooltip="Open the note at this change"),
]  # fmt: skip
"""What the list and the diff both do to the row (the diff's: the row it shows)."""


class ChangesList(OptionList):
    """The rows; a note's title heads its changes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.diff", "Diff", id="changes.diff", tooltip="Show the change against the version before it, in the list's place"),
        *ACTS,
        Binding("space", "screen.mark", "Mark", id="changes.mark", tooltip="Mark this row, to accept or revert several at once"),
        Binding("j", "cursor_down", "Next", show=False, id="changes.next", tooltip="Next change"),
        Binding("k", "cursor_up", "Previous", show=False, id="changes.previous", tooltip="Previous change"),
    ]  # fmt: skip

    def show(self, options: list[Option]) -> None:
        """The rows ``options``, the cursor kept on its row. Its row gone (settled; a proposal
        applied is a change now), the cursor goes to the row that took its place: the next one
        still here, else the one now where it was (the change the last proposal became), never back
        to the top, where ``a`` again would act on a row the person has not looked at."""
        before = [o.id for o in self.options]
        at = self.highlighted
        was = before[at] if at is not None and at < len(before) else None
        self.set_options(options)
        refs = [o.id for o in options]
        after = before[before.index(was) + 1 :] if was in before else []
        kept = next((ref for ref in [was, *after] if ref is not None and ref in refs), None)
        if kept is not None:
            self.highlighted = refs.index(kept)
        elif at is not None and was is not None:
            self.highlighted = self._enabled_near(min(at, len(refs) - 1))
        elif len(options) > 1:
            self.highlighted = 1  # the first row, under its note's title

    def _enabled_near(self, index: int) -> int | None:
        """The row at ``index``, or the nearest one above it (a note's title is not a row)."""
        return next((i for i in range(index, -1, -1) if not self.options[i].disabled), None)

    def _step(self, direction: int) -> None:
        """The next row up or down; none past the ends (no wrapping round to the other end, where
        one ``j`` too many would put ``a`` on a row the person has not looked at)."""
        at = self.highlighted
        start = at if at is not None else (-1 if direction > 0 else len(self.options))
        for index in range(start + direction, len(self.options) if direction > 0 else -1, direction):
            if not self.options[index].disabled:
                self.highlighted = index
                return

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_cursor_up(self) -> None:
        self._step(-1)


class ChangeDiff(VerticalScroll):
    """A row's diff, in the list's place while it is open."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "screen.back", "Back", id="changes.back", tooltip="Back to the list"),
        *ACTS,
    ]  # fmt: skip


ACTOR_WIDTH = 18
"""The rows' actor column: ``assistant:`` with a conversation's 32-character id would push the rest
of its row out of line."""
QUOTED = re.compile(r'"([^"]*)"')
SHORTEST_QUOTE = 4
"""The fewest characters a quoted title is cut to (``Gym…``) before the summary's end gives way."""


def actor_short(actor: str) -> str:
    """``actor`` cut to ``ACTOR_WIDTH`` with an ellipsis: the first characters of a conversation's
    id tell conversations apart. The filter reads the whole actor."""
    return actor if len(actor) <= ACTOR_WIDTH else actor[: ACTOR_WIDTH - 1] + "…"


def actor_cell(actor: str) -> str:
    """``actor`` as a row shows it: ``actor_short``, padded to ``ACTOR_WIDTH``."""
    return f"{actor_short(actor):<{ACTOR_WIDTH}}"


def when_of(ms: int) -> str:
    """A row's time, local: ``Dec 04 10:02``."""
    return datetime.fromtimestamp(ms / 1000).strftime("%b %d %H:%M")


def row_room(listing: OptionList) -> int:
    """The columns a row of ``listing`` has while it does not scroll: its width less its options'
    padding (a scrollbar, when the rows overflow, takes ``scrollbar_size_vertical`` more); 0 or
    less before it is laid out."""
    padding = listing.get_component_styles("option-list--option").padding
    return listing.content_region.width - padding.width


def fitted(text: str, room: int) -> str:
    """``text`` in at most ``room`` characters: its longest quoted parts shortened first, each kept
    between its quotes, then its end cut with an ellipsis. ``room`` of 0 or less: ``text`` as it is
    (the width is not known yet)."""
    if room <= 0 or len(text) <= room:
        return text
    while len(text) > room:
        quotes = [m for m in QUOTED.finditer(text) if len(m.group(1)) > SHORTEST_QUOTE]
        if not quotes:
            return cut(text, room)
        longest = max(quotes, key=lambda m: len(m.group(1)))
        inner = longest.group(1)
        keep = max(SHORTEST_QUOTE - 1, len(inner) - (len(text) - room) - 1)  # the ellipsis takes one
        text = f'{text[: longest.start()]}"{inner[:keep].rstrip()}…"{text[longest.end() :]}'
    return text


def cut(text: str, room: int) -> str:
    """``text`` in at most ``room`` characters (at least one), its end cut with an ellipsis: after
    its last whole word when that keeps half the room (``retitled from…``, not ``retitled from "…``)."""
    if len(text) <= room:
        return text
    head = text[: max(0, room - 1)]
    whole = head if text[len(head)] == " " else head[: head.rfind(" ") + 1]
    if len(whole.strip()) >= room // 2:
        head = whole
    return head.rstrip(' ;,:"') + "…"


def diff_heading(title: str, ref: str, actor: str, when: str, width: int) -> str:
    """The heading over a change's diff in ``width`` columns (0: not known yet): the title,
    shortened to leave room for the rest, the change's id, its actor cut short and its time."""
    rest = f" · {ref} · {actor_short(actor)} · {when}"
    title = title or "(untitled)"
    return (cut(title, max(8, width - len(rest))) if width > 0 else title) + rest


def coloured_diff(diff: str) -> Content:
    """A diff with added lines in the success colour and removed ones in the error colour."""
    parts: list[str | tuple[str, str]] = []
    for line in diff.splitlines(keepends=True):
        if line.startswith("+") and not line.startswith("+++"):
            parts.append((line, "$text-success"))
        elif line.startswith("-") and not line.startswith("---"):
            parts.append((line, "$text-error"))
        else:
            parts.append(line)
    return Content.assemble(*parts)
