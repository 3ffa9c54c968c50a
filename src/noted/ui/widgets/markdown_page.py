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
from dataclasses import dataclass, field

from rich.style import Style
from rich.theme import Theme
from textual.color import Color
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from noted.ui.patches.steady_scrollbars import SteadyScrollbars
from noted.ui.widgets.page_find import PageFind, highlight


def markdown_theme(variables: dict[str, str], *, dark: bool) -> Theme:
    """Rich's Markdown styles in the colours of the app's theme (Textual's CSS variables)."""

    def hex_of(name: str, fallback: str) -> str:
        try:
            return Color.parse(variables.get(name, fallback)).hex6
        except Exception:  # a variable such as "auto 87%" is not a plain colour
            return Color.parse(fallback).hex6

    fg = hex_of("foreground", "#e0e0e0" if dark else "#202020")
    bg = hex_of("background", "#121212" if dark else "#f8f8f8")
    muted = Color.parse(fg).blend(Color.parse(bg), 0.4).hex6
    accent = hex_of("text-accent", hex_of("accent", fg))
    primary = hex_of("text-primary", hex_of("primary", fg))
    styles: dict[str, str | Style] = {
        f"markdown.h{level}": _text_style(variables.get(f"markdown-h{level}-text-style", "bold"))
        + Style(color=hex_of(f"markdown-h{level}-color", fg))
        for level in range(1, 7)
    }
    styles.update(
        {
            "markdown.paragraph": "none",
            "markdown.text": "none",
            "markdown.em": "italic",
            "markdown.strong": "bold",
            "markdown.s": "strike",
            "markdown.code": f"{accent} on {hex_of('primary-muted', bg)}",
            "markdown.code_block": "none",
            "markdown.block_quote": f"italic {muted}",
            "markdown.hr": muted,
            "markdown.item.bullet": f"bold {accent}",
            "markdown.item.number": f"bold {accent}",
            "markdown.link": f"underline {primary}",
            "markdown.link_url": f"underline {primary}",
            "markdown.table.border": muted,
            "markdown.table.header": "bold",
        }
    )
    return Theme(styles, inherit=True)


def _text_style(words: str) -> Style:
    """A theme's text style (``"bold"``, ``"underline"``, ``"none"``…) as a Rich style; plain if Rich
    cannot read it. ``"none"`` is a style of its own to Rich, not a word it combines with a colour:
    "none #e0e0e0" raised, and switching to Textual's ansi themes stopped the app."""
    try:
        return Style.parse(words)
    except Exception:  # a theme file is data: a word Rich does not know must not stop the app
        return Style()


def code_theme(dark: bool) -> str:
    """The Pygments style for code blocks in a dark or a light app theme."""
    return "monokai" if dark else "friendly"


@dataclass(frozen=True, slots=True)
class Look:
    """How a page is drawn: its width and colours. Pages drawn for one look can be shown as they are."""

    width: int
    theme: Theme = field(compare=False)
    theme_name: str
    code_theme: str


@dataclass(frozen=True, slots=True)
class Drawn:
    """A body drawn for one look: its lines, and the row of each heading by source line."""

    look: Look
    lines: list[Strip]
    heading_rows: dict[int, int]


def draw(body: str, look: Look) -> Drawn:
    """Render ``body`` for ``look``; pure, so a worker thread may draw a page ahead of time."""
    if not body.strip():
        return Drawn(look, [], {})  # the empty page at start-up need not load the Markdown renderer
    from noted.ui.widgets.markdown_draw import draw_lines  # Rich's Markdown (and Pygments) load on first use

    lines, rows = draw_lines(body, look.width, look.theme, look.code_theme)
    return Drawn(look, lines, rows)


class MarkdownPage(SteadyScrollbars, ScrollView, can_focus=True):
    """Scrollable rendered Markdown; ``update(body)`` shows another text."""

    DEFAULT_CSS = """
    MarkdownPage {
        scrollbar-gutter: stable;
    }
    """

    class Sized(Message):
        """The page has a size: a new one (then its text is drawn again for it first), or the one
        it had, back on screen after being hidden (Textual resizes a widget it shows again)."""

    @dataclass
    class LinkClicked(Message):
        """A link in the page was clicked; ``href`` as written in the Markdown."""

        page: MarkdownPage
        href: str

        @property
        def control(self) -> MarkdownPage:
            return self.page

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
            drawn = draw(self._body, look)
        self._drawn = drawn
        self._painted.clear()
        self.virtual_size = Size(look.width, len(drawn.lines))
        if self.find is not None:  # drawn anew (a new width): the matches moved
            hit = self.find.hit
            self.find.search(self._texts(), 0 if hit is None else hit.row)

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
        if self._drawn is None or self._drawn.look != self.look():
            self._draw()
        self._reach()  # a page taller or shorter than it was: a row waiting may be reached now
        # Said even when nothing was drawn again: a note waiting for a width (``NoteViewer``) is
        # drawn now, though the page comes back at the width it had (the narrow reader, reopened).
        self.post_message(self.Sized())

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=False)

    def _theme_changed(self) -> None:
        self._draw()  # in the new theme's colours
        self.refresh()

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
