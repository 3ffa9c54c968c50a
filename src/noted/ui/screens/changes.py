"""``ChangesScreen``: what assistants, AI apps, syncs and outside edits changed, to review from the
keyboard, and the writes that wait for you (proposals).

Rows come from ``noted.ops.review_list`` (grouped by note, newest first; what came along with a
change, as the notes a notebook took to the trash, folded under it: ``↳``) in a thread worker; every
action runs in a thread worker too (``changes_work``) and reloads the rows. While the view is open
it follows the change feed and the count of what waits (``follow``, from the app), the cursor
staying on its row; opened again, it starts afresh (the cursor on the newest row). Enter shows a row's diff
in the list's place (Esc or Enter: back to the list; ``a``, ``r`` and ``o`` work there too); ``a``
accepts (a proposal is applied), ``r`` reverts a change or rejects a proposal, ``o`` opens the note
at the change's first line, Space marks several rows for the next ``a`` or ``r``, ``/`` filters
(words of the actor, notebook or title, and ``since:day-1``). A revert that meets a note changed
since opens the conflict view in a revert's words (``RevertConflictView``), with *Keep both*
focused; so does accepting a proposal whose note changed since it was proposed, with its three
sides and *Edit a merge*.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Label, Static
from textual.widgets.option_list import Option

from noted.errors import NotedError, QueryError
from noted.ops.conflicts import Choice, Conflict
from noted.ops.review_list import Listing, ReviewItem, grouped, items
from noted.services import Services
from noted.tools.proposal_sides import names
from noted.ui.dialogs.conflict import ConflictView, ProposalConflictView, RevertConflictView, Wording
from noted.ui.dialogs.merge import MergeEditor
from noted.ui.dialogs.over import Over
from noted.ui.messages import OpenNote, at_line
from noted.ui.screens.changes_rows import (
    ChangeDiff,
    ChangesList,
    actor_cell,
    coloured_diff,
    diff_heading,
    fitted,
    row_room,
    when_of,
)
from noted.ui.screens.changes_work import Outcome, act, changed_line, diff_text, settle
from noted.ui.widgets.hint_field import HintField
from noted.ui.widgets.key_bar import KeyBar
from noted.ui.workers import ReportsWorkerFailures, thread_work

__all__ = ["ChangeDiff", "ChangesList", "ChangesScreen"]  # the list and the diff live in changes_rows

NOTHING_WAITS = "What assistants and AI apps change in your notes shows here, to diff, accept or revert."
SUMMARY_ROOM = 24
"""Beside the time and the actor, a summary in fewer columns than this (on a narrow screen) would be
cut to a word (``waits…``) or a word a line: it goes on the lines under them instead."""
SUMMARY_INDENT = 9
"""Those lines start under the time."""
FOLLOW_SECONDS = 0.2
"""How long the view waits after the feed moves before it reads the rows again: a burst reads once."""


class ChangesScreen(ReportsWorkerFailures, Over[None]):
    """The Changes view."""

    HELP = """\
## Changes

