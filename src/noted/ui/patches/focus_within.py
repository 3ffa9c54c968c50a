"""On a focus move, restyle only the nodes whose rules mention ``:focus-within``.

Upstream (Textual 8.2, ``screen.py``, ``Screen._update_focus_styles``): for the widget that gains the
focus and the one that loses it, Textual finds the outermost ancestor with a ``:focus-within`` rule
(``DOMNode._has_focus_within``) and restyles that ancestor's whole subtree, ``walk_children(with_self=
True)``, although only the nodes that have such a rule (or a rule that depends on one, as
``#box:focus-within .marked``, which marks its own node) can change. The reader pane's border uses
``:focus-within``: every focus move restyled its 13 widgets, and with ``replace_rules`` re-applying
unchanged rules (see ``same_rules``) repainted them. To report: "_update_focus_styles restyles the
whole subtree of a :focus-within node instead of the nodes whose rules depend on it".

The patch restyles, under that same ancestor, only the nodes with ``_has_focus_within`` set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from noted.ui.patches.guard import Patch, Private, Swap

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.screen import Screen
    from textual.widget import Widget


def _update_focus_styles(
    self: Screen[Any], focused: Widget | None = None, blurred: Widget | None = None
) -> None:
    """``Screen._update_focus_styles``, restyling only the nodes whose rules mention ``:focus-within``."""
    nodes: set[DOMNode] = set()
    for widget in (focused, blurred):
        if widget is None:
            continue
        for ancestor in reversed(widget.ancestors_with_self):
            if ancestor._has_focus_within:
                nodes.update(
                    node for node in ancestor.walk_children(with_self=True) if node._has_focus_within
                )
                break
    if nodes:
        self.app.stylesheet.update_nodes(nodes, animate=True)


PATCH = Patch(
    name="focus_within",
    module=__name__,
    written_for="8.2",
    speed=True,
    touches=(
        Private(
            "textual.screen:Screen",
            "_update_focus_styles",
            "(self, focused: 'Widget | None' = None, blurred: 'Widget | None' = None) -> 'None'",
        ),
        Private("textual.dom:DOMNode", "_has_focus_within"),
    ),
    swap=Swap("textual.screen:Screen", {"_update_focus_styles": _update_focus_styles}),
)
