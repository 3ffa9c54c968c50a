"""``SearchScreen``: one prompt, results as you type, Enter opens the note at the matching section.

The prompt takes the keyword grammar (words, ``"phrases"``, ``notebook:``, ``tag:``…). Ctrl+O cycles
the mode: keyword, meaning (semantic) or both (hybrid); the first one comes from ``search.defaultMode``.
Each query runs in one exclusive thread worker a moment after the last key, and its answer comes
back as a message tagged with the query's number, so a slow answer to an old query is dropped.

Choosing a result asks the app to open the note (``OpenNote``) while this screen still covers the
workspace, and closes when the reader has it in place: the workspace then comes back with the note
in one frame, where closing first would paint the workspace twice (once as it was, once with the
note), some 30 ms more before the note is seen. The reader marks the words the search found it
by, as a find does (``n``/``N`` go through them; they stay until another note or a find).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from noted.errors import NotedError
from noted.search.plain import readable
from noted.search.results import Hit
from noted.search.sections import marks
from noted.services import Services
from noted.settings.handles import SEARCH_DEFAULT_MODE
from noted.ui.dialogs.over import Over
from noted.ui.messages import Marks, OpenAnswered, OpenNote, ReadAhead
from noted.ui.speed import warm_glossary
from noted.ui.typeahead import release_keys
from noted.ui.widgets.hint_field import HintField
from noted.ui.widgets.key_bar import KeyBar
from noted.ui.workers import ReportsWorkerFailures, thread_work

MODES: tuple[str, ...] = ("keyword", "semantic", "hybrid")
"""The values of ``search.defaultMode``, in the order Ctrl+O cycles them."""
MODE_NAMES = {"keyword": "keyword", "semantic": "meaning", "hybrid": "both"}
DEBOUNCE_SECONDS = 0.15
CLOSE_WITHIN_SECONDS = 0.3
"""A chosen note normally arrives in a few milliseconds; the screen closes after this at most."""
LIMIT = 50
SNIPPET_CHARS = 140

Chosen = tuple[str, str | None]
"""What the screen dismisses with: the note id and the section path to scroll to, if any (the app
has been asked to open it already)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What one query gave: hits, and a line to show above them (an error or a warning), if any."""

    rows: tuple[Hit, ...] = ()
    message: str = ""
    failed: bool = False
    """True when ``message`` replaces the results (a bad filter, search by meaning unavailable)."""
    marks: Marks | None = None
    """The words to mark in a note opened from here, named as typed (``OpenNote.marks``)."""


def run_query(services: Services, query: str, mode: str) -> Answer:
    """Run ``query`` in ``mode`` (blocking: call it from a thread)."""
    try:
        found = services.finder().search(query, mode=mode, limit=LIMIT)
    except NotedError as exc:  # a bad filter, no index for a search by meaning, no words in it
        return Answer(message=str(exc), failed=True)
    reading = found.reading
    also = [reading.translation.text] if reading.translation is not None else []
    pattern = marks([query, *also, *reading.corrections.values()])
    return Answer(
        found.hits, "; ".join(found.lines()), marks=None if pattern is None else (query.strip(), pattern)
    )


def result_prompt(row: Hit, chosen: int = 0) -> Content:
    """Two lines: the title with its notebook and sections (the one Enter opens at in the accent
    colour), then the snippet of that section (Ctrl+T moves both)."""
    where = [(f"  {row.notebook}", "$text-muted")] if row.notebook else []
    for i, section in enumerate(row.sections):
        where.append((f"  {section.label()}", "$text-accent" if i == chosen else "$text-muted"))
    place = row.sections[chosen] if row.sections else None
    text = place.snippet if place is not None and (chosen or not row.snippet) else row.snippet
    snippet = readable(text or row.snippet, place.heading if place else None) or "(no text)"
    if len(snippet) > SNIPPET_CHARS:  # two lines at most, so a screenful holds several results
        snippet = snippet[: SNIPPET_CHARS - 1].rstrip() + "…"
    return Content.assemble((row.title or "(untitled)", "bold"), *where, "\n", (snippet, "$text-muted"))


class ResultList(OptionList):
    """The results, reached by ↓/↑ from the query; j/k move as ↓/↑ do, ↑ on the first result and
    any key that types (one not bound here) go back to the query."""

    HELP = """\
## Results

