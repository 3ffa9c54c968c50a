"""``HintField``: a text field whose hint (placeholder) is the fullest of its wordings that fits.

Textual cuts a placeholder at the field's edge, so on a narrow screen a hint lost its end, the part
saying what Enter does. A field given several wordings, fullest first, shows the first that fits
its width, and chooses again on each resize.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from noted.ui.widgets.list_filter import fitting


class HintField(Input):
    """An ``Input`` showing the fullest of ``hints`` that fits its width as its placeholder."""

    def __init__(self, *hints: str, **options: Any) -> None:
        super().__init__(placeholder=hints[0], **options)
        self.hints = hints

    def on_resize(self) -> None:
        # The placeholder is drawn in the content width, its last cell kept for the cursor.
        self.placeholder = fitting(self.hints, self.scrollable_content_region.width - 1)
