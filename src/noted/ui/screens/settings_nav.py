"""Getting about the settings screen in a few keys: section jumps and a section palette.

Reaching *Run the MCP server* took 48 Tabs. Besides the filter, ``Ctrl+↓``/``Ctrl+↑`` go to the
first setting of the next or previous section (the heading scrolled to the top), and the command
palette lists the sections (*Settings section: MCP server*). Only what is shown counts: with a
filter typed, the jump goes through the sections it left. A setting's list of choices opens under
its field and above the key bar (``fit_choices``).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Label, OptionList, Select

if TYPE_CHECKING:
    from textual.screen import Screen


def shown_sections(screen: Screen[Any]) -> list[Widget]:
    """The sections on ``screen`` the filter left shown, top to bottom."""
    return [section for section in screen.query(".section") if section.display]


def section_name(section: Widget) -> str:
    """The heading of ``section``, as shown."""
    return str(section.query_one(".section--title", Label).render())


def go_to_section(screen: Screen[Any], section: Widget) -> bool:
    """Focus the first setting of ``section`` and scroll its heading to the top; False if it has none."""
    first = next((w for w in screen.focus_chain if section in w.ancestors), None)
    if first is None:
        return False
    # At once, not as ``focus()`` does (after the keys already queued): a second Ctrl+↓ typed
    # ahead must start from this section. The heading above it is what is scrolled into view.
    screen.set_focus(first, scroll_visible=False)
    screen.query_one("#settings", VerticalScroll).scroll_to_widget(section, animate=False, top=True)
    return True


def jump(screen: Screen[Any], step: int) -> None:
    """Go ``step`` (1 or -1) sections on from the focused one, round the ends, skipping empty ones.

    From the filter (in no section) the next is the first section and the previous the last.
    """
    sections = shown_sections(screen)
    if not sections:
        return
    focused = screen.focused
    here = next((i for i, s in enumerate(sections) if focused is not None and s in focused.ancestors), None)
    start = (-1 if step > 0 else 0) if here is None else here
    for offset in range(1, len(sections) + 1):
        if go_to_section(screen, sections[(start + step * offset) % len(sections)]):
            return


CHOICES_ROWS = 12
"""The most rows a list of choices takes (Textual's ``max-height`` for it), its frame included."""


def fit_choices(
    page: VerticalScroll, select: Select[Any], room: Widget, before: Region | None = None
) -> None:
    """Make room for ``select``'s list, just opened, under its field in ``page``.

    Textual opens the list under the field and, when it would run off the screen, moves it up
    until it fits: over the field it belongs to and the key bar. The page scrolls the field up
    (as far as it can, the field kept in view) and the list takes no more rows than are left.
    A page that ends too soon to scroll so far (a filter that leaves one setting) first grows
    ``room``, the blank at its end, until the list closes (``close_choices``). Fitted again on
    the next frame until the field stays put (``before``: where it was at the last fit): a page
    still scrolling to the field just focused gave a list of two rows.
    """
    if not select.expanded:
        return
    choices = select.query_one(OptionList)
    field = select.query_one("SelectCurrent").region
    wanted = min(choices.option_count + 2, CHOICES_ROWS)
    short = wanted - (page.region.bottom - field.bottom)
    lift = max(0, min(short, field.y - page.region.y))
    scrollable = max(0, round(page.max_scroll_y - page.scroll_y))
    choices.styles.max_height = min(wanted, page.region.bottom - field.bottom + min(lift, scrollable))
    if lift > scrollable:  # fitted again once the room is laid out (one fit in flight at a time)
        room.styles.height = room.size.height + lift - scrollable
        page.call_after_refresh(fit_choices, page, select, room)
        return
    if field != before:
        page.call_after_refresh(fit_choices, page, select, room, field)
    if lift:
        page.scroll_to(y=page.scroll_y + lift, animate=False, immediate=True)
        choices.styles.max_height = min(wanted, page.region.bottom - field.bottom + lift)


def close_choices(room: Widget) -> None:
    """A list of choices closed: the blank ``fit_choices`` added at the page's end goes."""
    room.styles.height = 0


class SectionProvider(Provider):
    """The command palette on the settings screen: *Settings section: NAME* for each section shown."""

    def _commands(self) -> list[tuple[str, Widget]]:
        return [(f"Settings section: {section_name(s)}", s) for s in shown_sections(self.screen)]

    def _go(self, section: Widget) -> None:
        go_to_section(self.screen, section)

    async def discover(self) -> Hits:
        for text, section in self._commands():
            yield DiscoveryHit(
                text, partial(self._go, section), help="Go to the first setting of this section"
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, section in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self._go, section), text=text)
