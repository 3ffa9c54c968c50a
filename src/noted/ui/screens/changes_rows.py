"""The Changes view's list and diff, and how it (and the note's history) draws a change: the actor
cut short, the time, the diff coloured.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import OptionList

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


class ChangeDiff(VerticalScroll):
    """A row's diff, in the list's place while it is open."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "screen.back", "Back", id="changes.back", tooltip="Back to the list"),
        *ACTS,
    ]  # fmt: skip


ACTOR_WIDTH = 18
"""The rows' actor column: ``assistant:`` with a conversation's 32-character id would push the rest
of its row out of line."""


def actor_cell(actor: str) -> str:
    """``actor`` as a row shows it: cut to ``ACTOR_WIDTH`` with an ellipsis (the first characters of a
    conversation's id tell conversations apart), padded to it. The filter reads the whole actor."""
    cut = actor if len(actor) <= ACTOR_WIDTH else actor[: ACTOR_WIDTH - 1] + "…"
    return f"{cut:<{ACTOR_WIDTH}}"


def when_of(ms: int) -> str:
    """A row's time, local: ``Dec 04 10:02``."""
    return datetime.fromtimestamp(ms / 1000).strftime("%b %d %H:%M")


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
