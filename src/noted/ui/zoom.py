"""Zoom (``+``): the pane that holds the focus takes the whole width of the workspace.

The layout itself is in ``workspace.tcss`` (``Workspace.-zoom`` hides the panes, ``.-zoomed`` shows
the one zoomed); here are the classes that switch it. ``Workspace.reveal`` ends the zoom when the
focus moves to another pane, so a key never lands in a pane the zoom hides.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.screen import Screen
from textual.widget import Widget


def zoomed(screen: Screen[Any]) -> Widget | None:
    """The pane given the whole width, if one is."""
    return next(iter(screen.query(".-zoomed")), None)


def toggle(screen: Screen[Any], panes: Iterable[Widget]) -> None:
    """Zoom the pane of ``panes`` that holds the focus; when one is zoomed, share the width again."""
    if zoomed(screen) is not None:
        unzoom(screen)
        return
    pane = next((p for p in panes if p.has_focus_within), None)
    if pane is not None:
        pane.add_class("-zoomed")
        screen.add_class("-zoom")


def unzoom(screen: Screen[Any]) -> None:
    """Give the panes their usual widths back."""
    for pane in screen.query(".-zoomed"):
        pane.remove_class("-zoomed")
    screen.remove_class("-zoom")
