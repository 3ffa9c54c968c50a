"""A text field's own keys (Backspace, ←, Ctrl+U…) act in the order they were typed.

Upstream (Textual 8.2, ``widgets/_input.py`` and ``widgets/_text_area.py``, ``_on_key``): an
``Input`` or a ``TextArea`` inserts a printable key as it takes it from its queue, but its own
bindings (Backspace, Delete, the arrows, Home, End, Ctrl+U, Ctrl+W…) run only once the key has
bubbled, a message at a time, up to the app (``App._on_key``, ``_check_bindings``). A key typed
after one of them, already waiting in the field's queue, lands first: "abc", Backspace, "d" left
"abc" (the "d" deleted), and Ctrl+U then a new query left the field empty. It takes no paste, only
keys that arrive faster than the field takes them: a busy app, an SSH session that delivers keys in
bursts, tmux's ``send-keys``. To report: "an Input's or TextArea's own bindings run after printable
keys queued behind them".

The patch runs, in ``Widget._on_key`` (which an ``Input`` or a ``TextArea`` reaches for every key it
does not insert), the binding the key has on that field itself, when it is the one the app would run
(``Screen.active_bindings``: the first binding of the key from the focused widget up, enabled, not
one of the app's priority bindings, which never reach the field); any other key goes on as before,
and so does one whose action skips (a field's Ctrl+C with nothing selected goes on to the chat's stop).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from noted.ui.patches.guard import Patch, Private, Swap

if TYPE_CHECKING:
    from textual import events
    from textual.widget import Widget


@functools.cache
def _fields() -> tuple[type[Widget], ...]:
    """The text fields, imported on the first key (not at start-up), then kept: every key passes here."""
    from textual.widgets import Input, TextArea

    return (Input, TextArea)


async def _on_key(self: Widget, event: events.Key) -> None:
    """``Widget._on_key``, running a text field's own binding for the key at once."""
    if isinstance(self, _fields()) and self.has_focus:
        active = self.screen.active_bindings.get(event.key)
        if active is not None and active.node is self and active.enabled and not active.binding.priority:
            # An action that skips (Ctrl+C with nothing selected) leaves the key to the widgets above.
            if await self.app.run_action(active.binding.action, self):
                event.stop()
                event.prevent_default()
                return
    await _SWAP.original("_on_key")(self, event)


_SWAP = Swap("textual.widget:Widget", {"_on_key": _on_key})

PATCH = Patch(
    name="keys_in_order",
    module=__name__,
    written_for="8.2",
    touches=(Private("textual.widget:Widget", "_on_key", "(self, event: 'events.Key') -> 'None'"),),
    swap=_SWAP,
)
