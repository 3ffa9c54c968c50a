"""``BatchCard``: one approval for a round's writes, each change with a tick.

Every change starts ticked. ↑/↓ (or j/k) move between them, **Space** unticks (or ticks again) the
one under the cursor, **y** applies the ticked ones, **n** none. Once applied the card offers
Ctrl+Z, which undoes the batch at once (``ChatEngine.undo_batch``), except the changes no undo
can take back (a write tool that declares no undo), which the card names before and after.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from noted.chat.events import BatchApplied, BatchApproval
from noted.ui.chat.edits import EditCard


class BatchCard(EditCard):
    """Several writes put to the person at once."""

    HELP = """\
## Changes the assistant asks to make

Each line is one change, ticked to be applied. {chat.batch.next}/{chat.batch.previous} move,
{chat.batch.tick} unticks or ticks the line under the cursor, **y** applies the ticked changes, **n**
none. **Ctrl+Z** then undoes them all (a replaced or deleted attachment comes back from the version
noted kept), except a change marked *(cannot be undone)*. What you changed yourself since is left
as it is, and named.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "tick", "Tick", id="chat.batch.tick", tooltip="Untick (or tick again) the change under the cursor"),
        Binding("down,j", "move(1)", "Next", id="chat.batch.next", show=False, tooltip="Next change"),
        Binding("up,k", "move(-1)", "Previous", id="chat.batch.previous", show=False, tooltip="Previous change"),
    ]  # fmt: skip

    def __init__(self, approval: BatchApproval) -> None:
        super().__init__(approval.title)
        self.question = approval
        self.ticked: set[int] = set(range(len(approval.items)))
        self.cursor = 0
        self._lines = Static("", classes="card-detail")

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield self._lines

    def on_mount(self) -> None:
        self._draw()

    def _draw(self) -> None:
        parts: list[str | tuple[str, str]] = []
        for index, item in enumerate(self.question.items):
            tick = "[x]" if index in self.ticked else "[ ]"
            line = f"{'›' if index == self.cursor and self.asking else ' '} {tick} {item}"
            parts += ["\n" if index else "", (line, "bold" if index == self.cursor and self.asking else "")]
        self._lines.update(Content.assemble(*parts))

    def action_tick(self) -> None:
        if self.asking:
            self.ticked ^= {self.cursor}
            self._draw()

    def action_move(self, step: int) -> None:
        if self.asking and self.question.items:
            self.cursor = (self.cursor + step) % len(self.question.items)
            self._draw()

    def decide(self, yes: bool) -> None:
        """y applies the ticked changes (none ticked is a no), n none."""
        if self.approval is None:
            return
        if yes and self.ticked:
            self.question.choose(sorted(self.ticked))
            self.approval = None
            self.post_message(self.Decided(self, True))
            self._status.update(f"Applying {len(self.ticked)} of {len(self.question.items)}…")
            self.set_classes("edit-card -accepted")
            for buttons in self.query(".card-buttons"):
                buttons.remove()
        else:
            super().decide(False)
        self._draw()

    def mark_batch_applied(self, applied: BatchApplied) -> None:
        self.applied = applied
        self.set_classes("edit-card -applied")
        if applied.final:
            final = "; ".join(applied.final)
            undo = f"Ctrl+Z undoes them, except what cannot be undone: {final}."
        else:
            undo = "Ctrl+Z undoes them all."
        self._status.update(Content(f"{applied.message} {undo}"))
