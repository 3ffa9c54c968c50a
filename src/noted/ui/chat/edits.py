"""Changes the assistant wants to make: a diff (or a write tool's description) to accept or reject.

One ``EditCard`` follows a change through its life: proposed (the diff), asking (accept with y,
reject with n, or the buttons), then saved (u undoes it), refused, or undone. The card only shows
state and says what the person chose; the pane answers the engine and runs the undo.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Static

from noted.chat.engine import UNDONE
from noted.chat.events import Approval, BatchApplied, EditsApplied, ToolCallFinished

MAX_DIFF_LINES = 200
"""Lines of a diff shown; the rest is counted (the whole change is still applied or refused)."""


class DiffView(Widget):
    """A unified diff, added and removed lines coloured by the theme (``+``/``-`` stay for NO_COLOR)."""

    COMPONENT_CLASSES = {"diff--added", "diff--removed", "diff--hunk"}

    def __init__(self, diff: str) -> None:
        super().__init__(classes="diff")
        self.diff = diff

    def render(self) -> Text:
        # Built at each render so a theme switch recolours it.
        styles = {
            "@@": self.get_component_rich_style("diff--hunk"),
            "+": self.get_component_rich_style("diff--added"),
            "-": self.get_component_rich_style("diff--removed"),
        }
        # The ---/+++ file lines name nothing here (it is always the open note).
        lines = [line for line in self.diff.splitlines() if not line.startswith(("--- ", "+++ "))]
        text = Text(no_wrap=False, end="")
        for index, line in enumerate(lines[:MAX_DIFF_LINES]):
            if index:
                text.append("\n")
            prefix = next((p for p in styles if line.startswith(p)), None)
            text.append(line, style=styles[prefix] if prefix else "")
        if len(lines) > MAX_DIFF_LINES:
            text.append(f"\n… {len(lines) - MAX_DIFF_LINES} more lines")
        return text


class EditCard(Vertical, can_focus=True):
    """A proposed change of the open note, or a write the assistant asks to make."""

    HELP = """\
## A change the assistant proposes

The diff shows what would change in the note (`+` added, `-` removed).

- {chat.accept} accepts it (it is saved to the note, as a revision you can find in its history)
- {chat.reject} rejects it (nothing is written; the assistant is told you said no)
- {chat.undo} undoes a saved change, restoring the note as it was, unless it changed since
"""

    @dataclass
    class Decided(Message):
        """The person accepted (``yes``) or rejected the change."""

        card: EditCard
        yes: bool

        @property
        def control(self) -> EditCard:
            return self.card

    def __init__(self, title: str, *, diff: str = "", detail: str = "") -> None:
        super().__init__(classes="edit-card -proposed")
        self._title_text = title
        self._diff = diff
        self._detail = detail
        self.approval: Approval | None = None
        self.applied: EditsApplied | BatchApplied | None = None
        self.before_yes: Callable[[], Awaitable[None]] | None = None
        """Awaited after a yes, before the engine hears it (the editor's text is saved first)."""
        self._status = Static("", classes="card-status")

    def compose(self) -> ComposeResult:
        yield Static(Content(self._title_text), classes="card-title")
        if self._diff:
            yield DiffView(self._diff)
        if self._detail:
            yield Static(Content(self._detail), classes="card-detail")
        yield self._status

    @property
    def asking(self) -> bool:
        """True while the engine waits for the person's answer on this card."""
        return self.approval is not None

    def ask(self, approval: Approval) -> None:
        """Show the accept and reject buttons for ``approval``."""
        self.approval = approval
        self.set_classes("edit-card -asking")
        accept = Button("Accept (y)", id="card-accept", variant="success", compact=True)
        accept.tooltip = "Write this change to the note"
        reject = Button("Reject (n)", id="card-reject", variant="error", compact=True)
        reject.tooltip = "Write nothing; the assistant is told you said no"
        self.mount(Horizontal(accept, reject, classes="card-buttons"), before=self._status)
        self._status.update("y accepts · n rejects")

    def decide(self, yes: bool) -> None:
        """Answer the engine, and say so on the card."""
        if self.approval is None:
            return
        approval, self.approval = self.approval, None
        if yes and self.before_yes is not None:
            work = self._yes_after(self.before_yes, approval)
            self.run_worker(work, group="chat-yes", exit_on_error=False, description="Saving your text first")
        else:
            approval.decide(yes)
        for buttons in self.query(".card-buttons"):
            buttons.remove()
        self.set_classes("edit-card " + ("-accepted" if yes else "-refused"))
        self._status.update("Accepted; saving…" if yes else "Rejected: nothing was written.")
        self.post_message(self.Decided(self, yes))

    @staticmethod
    async def _yes_after(before: Callable[[], Awaitable[None]], approval: Approval) -> None:
        try:
            await before()
        finally:  # the engine waits for the answer: it gets it whatever happened before
            approval.decide(True)

    def mark_ran(self, finished: ToolCallFinished) -> None:
        """The call this card asked about ended: after a yes, say how (a tool switched off while
        the card waited refuses then, and writes nothing)."""
        if not self.has_class("-accepted"):
            return
        if finished.ok:
            self._status.update("Done.")
        else:
            self.set_classes("edit-card -refused")
            self._status.update(Content(f"Not done: {finished.reason or finished.status}"))

    def mark_applied(self, applied: EditsApplied) -> None:
        """The change was saved; it can be undone."""
        self.applied = applied
        self.set_classes("edit-card -applied")
        self._status.update(Content(f"{applied.message} Ctrl+Z undoes it."))

    def mark_kept(self, message: str, *, saved: bool) -> None:
        """A change of a resumed chat, as its transcript kept it: saved or refused (undo is offered
        only in the chat that made it, which holds the note as it was before)."""
        self.set_classes("edit-card " + ("-applied" if saved else "-refused"))
        self._status.update(Content(message))

    def mark_refused(self, message: str) -> None:
        """The change was not written (declined, or the note moved meanwhile)."""
        self.approval = None
        self.set_classes("edit-card -refused")
        self._status.update(Content(message))

    def mark_undone(self, message: str | None = None) -> None:
        """The note is back as it was before the change (a batch's: as ``message`` says)."""
        self.applied = None
        self.set_classes("edit-card -undone")
        self._status.update(Content(message) if message else UNDONE)

    def mark_not_undone(self, message: str) -> None:
        """Undo was refused; the change stays."""
        self.applied = None
        self._status.update(Content(f"Not undone: {message}"))

    def mark_stopped(self) -> None:
        """The answer was stopped while the card waited: nothing was written."""
        if self.approval is not None:
            self.approval = None
            for buttons in self.query(".card-buttons"):
                buttons.remove()
            self.set_classes("edit-card -refused")
            self._status.update("Stopped: nothing was written.")

    @on(Button.Pressed, "#card-accept, #card-reject")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.decide(event.button.id == "card-accept")
