"""``KeyBar``: the keys of the focused pane, on one line at the bottom of the screen.

It shows what Textual's ``Footer`` shows, drawn as one line of text rather than a widget per key:
the footer rebuilt a dozen widgets, and restyled each, on every change of focus, which cost a
quarter of the time the app took to start and a good part of opening a note from a search. Keys
can still be clicked.

Help (F1) and the command palette (Ctrl+P) stay whole at every width, 80 columns included: they
lead to every other key, so the keys that do not fit are dropped instead (a `…` says so).

A modal screen in front (a dialog, a picker, the list of keys) leaves the bar of the screen behind
in sight, but stops that screen's keys: so the bar shows the keys of the modal screens in front of
its own, the topmost's, whether or not it has a bar of its own (one that has covers this one). It
follows them from the app's screen changes, a push or a pop, not from key presses.
"""

from __future__ import annotations

from textual.app import RenderResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

DROPPED = "…"
"""Shown where keys were dropped for want of room (F1 lists them all)."""
PINNED = frozenset({"app.help"})
"""Binding ids the bar keeps whole at every width (with the palette's key): they lead to every other key."""


class KeyBar(Widget):
    """The bindings with ``show=True`` that the focused widget and its ancestors offer."""

    DEFAULT_CSS = """
    KeyBar {
        height: 1;
        dock: bottom;
        background: $footer-background;
        color: $footer-description-foreground;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self._keys: list[tuple[Binding, bool]] = []
        self._palette: Binding | None = None
        self._source: Screen[object] | None = None
        """The screen whose keys are shown: this bar's own, or a modal screen in front of it."""

    def on_mount(self) -> None:
        self._source = self.screen
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.app.screen_change_signal.subscribe(self, self._screen_changed)
        self._bindings_changed(self.screen)

    def _screen_changed(self, _top: Screen[object]) -> None:
        """A screen was pushed or popped: show the keys of the modal screens in front, if any."""
        own, stack = self.screen, self.app.screen_stack
        if not self.is_attached or own not in stack:
            return
        above = stack[stack.index(own) + 1 :]
        # A full screen in front hides this bar: it keeps its own keys, and their work.
        source = stack[-1] if all(isinstance(screen, ModalScreen) for screen in above) else own
        if source is self._source:
            return
        if self._source is not None and self._source is not own:
            self._source.bindings_updated_signal.unsubscribe(self)
        self._source = source
        if source is not own:
            source.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(source)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if not self.is_attached or screen is not self._source:
            return
        seen: set[str] = set()
        keys: list[tuple[Binding, bool]] = []
        palette: Binding | None = None
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if key == self.app.COMMAND_PALETTE_BINDING and self.app.ENABLE_COMMAND_PALETTE:
                palette = binding
            elif binding.show and binding.action not in seen:
                seen.add(binding.action)  # several keys for one action (j and down): the first
                keys.append((binding, active.enabled))
        if palette is None:
            palette = self._priority_palette()
        if keys != self._keys or palette != self._palette:
            self._keys, self._palette = keys, palette
            self.refresh()

    def _priority_palette(self) -> Binding | None:
        """The palette's key on a modal screen: it leaves the app's keys out of its active bindings,
        but the palette's is a priority key, which works there all the same."""
        app = self.app
        if not app.ENABLE_COMMAND_PALETTE:
            return None
        # Textual's own, which it adds to an app that declares none (noted does not): its key,
        # as a priority binding.
        return Binding(
            app.COMMAND_PALETTE_BINDING,
            "app.command_palette",
            "palette",
            key_display=app.COMMAND_PALETTE_DISPLAY,
            priority=True,
        )

    def _key(self, binding: Binding, enabled: bool) -> Content:
        shown = self.app.get_key_display(binding)
        key_style = "bold $footer-key-foreground" if enabled else "$text-disabled"
        text_style = "" if enabled else "$text-disabled"
        click = f"@click=app.simulate_key({binding.key.split(',')[0]!r})"
        return Content.assemble(
            (f" {shown} ", f"{key_style} {click}"), (binding.description, f"{text_style} {click}")
        )

    def render(self) -> RenderResult:
        """The keys that fit, then the palette at the right edge; help and the palette are never cut."""
        entries = [(self._key(binding, enabled), binding.id in PINNED) for binding, enabled in self._keys]
        palette = self._key(self._palette, True) if self._palette is not None else None
        return fit_keys(entries, palette, self.size.width)


def fit_keys(entries: list[tuple[Content, bool]], palette: Content | None, width: int) -> Content:
    """One line of ``width`` cells: the entries (``True``: pinned) in order, then ``palette`` at the right.

    When they do not fit, unpinned entries are dropped whole, the last first (the focused pane's
    own keys come first in the list, the app's last), and a `…` marks the gap; the pinned entries
    and the palette stay whole whenever they fit at all (the widget's ellipsis cuts the rest).
    """
    reserved = palette.cell_length + 2 if palette is not None else 0  # a space before it and after
    kept = list(entries)

    def length() -> int:
        more = len(DROPPED) + 1 if len(kept) < len(entries) else 0
        return sum(part.cell_length for part, _ in kept) + max(len(kept) - 1, 0) + more

    while length() > width - reserved and any(not pinned for _, pinned in kept):
        last = max(index for index, (_, pinned) in enumerate(kept) if not pinned)
        del kept[last]
    parts = [part for part, _ in kept] + ([Content(DROPPED)] if len(kept) < len(entries) else [])
    line = Content(" ").join(parts)
    if palette is None:
        return line
    room = width - line.cell_length - palette.cell_length - 1
    if room >= 1:
        return Content.assemble(line, " " * room, palette)
    return Content.assemble(palette, " ", line)  # narrower than the pinned keys: the palette first