Best match first. Each shows the note's title and notebook, up to three sections that matched, best
first (`§ 2.1`, or `§ top` for text before the first heading), and a snippet. {search.next}/{search.previous}
or **↓**/**↑** choose, {search.first}/{search.last} go to the first/last, {search.section} picks the
next of its sections, **Enter** opens the note scrolled to the section in the accent colour, with the
words it was found by marked as a find marks them ({note.find.next}/{note.find.previous} go through
them; they stay until another note or a find replaces them). **↑** on the first result, or a key that
types, goes back to the query.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Next", show=False, id="search.next", tooltip="Next result"),
        Binding("k", "cursor_up", "Previous", show=False, id="search.previous", tooltip="Previous result"),
        Binding("g", "first", "First", show=False, id="search.first", tooltip="First result"),
        Binding("G", "last", "Last", show=False, id="search.last", tooltip="Last result"),
    ]

    @dataclass
    class Left(Message):
        """The person went back to the query: ↑ on the first result, or ``typed`` a character."""

        typed: str = ""

    def action_cursor_up(self) -> None:
        if self.highlighted:
            super().action_cursor_up()
        else:
            self.post_message(self.Left())

    def on_key(self, event: events.Key) -> None:
        if event.is_printable and event.character and event.key not in self.screen.active_bindings:
            event.stop()
            event.prevent_default()
            self.post_message(self.Left(event.character))


class QueryField(HintField):
    """The query. ↓/↑ go to the results (the next or the previous) and Enter opens the highlighted
    one, so they say so (not Input's "Scroll Up", "Scroll Down" and "Submit") in the key bar and in
    F1's list."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "screen.to_results(1)", "Next", show=False, id="search.down",
                tooltip="Next result"),
        Binding("up", "screen.to_results(-1)", "Previous", show=False, id="search.up",
                tooltip="Previous result"),
        Binding("enter", "submit", "Open", id="search.open",
                tooltip="Open the highlighted result at the section shown in colour"),
    ]  # fmt: skip


class SearchScreen(ReportsWorkerFailures, Over[Chosen | None]):
    """Find notes by keyword, by meaning or both; dismisses with ``(note_id, section)`` or None."""

    HELP = """\
## Search

Results follow as you type. {search.mode} switches between **keyword**, **meaning** (close in
sense, even without the same words) and **both**. {search.down}/{search.up} go to the results (the
next or the previous), where {search.next}/{search.previous} choose too and a key that types comes
back here; {search.section} picks a result's next section, **Enter** opens the note at the section
that matched, {search.close} closes.

Keyword search takes `word`, `"a phrase"`, `prefix*`, `-excluded`, `any:1` (OR), and filters:
`notebook:Work` `tag:plan` `title:word` `body:word` `type:todo` `iscompleted:0`
`created:2024` `updated:week-1` `due:month+1` `resource:image/png` (a `-` before a filter excludes).
"""

    CSS_PATH = "search.tcss"
    AUTO_FOCUS = "#search-input"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="search.close", tooltip="Close search"),
        Binding("ctrl+o", "cycle_mode", "Mode", id="search.mode",
                tooltip="Search by keyword, by meaning, or both"),
        Binding("ctrl+t", "next_section", "Section", show=False, id="search.section",
                tooltip="Open the highlighted result at its next section"),
        # A modal screen stops the app's keys, so F1 is repeated here (same id: a remap applies to both).
        Binding("f1,question_mark", "app.help", "Help", id="app.help", tooltip="Explain search, its filters and its keys"),
    ]  # fmt: skip

    @dataclass
    class Answered(Message, bubble=False):
        """A query's answer came back from the worker."""

        number: int
        answer: Answer

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services
        default = services.settings.get(SEARCH_DEFAULT_MODE)
        self.mode = default if default in MODES else "hybrid"
        self.rows: tuple[Hit, ...] = ()
        self.marks: Marks | None = None
        self.chosen: dict[int, int] = {}
        """The section each result opens at, by its index, when not its first."""
        self.answered = 0
        """The number of the query whose answer is on screen (tests wait on it)."""
        self._asked = 0
        self._timer: Timer | None = None
        self._chosen: Chosen | None = None
        """The result being opened; the screen closes when the reader has it."""
        self._waiting: int | None = None
        """The ticket of the ``OpenNote`` whose answer closes this screen."""
        self._open_first = False
        """Enter came before the answer to the query typed: its first result opens when it comes."""
        self._afresh = False
        """Set by ``afresh`` when the app opens the screen anew: the next resume clears the query
        (a resume after help or the palette over it keeps the query and the results)."""
        self._start_with = ""
        """The words the next fresh start searches (``afresh``)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="search-box"):
            with Horizontal(id="search-prompt"):
                yield Label(self._mode_label(), id="search-mode")
                yield QueryField(  # back from the results, typing goes on where it was, replacing nothing
                    'words, "a phrase", notebook:Work, tag:plan…',
                    'words, "a phrase", tag:plan…',
                    id="search-input",
                    select_on_focus=False,
                )
            message = Label("", id="search-message")
            message.display = False
            yield message
            yield ResultList(id="search-results")
            yield Label(
                "↑↓ choose · Ctrl+T section · Enter opens · Ctrl+O mode · Esc closes", id="search-hint"
            )
        yield KeyBar()  # this screen's keys, over the workspace's (those of the list behind)

    def _mode_label(self) -> Content:
        return Content(f"[{MODE_NAMES[self.mode]}]")  # Content, not a str: "[both]" is not markup

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value

    # Asking ------------------------------------------------------------------------------------
    @on(Input.Changed, "#search-input")
    def _typed(self) -> None:
        self._open_first = False
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE_SECONDS, self._ask)

    def action_cycle_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        if self.mode != "keyword":
            warm_glossary(self)
        self.query_one("#search-mode", Label).update(self._mode_label())
        self._ask()

    def _ask(self) -> None:
        self._timer = None
        self._asked += 1
        text = self.query_text
        if not text.strip():
            self.post_message(self.Answered(self._asked, Answer()))
            return
        self._search(self._asked, text, self.mode)

    def on_mount(self) -> None:
        if self.mode != "keyword":
            warm_glossary(self)  # while the person types

    @thread_work("search", "searching")
    def _search(self, number: int, text: str, mode: str) -> None:
        self.post_message(self.Answered(number, run_query(self.services, text, mode)))

    @on(Answered)
    def _show(self, message: Answered) -> None:
        if message.number < self.answered or message.number != self._asked:
            return  # an answer to a query the person has typed past
        self.answered = message.number
        answer = message.answer
        self.rows, self.marks = answer.rows, answer.marks
        self.chosen = {}
        note = self.query_one("#search-message", Label)
        note.update(Content(answer.message))
        note.display = bool(answer.message)
        note.set_class(answer.failed, "-error")
        results = self.query_one(ResultList)
        results.set_options(Option(result_prompt(row), id=f"r{i}") for i, row in enumerate(self.rows))
        results.highlighted = 0 if self.rows else None  # highlights (and reads ahead) the first
        if self._open_first:
            self._open_first = False
            self._open(0)

    @on(OptionList.OptionHighlighted, "#search-results")
    def _read_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """Have the note under the cursor read ahead, so Enter paints it at once."""
        if event.option_index < len(self.rows):
            self.app.post_message(ReadAhead((self.rows[event.option_index].note_id,)))

    # Choosing ----------------------------------------------------------------------------------
    def action_to_results(self, step: int) -> None:
        """From the query into the results, on the next (or previous) one; j/k then move there."""
        results = self.query_one(ResultList)
        if results.option_count:
            results.highlighted = ((results.highlighted or 0) + step) % results.option_count
            results.focus()

    @on(ResultList.Left)
    def _to_query(self, event: ResultList.Left) -> None:
        field = self.query_one(QueryField)
        field.focus()
        if event.typed:
            field.insert_text_at_cursor(event.typed)

    def action_next_section(self) -> None:
        results = self.query_one(ResultList)
        index = results.highlighted
        if index is None or index >= len(self.rows) or len(self.rows[index].sections) < 2:
            return
        row = self.rows[index]
        self.chosen[index] = (self.chosen.get(index, 0) + 1) % len(row.sections)
        results.replace_option_prompt_at_index(index, result_prompt(row, self.chosen[index]))

    @on(Input.Submitted, "#search-input")
    def _submit(self) -> None:
        if self._timer is not None or self.answered != self._asked:  # what is shown is not its answer
            self._open_first = True
            if self._timer is not None:
                self._timer.stop()
                self._ask()
            return
        highlighted = self.query_one(ResultList).highlighted
        if highlighted is not None:
            self._open(highlighted)

    @on(OptionList.OptionSelected, "#search-results")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._open(event.option_index)

    def _open(self, index: int) -> None:
        if 0 <= index < len(self.rows) and self._chosen is None:
            row = self.rows[index]
            section = row.sections[self.chosen.get(index, 0)].path if row.sections else None
            chosen = self._chosen = (row.note_id, section)
            message = OpenNote(row.note_id, section, answer=True, marks=self.marks)
            self._waiting = message.ticket
            self.app.post_message(message)
            self.set_timer(CLOSE_WITHIN_SECONDS, lambda: self._close(chosen))

    @on(OpenAnswered)
    def _answered(self, event: OpenAnswered) -> None:
        """The reader has the chosen note in place (or will not have it): close."""
        if event.ticket == self._waiting:
            self._waiting = None
            self._close(self._chosen)

    def _close(self, chosen: Chosen | None) -> None:
        """Close with ``chosen``, unless the person has closed the screen (or chosen again) since."""
        if self._chosen == chosen and self.app.screen is self:
            self._chosen = None
            self.dismiss(chosen)

    def afresh(self, words: str = "") -> None:
        """The app opens the screen for a new search: start afresh, as a new one would, with
        ``words`` in the field (searched at once) when given."""
        self._afresh = True
        self._start_with = words

    def on_screen_resume(self) -> None:
        # The app keeps this screen between searches: start afresh each time it is opened anew,
        # but keep the query and its results when only help or the palette covered the screen.
        self._chosen = None
        field = self.query_one(Input)
        afresh, self._afresh = self._afresh, False
        if afresh and (field.value or self.rows):
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
            self._asked += 1  # an answer still on its way is to the old question
            self.answered = self._asked
            self.rows = ()
            self.chosen = {}
            self.query_one(ResultList).clear_options()
            self.query_one("#search-message", Label).display = False
            with field.prevent(Input.Changed):
                field.value = ""
        if afresh and self._start_with:
            field.value = self._start_with  # Input.Changed: searched as if typed
            field.cursor_position = len(self._start_with)
        field.focus()
        release_keys(self.app)  # keys typed after Ctrl+F go into the query, now focused

    def action_close(self) -> None:
        self._chosen = None
        self.dismiss(None)
