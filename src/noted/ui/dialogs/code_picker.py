"""``CodeBlockPicker``: which code block to copy, when a note or a reply has several."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from noted.ui.clipboard import copy_text
from noted.ui.code_blocks import CodeBlock
from noted.ui.dialogs.over import Over
from noted.ui.dialogs.picker import fit_list

_PREVIEW = 48
"""Characters of a block's first line shown in the list."""


def describe(block: CodeBlock) -> str:
    """One line for a block: its language, its length and the start of its first line."""
    first = next((line.strip() for line in block.text.splitlines() if line.strip()), "")
    if len(first) > _PREVIEW:
        first = first[: _PREVIEW - 1] + "…"
    lines = block.line_count
    size = f"{lines} line{'s' if lines != 1 else ''}"
    return f"{block.language or 'code'} · {size} · {first}"


class CodeBlockPicker(Over[int | None]):
    """Returns the index of the chosen block, or None when cancelled.

    Args:
        blocks: The blocks to choose from, in document order.
        labels: Where each block is ("§ 2 Install"), shown before it; empty for none.
        highlighted: The block the cursor starts on (the one in view).
    """

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Cancel", id="dialog.cancel", tooltip="Close without copying anything"),
    ]

    def __init__(self, blocks: Sequence[CodeBlock], labels: Sequence[str] = (), highlighted: int = 0) -> None:
        super().__init__()
        self._blocks = tuple(blocks)
        self._labels = tuple(labels)
        self._highlighted = highlighted

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Copy which code block? ({len(self._blocks)})", classes="dialog--title")
            yield OptionList(
                *(
                    Option(f"{label}  {describe(block)}" if label else describe(block), id=f"b{i}")
                    for i, (block, label) in enumerate(zip(self._blocks, self._padded(), strict=True))
                )
            )
            yield Label("↑↓ to choose · Enter to copy · Esc to cancel", classes="dialog--hint")

    def _padded(self) -> tuple[str, ...]:
        return self._labels + ("",) * (len(self._blocks) - len(self._labels))

    def on_resize(self) -> None:
        self.call_after_refresh(fit_list, self)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = min(max(self._highlighted, 0), len(self._blocks) - 1)
        options.focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)


def copy_code_block(
    app: App[Any],
    blocks: Sequence[CodeBlock],
    *,
    labels: Sequence[str] = (),
    highlighted: int = 0,
    where: str,
) -> None:
    """Copy the one code block of ``blocks``, or let the person choose when there are several.

    Args:
        app: The running app.
        blocks: The code blocks found (none: the notice says so).
        labels: Where each block is, for the chooser.
        highlighted: The block the chooser starts on.
        where: What holds the blocks ("this note", "this reply"), for the notices.
    """
    if not blocks:
        app.notify(f"There is no code block in {where}. Nothing was copied.", severity="warning")
        return
    if len(blocks) == 1:
        copy_text(app, blocks[0].text, f"the code block of {where}", nothing="The code block is empty.")
        return

    def chosen(index: int | None) -> None:
        if index is not None:
            what = f"code block {index + 1} of {len(blocks)} in {where}"
            copy_text(app, blocks[index].text, what, nothing="That code block is empty.")

    app.push_screen(CodeBlockPicker(blocks, labels, highlighted), chosen)