What assistants, AI apps, syncs and outside edits changed that you have not reviewed, newest first,
grouped by note, and the writes that wait for you (`p…`). {changes.diff} shows the diff in the
list's place ({changes.back} goes back), {changes.accept} accepts (a waiting write is applied; if
the note changed since it was proposed, you choose between the two, or merge them),
{changes.revert} reverts (a waiting write is turned down), {changes.open} opens the note at the
change, {changes.mark} marks several, {changes.filter} filters by actor, notebook or title words
and `since:day-1`. What came along with a change (the notes a notebook took to the trash, those a
deleted tag came off) is under it, marked `↳`: settling the change settles them, and each can
still be reverted alone.
"""

    CSS_PATH = "changes.tcss"
    AUTO_FOCUS = "#changes-list"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="changes.close", tooltip="Back to the notes"),
        Binding("slash", "filter", "Filter", id="changes.filter", tooltip="Filter by actor, notebook, title or since:day-1"),
        Binding("f1,question_mark", "app.help", "Help", id="app.help", tooltip="Explain the changes and their keys"),
    ]  # fmt: skip

    @dataclass
    class Loaded(Message):
        listing: Listing
        text: str

    @dataclass
    class Done(Message):
        outcome: Outcome

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services
        self.rows: list[ReviewItem] = []
        self.shown: list[ReviewItem] = []
        self.marked: set[str] = set()
        self.total = 0
        self.filtered_as: str | None = None
        """The filter the rows shown answer (None before the first)."""
        self.loads = 0
        """How many times the rows were read (each opening, each filter, each action)."""
        self.closed = True
        """The view is not open (dismissed, or never shown)."""
        self._following: Timer | None = None
        """The read the feed asked for, not begun yet."""
        self._behind = False
        """The feed moved while a diff was open (its keys act on its row): read the rows when it closes."""

    def compose(self) -> ComposeResult:
        with Vertical(id="changes-box"):
            yield Label("Changes to review", id="changes-title")
            yield HintField(
                "/ filter: actor, notebook or title words; since:day-1",
                "/ filter: actor, notebook, title; since:day-1",
                "/ filter: actor, title; since:day-1",
                id="changes-filter",
            )
            yield ChangesList(id="changes-list")
            with ChangeDiff(id="changes-diff-box"):
                yield Static("", id="changes-diff")
            yield Label("", id="changes-message")
        yield KeyBar()  # this screen's keys, over the workspace's (those of the reader behind)

    def on_screen_resume(self) -> None:
        """Each time the view opens: the rows as they are now, the diff closed, and nothing left
        of the last time (not when it comes back from a screen over it: F1's help, the conflict view)."""
        if self.closed:
            self.closed = False
            self.action_back()
            self._afresh()
        self._reload()

    def _afresh(self) -> None:
        """No row, mark or message of the last time: rows added since would be above a cursor
        kept on its row, and ``r`` would act on it. No key acts on a row until they are read."""
        self.rows, self.shown, self.filtered_as = [], [], None
        self.marked.clear()
        self._say("")
        reading = Content.styled("Reading the changes…", "$text-muted")  # (a busy machine: seconds)
        self.query_one(ChangesList).set_options([Option(reading, disabled=True)])

    def follow(self) -> None:
        """The feed moved, or what waits was counted anew (the app calls this): while the view is
        open, read the rows again, once for a burst; the cursor stays on its entry, marks on theirs."""
        if not self.closed and self._following is None:
            self._following = self.set_timer(FOLLOW_SECONDS, self._follow_now)

    def _follow_now(self) -> None:
        self._following = None
        self._behind = self.diff_open
        if not (self.closed or self._behind):
            self._reload()

    def on_resize(self) -> None:
        if self.filtered_as is not None:  # rows read: fitted again to the new width
            self._show()

    def _reload(self) -> None:
        """Read the rows again for the filter as it is."""
        self.load(self.query_one("#changes-filter", Input).value)

    # Loading ------------------------------------------------------------------------------
    @thread_work("changes", "reading the changes")
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
        room, bar = row_room(listing), listing.styles.scrollbar_size_vertical
        options = self._options(room)
        if bar and sum(str(o.prompt).count("\n") + 1 for o in options) > listing.content_region.height:
            options = self._options(room - bar)  # they scroll: the scrollbar takes its columns
        if not options:  # say why the list is empty, rather than leave a blank box
            why = "No change matches the filter." if self.filtered_as else NOTHING_WAITS
            lines = textwrap.wrap(why, room) if room > 0 else [why]  # all of it, however narrow
            options.append(Option(Content.styled("\n".join(lines), "$text-muted"), disabled=True))
        listing.show(options)
        if not self.diff_open:
            self.query_one("#changes-title", Label).update(self._title())

    def _options(self, room: int) -> list[Option]:
        """The shown rows in ``room`` columns, each note's (or notebook's, tag's) title over them."""
        options: list[Option] = []
        for _, group in grouped(self.shown):
            head = group[0]
            where = f"  {head.notebook}" if head.notebook and head.kind == "note" else ""
            kind = "" if head.kind == "note" else f"{head.kind} "
            heading = Content.assemble(kind, (head.title or "(untitled)", "bold"), (where, "$text-muted"))
            options.append(Option(heading, disabled=True))
            options += [Option(self._line(row, room), id=row.ref) for row in group]
        return options

    def _title(self) -> str:
        count = sum(1 for row in self.shown if not row.under)  # a folded row is part of its change
        title = f"Changes to review · {self.total:,}"
        if count < self.total:
            title += f" (the newest {count:,}: / filters)"
        return title if self.rows else "Nothing to review"

    @property
    def diff_open(self) -> bool:
        return self.query_one("#changes-box").has_class("-diff")

    def _line(self, row: ReviewItem, room: int) -> Content:
        """A row in ``room`` columns, on one line (on a narrow screen, its summary on a line under it)."""
        mark = "● " if row.ref in self.marked else "  "
        when = when_of(row.time)
        line = Content.assemble(
            mark + ("↳ " if row.under else ""),
            (f"{row.ref:>6} {when}  ", "$text-muted"),
            (actor_cell(row.actor) + " ", "$text-accent"),
        )
        indent = line.cell_length
        if 0 < room - indent < SUMMARY_ROOM < len(row.summary):  # a narrow screen: under the actor
            indent = SUMMARY_INDENT
            line += "\n" + " " * indent
        return line + fitted(row.summary, room - indent)

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
        self.closed = True
        self.dismiss(None)

    def action_filter(self) -> None:
        self.action_back()
        self.query_one("#changes-filter", Input).focus()

    def action_back(self) -> None:
        """The diff closed: the list back in its place, with the focus (and the rows read again
        if the feed moved meanwhile)."""
        if self.diff_open:
            self.query_one("#changes-box").remove_class("-diff")
            self.query_one("#changes-title", Label).update(self._title())
            self.query_one(ChangesList).focus()
        if self._behind:
            self._behind = False
            self.follow()

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
        if current is not None and current.note_id and current.kind == "note":
            self._open(current)

    @thread_work("changes-open", "finding the change")
    def _open(self, row: ReviewItem) -> None:
        line = changed_line(self.services, row)
        self.app.call_from_thread(self._opened, row.note_id, line)

    def _opened(self, note_id: str, line: int | None) -> None:
        self.app.post_message(OpenNote(note_id, at_line(line) if line else None))
        self.action_close()

    def action_diff(self) -> None:
        current = self._current()
        if current is not None:
            self._diff(current)

    @thread_work("changes-diff", "reading a diff")
    def _diff(self, row: ReviewItem) -> None:
        text = diff_text(self.services, row)
        self.app.call_from_thread(self._show_diff, row, text)

    def _show_diff(self, row: ReviewItem, text: str) -> None:
        """The diff in the list's place (and the filter's), the title naming the change."""
        title = self.query_one("#changes-title", Label)
        width = title.content_region.width
        title.update(diff_heading(row.title, row.ref, row.actor, when_of(row.time), width))
        self.query_one("#changes-diff", Static).update(coloured_diff(text))
        self.query_one("#changes-box").add_class("-diff")
        box = self.query_one(ChangeDiff)
        box.scroll_home(animate=False)
        box.focus()

    def action_accept(self) -> None:
        chosen = self._chosen()
        if chosen:
            self._act("accept", chosen)

    def action_revert(self) -> None:
        chosen = self._chosen()
        if chosen:
            self._act("revert", chosen)

    @thread_work("changes-act", "reviewing changes")
    def _act(self, what: str, rows: list[ReviewItem]) -> None:
        try:
            outcome = act(self.services, what, rows)
        except NotedError as exc:
            outcome = Outcome(str(exc))
        self.post_message(self.Done(outcome))

    @on(Done)
    def _done(self, event: Done) -> None:
        self.marked.clear()
        self.action_back()
        self._say(event.outcome.line)
        if event.outcome.conflict is not None:
            self._choose(*event.outcome.conflict)
        self._reload()  # with the filter typed (the rows of no filter would be dropped as stale)

    def _choose(self, ref: str, conflict: Conflict) -> None:
        """The conflict view for change or proposal ``ref``; the person's choice is carried out."""
        view: ConflictView = RevertConflictView(conflict, ref)
        if ref.startswith("p"):
            view = ProposalConflictView(conflict, names(ref))
        self.app.push_screen(view, lambda choice: self._chosen_side(ref, conflict, choice, view.wording))

    def _chosen_side(self, ref: str, conflict: Conflict, choice: Choice | None, wording: Wording) -> None:
        if choice is None or choice is Choice.BACK:
            self._say(f"{ref} still waits." if ref.startswith("p") else "Nothing was reverted.")
            return
        if choice is Choice.MERGE:
            text, clashes = conflict.merge_text(wording.names)

            def merged(done: tuple[str, str] | None) -> None:
                if done is None:
                    self._choose(ref, conflict)  # back to the choices
                else:
                    self._settle(ref, conflict, choice, done)

            self.app.push_screen(
                MergeEditor(f"Merging {wording.names[2]} and {wording.names[1]}", text, clashes), merged
            )
            return
        self._settle(ref, conflict, choice)

    @thread_work("changes-act", "settling a conflict")
    def _settle(
        self, ref: str, conflict: Conflict, choice: Choice, merged: tuple[str, str] | None = None
    ) -> None:
        try:
            line = settle(self.services, ref, conflict, choice, merged)
        except NotedError as exc:
            line = str(exc)
        self.post_message(self.Done(Outcome(line)))

    def _say(self, text: str) -> None:
        self.query_one("#changes-message", Label).update(text)
