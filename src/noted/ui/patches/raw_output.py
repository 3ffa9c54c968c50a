"""Write an escape sequence of noted's own to the terminal, through Textual's driver.

Upstream (Textual 8.2, ``app.py`` ``App.copy_to_clipboard``): the app writes OSC 52 to the terminal
through its private ``_driver`` and offers no public way to write any other sequence. Inside tmux
with only ``allow-passthrough on`` (tmux's default keeps ``set-clipboard`` from forwarding OSC 52),
the copy reaches the outer terminal only when wrapped in tmux's passthrough (``ESC Ptmux; … ESC \\``),
which noted must write itself. To report: "App has no public method to write a raw escape sequence
to the terminal (for example OSC 52 wrapped for tmux passthrough)".

``write_raw`` writes through the driver while the app runs; with the patch off (another Textual)
it writes nothing, and a copy then reaches tmux's own clipboard only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from noted.ui.patches.guard import Patch, Private, enabled

if TYPE_CHECKING:
    from textual.app import App

PATCH = Patch(
    name="raw_output",
    module=__name__,
    written_for="8.2",
    touches=(Private("textual.app:App", "_driver"),),
)


def write_raw(app: App[Any], sequence: str) -> bool:
    """Write ``sequence`` to ``app``'s terminal as it is; say whether it was written."""
    driver = app._driver if enabled(PATCH) else None
    if driver is None:
        return False
    driver.write(sequence)
    return True
