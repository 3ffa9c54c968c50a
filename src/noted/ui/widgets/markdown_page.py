"""``MarkdownPage``: a note's Markdown drawn as lines, one widget however long the note is.

Textual's ``Markdown`` widget mounts a widget per block, and laying out and painting a few dozen
of them took most of the 300 ms a note took to open. This page renders the Markdown with Rich
into a list of lines once per note and width (a few milliseconds for a typical note) and paints
only the rows on screen (Textual's line API).

The body is rendered section by section (split where a top-level heading starts), so the page
knows the row of every heading: ``row_of(source_line)`` is what scrolling to a section uses. Colours
come from the app's theme; links are underlined and clickable (``LinkClicked``), and the viewer's
link list reaches the same links from the keyboard.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.style import Style
from rich.theme import Theme
from textual import on
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import Worker, get_current_worker

from noted.ui.patches.steady_scrollbars import SteadyScrollbars
from noted.ui.widgets.markdown_theme import code_theme, markdown_theme
from noted.ui.widgets.page_drawing import Drawn, Kept, Look, draw
from noted.ui.widgets.page_find import PageFind, highlight
from noted.ui.workers import ReportsWorkerFailures, in_thread


class MarkdownPage(ReportsWorkerFailures, SteadyScrollbars, ScrollView, can_focus=True):
    """Scrollable rendered Markdown; ``update(body)`` shows another text."""

    DEFAULT_CSS = """
    MarkdownPage {
        scrollbar-gutter: stable;
    }
    """

    class Sized(Message):
        """The page has a size: a new one (then its text is drawn again for it first), or the one
        it had, back on screen after being hidden (Textual resizes a widget it shows again)."""

    class Completed(Message):
        """The page's text is drawn whole, in place of the opening or the look shown until now."""

    @dataclass
    class LinkClicked(Message):
        """A link in the page was clicked; ``href`` as written in the Markdown."""

        page: MarkdownPage
        href: str

        @property
        def control(self) -> MarkdownPage:
            return self.page

    @dataclass
    class _Redrawn(Message, bubble=False):
        body: str
        key: str
        drawn: Drawn

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self._body = ""
        self._key = ""
        """What the page shows (a note's id): a find belongs to it."""
        self._drawn: Drawn | None = None
        self._painted: dict[int, Strip] = {}
        """Rows as painted (cropped to the width, on the widget's background), until either changes."""
        self._base: Style | None = None
        self._themes: dict[str, Theme] = {}
        self.find: PageFind | None = None
        """What ``/`` finds in the page (its matches are painted), None when nothing is."""
        self._goal: int | None = None
        """The row asked for at the top (``show_row``), kept until the page can scroll there."""
        self._reaching = False
        self._behind: tuple[tuple[str, str, Look], Worker[None]] | None = None
        """The drawing under way in a thread: what it draws (text, key, look), and its worker."""

    def look(self) -> Look | None:
        """The look the page draws in now (None before it has a size)."""
        width = self.scrollable_content_region.width
        if width <= 0:
            return None
        name = self.app.theme
        theme = self._themes.get(name)
        if theme is None:
            dark = self.app.current_theme.dark
            # The theme's own variables: ``App.theme_variables`` still holds the last theme's while
            # the ``theme`` watchers run (Textual refreshes them with the CSS, a moment later).
            variables = self.app.get_css_variables()
            theme = self._themes[name] = markdown_theme(variables, dark=dark)
        return Look(width, theme, name, code_theme(self.app.current_theme.dark))

    def update(self, body: str, drawn: Drawn | None = None, *, key: str = "") -> None:
        """Show ``body`` from its top (the caller scrolls when it wants another place).

        ``drawn``: the body drawn ahead of time; used when it was drawn in the page's current look.
        ``key``: what ``body`` is of (a note's id). The find belongs to it: another note's page
        shows none, though its text be the same; the same note read again keeps it, its matches
        looked for anew.
        """
        if key != self._key or (not key and body != self._body):
            self.find = None
        self._body, self._key, self._goal = body, key, None
        self._draw(drawn)
        self.scroll_to(y=0, animate=False, immediate=True)
        self.refresh()

    def kept(self) -> Kept | None:
        """The text shown and its drawing, when that is whole: a thread reading the note again keeps
        it if the text is the same (``Kept.drawing``)."""
        drawn = self._drawn
        return None if drawn is None or drawn.upto is not None else Kept(self._body, drawn)

    def opening_chars(self) -> int:
        """How much of a long text to draw first: two screens of full rows, so the first screen
        shows at once and the rest follows from a thread (``Completed``)."""
        region = self.scrollable_content_region
        return max(2_000, 2 * region.width * region.height)

    def covers(self, source_line: int) -> bool:
        """Whether the drawing on the page holds the text's line ``source_line`` (0-based)."""
        upto = None if self._drawn is None else self._drawn.upto
        return self._drawn is not None and (upto is None or source_line < upto)

    def row_of(self, source_line: int) -> int | None:
        """The page row showing the heading that starts at ``source_line``, if one does."""
        return None if self._drawn is None else self._drawn.heading_rows.get(source_line)

    def row_of_line(self, body: str, source_line: int) -> int | None:
        """The page row showing ``body``'s line ``source_line`` (0-based; a blank line: the next
        line with words). Rows are known only where top-level headings start, so the line is
        found by its first words from the row of the heading above it (the nth line with those
        words below that heading, for the nth such row); failing that, that row plus the lines
        between them."""
        if self._drawn is None:
            return None
        lines = body.splitlines()
        while source_line < len(lines) - 1 and not re.search(r"\w", lines[source_line]):
            source_line += 1
        start = max((n for n in self._drawn.heading_rows if n <= source_line), default=0)
        first = self._drawn.heading_rows.get(start, 0)
        words = re.findall(r"\w+", lines[source_line] if source_line < len(lines) else "")[:3]
        rows = self._drawn.lines
        if words:
            pattern = re.compile(r"\W+".join(map(re.escape, words)))
            nth = sum(1 for line in lines[start:source_line] if pattern.search(line))
            found = [row for row in range(first, len(rows)) if pattern.search(rows[row].text)]
            if found:
                return found[min(nth, len(found) - 1)]
        return min(first + source_line - start, max(0, len(rows) - 1))

    def top_line(self, body: str) -> int:
        """The line of ``body`` (0-based) that the page's top row shows, or the first row below it
        with words: ``row_of_line`` the other way round. From the heading above the row, the nth
        place in the text with the row's first words (across a soft line break too) for the nth
        place in the rows from there; the heading's line if none; 0 before a drawing."""
        drawn = self._drawn
        if drawn is None:
            return 0
        rows, row = drawn.lines, round(self.scroll_y)
        while row < len(rows) - 1 and not re.search(r"\w", rows[row].text):
            row += 1
        start, first = max(((n, r) for n, r in drawn.heading_rows.items() if r <= row), default=(0, 0))
        words = re.findall(r"\w+", rows[row].text if row < len(rows) else "")[:3]
        if words and row != first:
            pattern = re.compile(r"\W+".join(map(re.escape, words)))
            above = " ".join(strip.text for strip in rows[first:row])  # (a match may span two rows)
            nth = sum(
                1 for match in pattern.finditer(f"{above} {rows[row].text}") if match.start() <= len(above)
            )
            offset = len("".join(body.splitlines(keepends=True)[:start]))
            found = list(pattern.finditer(body, offset))
            if found:
                return body.count("\n", 0, found[min(nth, len(found) - 1)].start())
        return start

    def show_line(self, body: str, source_line: int) -> bool:
        """Scroll so ``body``'s line ``source_line`` is in view, two rows below the top (``show_row``);
        False before a drawing."""
        row = self.row_of_line(body, source_line)
        if row is None:
            return False
        self.show_row(max(0, row - 2))
        return True

    def show_row(self, row: int) -> None:
        """Scroll so ``row`` is at the top, now or as soon as the page can: before its first layout
        at a new length, Textual lets a page without a scrollbar not scroll (it gets one when laid
        out, later on a busy machine, or not before a screen over it closes). The row is kept until
        reached, and forgotten when the person moves (keys, mouse, a find) or another text is shown."""
        self._goal = row
        self._reach()

    def _reach(self) -> None:
        goal = self._goal
        if goal is None:
            return
        self._reaching = True
        try:
            self.scroll_to(y=goal, animate=False, immediate=True)
        finally:
            self._reaching = False
        if self.allow_vertical_scroll and round(self.scroll_y) == goal:
            self._goal = None  # there (a goal past the end stays: a taller or wider page may reach it)

    def watch_show_vertical_scrollbar(self) -> None:
        self._reach()  # laid out at its length: the page may scroll now

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        goal = self._goal
        # Moved by the person, not by a layout holding a goal past the end at the last row.
        if goal is not None and not self._reaching and round(new_value) != min(goal, self.max_scroll_y):
            self._goal = None

    def line_text(self, row: int) -> str:
        """The plain text of page row ``row`` ("" past the end)."""
        lines = [] if self._drawn is None else self._drawn.lines
        return lines[row].text if 0 <= row < len(lines) else ""

    @property
    def line_count(self) -> int:
        return 0 if self._drawn is None else len(self._drawn.lines)

    def _draw(self, drawn: Drawn | None = None) -> None:
        look = self.look()
        if look is None:
            return
        if drawn is None or drawn.look != look:
            drawn = draw(self._body, look, self.opening_chars())
        self._drawn = drawn
        self._painted.clear()
        self.virtual_size = Size(look.width, len(drawn.lines))
        if self.find is not None:  # drawn anew (a new width, the rest of a long text): the matches moved
            hit = self.find.hit
            self.find.search(self._texts(), self.find.origin if hit is None else hit.row)
        if drawn.upto is not None:
            self._redraw()  # the rest of the text

    def _texts(self) -> list[str]:
        return [] if self._drawn is None else [line.text for line in self._drawn.lines]

    def find_text(self, text: str) -> None:
        """Find ``text`` (a new find, or the one under way changed), from the row at the top when
        the find began, and scroll to the first match there."""
        if self.find is None:
            self.find = PageFind(text, round(self.scroll_y))
        self.find.text, self.find.pattern = text, None
        self.find.search(self._texts(), self.find.origin)
        self._show_hit(self.find.origin)

    def find_marks(self, label: str, pattern: re.Pattern[str], origin: int, title: str = "") -> None:
        """Mark where the page holds ``pattern`` (the words a search found the note by, named
        ``label``) as a find does, without scrolling; the current match is the first at or below
        row ``origin`` (the section the note opens at). ``title``: the note's, which the status
        names when only it holds the words."""
        self.find = PageFind(label, origin, pattern, title)
        self.find.search(self._texts(), self.find.origin)
        self._painted.clear()
        self.refresh()

    def find_step(self, forward: bool) -> None:
        """To the next (or previous) match, round the page's end."""
        if self.find is not None:
            self.find.step(forward)
            self._show_hit(round(self.scroll_y))

    def find_clear(self, *, back: bool = False) -> None:
        """Show no matches (``back``: and scroll back to where the find began)."""
        if self.find is not None and back:
            self._goal = None
            self.scroll_to(y=self.find.origin, animate=False, immediate=True)
        self.find = None
        self._painted.clear()
        self.refresh()

    def _show_hit(self, otherwise: int) -> None:
        self._goal = None  # the find's place now
        hit = None if self.find is None else self.find.hit
        top, height = round(self.scroll_y), self.scrollable_content_region.height
        if hit is None:
            self.scroll_to(y=otherwise, animate=False, immediate=True)
        elif not top <= hit.row < top + height:  # as vim does: the match a third of the way down
            self.scroll_to(y=max(0, hit.row - height // 3), animate=False, immediate=True)
        self._painted.clear()
        self.refresh()

    def on_resize(self) -> None:
        look, drawn = self.look(), self._drawn
        if drawn is None:
            self._draw()
        elif look is not None and (drawn.look != look or drawn.upto is not None):
            # The drawing at the width it had until the new one is ready; or only the opening, its
            # rest dropped for landing while the page was hidden (``_redrawn``): drawn again now.
            self._painted.clear()
            self.virtual_size = Size(look.width, len(drawn.lines))
            self._redraw()
        self._reach()  # a page taller or shorter than it was: a row waiting may be reached now
        # Said even when nothing was drawn again: a note waiting for a width (``NoteViewer``) is
        # drawn now, though the page comes back at the width it had (the narrow reader, reopened).
        self.post_message(self.Sized())

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=False)

    def _theme_changed(self) -> None:
        self._redraw()  # in the new theme's colours

    def _redraw(self) -> None:
        """Draw the text again for the page's look (a new width, a new theme) in a thread: the
        drawing on screen stays until the new one is ready, so the keys never wait for Rich (a
        long note took seconds to draw, and the app froze for as long on every resize)."""
        look = self.look()
        if look is None or (
            self._drawn is not None and self._drawn.look == look and self._drawn.upto is None
        ):
            return
        if self._drawn is None or len(self._body) <= self.opening_chars():
            self._draw()  # nothing worth keeping on screen, or a short text: drawn at once
            self.refresh()
            return
        body, key = self._body, self._key
        if (
            self._behind is not None
            and self._behind[0] == (body, key, look)
            and not self._behind[1].is_finished
        ):
            return  # the same text read again meanwhile: the drawing under way is the one wanted
        worker = in_thread(
            self, lambda: self._draw_behind(body, key, look), "page-draw", "drawing the note", exclusive=True
        )
        self._behind = ((body, key, look), worker)

    def _draw_behind(self, body: str, key: str, look: Look) -> None:
        drawn = draw(body, look)
        if not get_current_worker().is_cancelled:
            self.post_message(self._Redrawn(body, key, drawn))

    @on(_Redrawn)
    def _redrawn(self, message: _Redrawn) -> None:
        # Dropped if the page shows another text now, or has another look again (its own drawing
        # is under way), or none (hidden: drawn again once shown, ``on_resize``).
        if self._behind is not None and self._behind[0] == (message.body, message.key, message.drawn.look):
            self._behind = None  # landed: a drawing asked for again is not this one, still under way
        if message.key == self._key and message.drawn.look == self.look() and message.body == self._body:
            self._draw(message.drawn)
            self._reach()
            self.refresh()
            self.post_message(self.Completed())

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base = None  # focus changes the background, for one
        self._painted.clear()

    def render_line(self, y: int) -> Strip:
        row = self.scroll_offset.y + y
        painted = self._painted.get(row)
        if painted is not None:
            return painted
        if self._base is None:
            self._base = self.rich_style  # costly to compute, and the same for every row
        width = self.scrollable_content_region.width
        lines = [] if self._drawn is None else self._drawn.lines
        if row >= len(lines):
            painted = Strip.blank(width, self._base)
        else:
            painted = lines[row].crop_extend(0, width, self._base).apply_style(self._base)
            if self.find is not None and (hits := self.find.on_row(row)):
                painted = highlight(painted, hits, self.find.hit)
        self._painted[row] = painted
        return painted

    def action_link(self, href: str) -> None:
        self.post_message(self.LinkClicked(self, href))
