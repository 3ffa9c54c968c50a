"""``KeyBar``: the keys of the focused pane, on one line at the bottom of the screen.

It shows what Textual's ``Footer`` shows, drawn as one line of text rather than a widget per key:
the footer rebuilt a dozen widgets, and restyled each, on every change of focus, which cost a
quarter of the time the app took to start and a good part of opening a note from a search. Keys
can still be clicked.
"""

from __future__ import annotations

from textual.app import RenderResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget


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

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if not self.is_attached or screen is not self.screen:
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
        if keys != self._keys or palette != self._palette:
            self._keys, self._palette = keys, palette
            self.refresh()

    def _key(self, binding: Binding, enabled: bool) -> Content:
        shown = self.app.get_key_display(binding)
        key_style = "bold $footer-key-foreground" if enabled else "$text-disabled"
        text_style = "" if enabled else "$text-disabled"
        click = f"@click=app.simulate_key({binding.key.split(',')[0]!r})"
        return Content.assemble(
            (f" {shown} ", f"{key_style} {click}"), (binding.description, f"{text_style} {click}")
        )

    def render(self) -> RenderResult:
        parts = [self._key(binding, enabled) for binding, enabled in self._keys]
        line = Content(" ").join(parts)
        if self._palette is not None:
            palette = self._key(self._palette, True)
            room = self.size.width - line.cell_length - palette.cell_length - 1
            if room >= 1:
                return Content.assemble(line, " " * room, palette)
        return line
