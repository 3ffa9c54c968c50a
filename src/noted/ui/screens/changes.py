"""``ChangesScreen``: what assistants, AI apps, syncs and outside edits changed, to review from the
keyboard, and the writes that wait for you (proposals).

Rows come from ``noted.ops.review_list`` (grouped by note, newest first) in a thread worker; every
action runs in a thread worker too and reloads the rows. Enter shows a row's diff below the list;
``a`` accepts (a proposal is applied), ``r`` reverts a change or rejects a proposal, ``o`` opens the
note, Space marks several rows for the next ``a`` or ``r``, ``/`` filters (words of the actor,
notebook or title, and ``since:day-1``). A revert that meets a note changed since opens the
conflict view, as a save does, with *Keep both* focused.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from noted.errors import NotedError, QueryError
from noted.models import ACTOR_USER
from noted.ops import review_actions
from noted.ops.conflicts import Choice, Conflict, resolve, text_diff
from noted.ops.review_list import Listing, ReviewItem, grouped, items
from noted.services import Services
from noted.store.review import ProposalState
from noted.tools import proposals
from noted.ui.dialogs.conflict import ConflictView
from noted.ui.messages import OpenNote
from noted.ui.workers import ReportsWorkerFailures


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an action did, in one line, and a conflict left to settle."""

    line: str
    conflict: tuple[int, Conflict] | None = None


class ChangesList(OptionList):
    """The rows; a note's title heads its changes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.diff", "Diff", id="changes.diff", tooltip="Show the change against the version before it"),
        Binding("a", "screen.accept", "Accept", id="changes.accept", tooltip="Mark reviewed (a proposal is applied)"),
        Binding("r", "screen.revert", "Revert", id="changes.revert", tooltip="Restore the version before (a proposal is rejected)"),
        Binding("o", "screen.open", "Open", id="changes.open", tooltip="Open the note at this change"),
        Binding("space", "screen.mark", "Mark", id="changes.mark", tooltip="Mark this row, to accept or revert several at once"),
        Binding("j", "cursor_down", "Next", show=False, id="changes.next", tooltip="Next change"),
        Binding("k", "cursor_up", "Previous", show=False, id="changes.previous", tooltip="Previous change"),
    ]  # fmt: skip


class ChangesScreen(ReportsWorkerFailures, ModalScreen[None]):
    """The Changes view."""

    HELP = """\
## Changes

