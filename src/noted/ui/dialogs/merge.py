"""``MergeEditor``: a merge of two versions of a note, to edit before it is saved.

It opens on ``noted.ops.conflicts.Conflict.merge_text``: the title as a ``# `` first line, then the
body, with each place the two sides clash shown diff3-style (``<<<<<<<`` the one side, ``|||||||``
the version both began from, ``=======`` the other side, ``>>>>>>>``). ``Ctrl+S`` hands back the
(title, body), refused while a clash marker is left; ``Esc`` hands back None (nothing is saved).
"""

from __future__ import annotations

import re
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, TextArea

from noted.ops.conflicts import split_titled
from noted.ui.dialogs.over import Over
from noted.ui.widgets.key_bar import KeyBar

MARKER = re.compile(r"^(<<<<<<<|\|\|\|\|\|\|\||=======|>>>>>>>)( |$)", re.MULTILINE)
"""A line that opens, divides or closes a clash."""
MARKERS_LEFT = "Clash markers remain: resolve them, then save."
"""Ctrl+S with a marker left; short enough for a line of the box on a 60-column screen (F1 explains)."""


class MergeEditor(Over[tuple[str, str] | None]):
    """Returns the merged (title, body), or None for Esc."""

    HELP = """\
## Merging

Both versions, merged line by line. Where they clash, the lines between `<<<<<<<` and `|||||||`
are the one side, those up to `=======` the version both began from, those up to `>>>>>>>` the
other side: keep what you want and delete the markers. The first line, `# …`, is the title.
{merge.save} saves the merge (both versions stay in the note's history); {merge.back} goes back
to the choices without saving.
"""
    CSS_PATH = "conflict.tcss"
    AUTO_FOCUS = "#merge-text"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save the merge", id="merge.save", tooltip="Save this text as the note (both versions stay in its history)"),
        Binding("escape", "dismiss", "Back", id="merge.back", tooltip="Back to the choices; nothing is saved"),
        Binding("f1", "app.help", "Help", id="app.help", tooltip="Explain the merge and its keys"),
    ]  # fmt: skip

    def __init__(self, title: str, text: str, clashes: int) -> None:
        super().__init__()
        self.heading = title
        self.text = text
        self.clashes = clashes

    def compose(self) -> ComposeResult:
        said = (
            f"{self.clashes} clash{'es' if self.clashes != 1 else ''} marked" if self.clashes else "no clash"
        )
        with Vertical(classes="conflict merge"):
            yield Label(f"{self.heading}: {said}", classes="conflict--title")
            yield TextArea(self.text, id="merge-text", soft_wrap=True, show_line_numbers=False)
            yield Label("", id="merge-message", classes="conflict--hint")
        yield KeyBar()

    def on_mount(self) -> None:
        """The cursor on the first clash, so a long note's clash is in view."""
        found = MARKER.search(self.text)
        if found is not None:
            self.query_one(TextArea).move_cursor((self.text.count("\n", 0, found.start()), 0), center=True)

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        if MARKER.search(text):
            self.query_one("#merge-message", Label).update(MARKERS_LEFT)
            return
        self.dismiss(split_titled(text))