What assistants, AI apps, syncs and outside edits changed that you have not reviewed, newest first,
grouped by note, and the writes that wait for you (`p…`). {changes.diff} shows the diff,
{changes.accept} accepts (a waiting write is applied), {changes.revert} reverts (a waiting write is
turned down), {changes.open} opens the note, {changes.mark} marks several, {changes.filter} filters by
actor, notebook or title words and `since:day-1`.
"""

    CSS_PATH = "changes.tcss"
    AUTO_FOCUS = "#changes-list"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="changes.close", tooltip="Back to the notes"),
        Binding("slash", "filter", "Filter", id="changes.filter", tooltip="Filter by actor, notebook, title or since:day-1"),
    ]  # fmt: skip

    class Loaded(Message):
        def __init__(self, listing: Listing, text: str) -> None:
            super().__init__()
            self.listing = listing
            self.text = text

    class Done(Message):
        def __init__(self, outcome: Outcome) -> None:
            super().__init__()
            self.outcome = outcome

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services
        self.rows: list[ReviewItem] = []
        self.shown: list[ReviewItem] = []
        self.marked: set[str] = set()
        self.total = 0
        self.filtered_as: str | None = None
        self.loads = 0
        """How many times the rows were read (each opening, each filter, each action)."""
        """The filter the rows shown answer (None before the first)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="changes-box"):
            yield Label("Changes to review", id="changes-title")
            yield Input(
                placeholder="/ filter: actor, notebook or title words; since:day-1", id="changes-filter"
            )
            yield ChangesList(id="changes-list")
            with VerticalScroll(id="changes-diff-box"):
                yield Static("", id="changes-diff")
            yield Label("", id="changes-message")

    def on_screen_resume(self) -> None:
        """Each time the view opens: the rows as they are now, the diff closed."""
        self.query_one("#changes-diff-box").display = False
        self.load(self.query_one("#changes-filter", Input).value)

    # Loading ------------------------------------------------------------------------------
    @work(
        thread=True, exclusive=True, group="changes", exit_on_error=False, description="reading the changes"
    )
    def load(self, text: str = "") -> None:
        review = self.services.review
        review.refresh()
        try:
            listing = items(review, text)
        except QueryError as exc:
            self.app.call_from_thread(self._say, str(exc))
            return
        self.post_message(self.Loaded(listing, text))

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        if event.text != self.query_one("#changes-filter", Input).value:
            return  # an answer to a filter typed over since
        self.rows = list(event.listing.rows)
        self.total = event.listing.total
        self.filtered_as = event.text
        self.loads += 1
        self.marked &= {r.ref for r in self.rows}
        self._show()

    def _show(self) -> None:
        self.shown = self.rows
        listing = self.query_one(ChangesList)
        highlighted = self._current()
        options: list[Option] = []
        for _, group in grouped(self.shown):
            head = group[0]
            where = f"  {head.notebook}" if head.notebook else ""
            heading = Content.assemble((head.title or "(untitled)", "bold"), (where, "$text-muted"))
            options.append(Option(heading, disabled=True))
            options += [Option(self._line(row), id=row.ref) for row in group]
        listing.set_options(options)
        refs = [o.id for o in options]
        if highlighted is not None and highlighted.ref in refs:
            listing.highlighted = refs.index(highlighted.ref)
        elif len(options) > 1:
            listing.highlighted = 1
        count = len(self.shown)
        title = f"Changes to review · {self.total:,}"
        if count < self.total:
            title += f" (the newest {count:,}: / filters)"
        self.query_one("#changes-title", Label).update(title if self.rows else "Nothing to review")

    def _line(self, row: ReviewItem) -> Content:
        mark = "● " if row.ref in self.marked else "  "
        when = when_of(row.time)
        return Content.assemble(
            mark,
            (f"{row.ref:>6} {when}  ", "$text-muted"),
            (f"{row.actor:<18} ", "$text-accent"),
            row.summary,
        )

    def _current(self) -> ReviewItem | None:
        listing = self.query_one(ChangesList)
        index = listing.highlighted
        if index is None or index >= listing.option_count:
            return None
        ref = listing.get_option_at_index(index).id
        return next((r for r in self.shown if r.ref == ref), None)

    def _chosen(self) -> list[ReviewItem]:
        if self.marked:
            return [r for r in self.shown if r.ref in self.marked]
        current = self._current()
        return [current] if current else []

    # Keys ---------------------------------------------------------------------------------
    def action_close(self) -> None:
        self.dismiss(None)

    def action_filter(self) -> None:
        self.query_one("#changes-filter", Input).focus()

    @on(Input.Changed, "#changes-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._say("")
        self.load(event.value)

    @on(Input.Submitted, "#changes-filter")
    def _filter_done(self) -> None:
        self.query_one(ChangesList).focus()

    def action_mark(self) -> None:
        current = self._current()
        if current is not None:
            self.marked ^= {current.ref}
            self._show()
            self.query_one(ChangesList).action_cursor_down()

    def action_open(self) -> None:
        current = self._current()
        if current is not None and current.note_id:
            self.app.post_message(OpenNote(current.note_id))
            self.dismiss(None)

    def action_diff(self) -> None:
        current = self._current()
        if current is not None:
            self._diff(current)

    @work(
        thread=True, exclusive=True, group="changes-diff", exit_on_error=False, description="reading a diff"
    )
    def _diff(self, row: ReviewItem) -> None:
        text = diff_text(self.services, row)
        self.app.call_from_thread(self._show_diff, text)

    def _show_diff(self, text: str) -> None:
        box = self.query_one("#changes-diff-box")
        box.display = True
        self.query_one("#changes-diff", Static).update(coloured_diff(text))

    def action_accept(self) -> None:
        chosen = self._chosen()
        if chosen:
            self._act("accept", chosen)

    def action_revert(self) -> None:
        chosen = self._chosen()
        if chosen:
            self._act("revert", chosen)

    @work(
        thread=True, exclusive=True, group="changes-act", exit_on_error=False, description="reviewing changes"
    )
    def _act(self, what: str, rows: list[ReviewItem]) -> None:
        try:
            outcome = act(self.services, what, rows)
        except NotedError as exc:
            outcome = Outcome(str(exc))
        self.post_message(self.Done(outcome))

    @on(Done)
    def _done(self, event: Done) -> None:
        self.marked.clear()
        self._say(event.outcome.line)
        if event.outcome.conflict is not None:
            entry_id, conflict = event.outcome.conflict
            self.app.push_screen(
                ConflictView(conflict), lambda choice: self._settle(entry_id, conflict, choice)
            )
        self.load()

    def _settle(self, entry_id: int, conflict: Conflict, choice: Choice | None) -> None:
        if choice is None or choice is Choice.BACK:
            self._say("Nothing was reverted.")
            return
        self._settle_in_thread(entry_id, conflict, choice)

    @work(
        thread=True, exclusive=True, group="changes-act", exit_on_error=False, description="settling a revert"
    )
    def _settle_in_thread(self, entry_id: int, conflict: Conflict, choice: Choice) -> None:
        settled = resolve(self.services.store, conflict, choice, actor=ACTOR_USER)
        review_actions.finish(self.services.review, entry_id)
        self.post_message(self.Done(Outcome(settled.message)))

    def _say(self, text: str) -> None:
        self.query_one("#changes-message", Label).update(text)


def when_of(ms: int) -> str:
    """A row's time, local: ``Dec 04 10:02``."""
    return datetime.fromtimestamp(ms / 1000).strftime("%b %d %H:%M")


def coloured_diff(diff: str) -> Content:
    parts: list[str | tuple[str, str]] = []
    for line in diff.splitlines(keepends=True):
        if line.startswith("+") and not line.startswith("+++"):
            parts.append((line, "$text-success"))
        elif line.startswith("-") and not line.startswith("---"):
            parts.append((line, "$text-error"))
        else:
            parts.append(line)
    return Content.assemble(*parts)


def diff_text(services: Services, row: ReviewItem) -> str:
    """A row's diff (blocking: call it from a thread)."""
    if row.proposal:
        proposal = services.review.rows.proposal(int(row.ref[1:]))
        found = proposals.preview(services.store, proposal)
        if found is None:
            return proposals.args_text(proposal)
        return text_diff(found[0], found[1], ("now", row.ref))
    return review_actions.show(services.review, int(row.ref)).text


def act(services: Services, what: str, rows: list[ReviewItem]) -> Outcome:
    """Accept or revert ``rows`` (blocking: call it from a thread); refuses all when one is not
    waiting any more."""
    review = services.review
    changes = [int(r.ref) for r in rows if not r.proposal]
    waiting = [review.rows.proposal(int(r.ref[1:])) for r in rows if r.proposal]
    review_actions.waiting(review, changes)
    if what == "accept":
        review_actions.accept(review, changes)
        lines = [f"Accepted {len(changes)}"] if changes else []
        for proposal in waiting:
            done = asyncio.run(
                proposals.apply(services.registry, proposal, services.tool_context(proposal.client))
            )
            if done.state is not ProposalState.APPLIED:
                lines.append(f"p{proposal.id}: {done.message}")
        return Outcome("; ".join(lines) or "Done.")
    for proposal in waiting:
        proposals.reject(review.rows, proposal)
    for entry_id in changes:
        reverted = review_actions.revert(review, entry_id)
        if reverted.conflict is not None:
            return Outcome(
                f"Change {entry_id}: the note changed since; choose what to keep.",
                (entry_id, reverted.conflict),
            )
    return Outcome(f"Reverted {len(changes)}, turned down {len(waiting)}.")
