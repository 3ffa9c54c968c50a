"""Keep a restyle that changes nothing from repainting and re-laying out what it touched.

Whenever focus moves, Textual restyles every widget under the nearest ancestor with a
``:focus-within`` rule (the pane borders use one: the reader pane holds 13 widgets), and a class
change restyles the node's whole subtree. ``Stylesheet.replace_rules`` is meant to stop there when
a node's rules are the same as before, but the check it uses compares the rules as the stylesheet
gives them (``"underline"``, a layout object) with the styles' stored, converted values
(``Style(underline=True)``, a new layout object each time): they never compare equal. So every
restyled widget had all its rules set again, which drops its rendered lines and asks for a layout,
and moving the focus from the note list to the page took 100-130 ms on a 10,000-note profile, most
of it painting the screen again as it was.

``install`` makes two changes:

- it wraps ``replace_rules``: when the stylesheet gives a node the same rules it gave it last time,
  and nothing has changed its styles since (an animation, a reset), there is nothing to do. Any
  other case goes to Textual as before;
- on a focus move, it restyles only the nodes whose rules mention ``:focus-within`` (a rule that
  depends on it, ``#box:focus-within .marked``, marks its own node), not the whole subtree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.screen import Screen
    from textual.widget import Widget

_textual_replace_rules: Any = None


def _replace_rules(cls: type, node: DOMNode, rules: dict[str, Any], animate: bool = False) -> None:
    """``Stylesheet.replace_rules``, skipped when ``rules`` are what this node was last given."""
    base = node.styles.base
    last = node.__dict__.get("_noted_last_rules")
    if last is not None and last[1] == base._updates and last[0] == rules:
        return
    _textual_replace_rules(node, rules, animate)
    # ``_updates`` counts every change to the base styles (an animation, a reset, a direct set).
    node.__dict__["_noted_last_rules"] = (dict(rules), base._updates)


def install() -> None:
    """Wrap ``Stylesheet.replace_rules`` and replace ``Screen._update_focus_styles`` (once per process)."""
    global _textual_replace_rules
    from textual.css.stylesheet import Stylesheet
    from textual.screen import Screen

    if _textual_replace_rules is None:
        _textual_replace_rules = Stylesheet.replace_rules
        Stylesheet.replace_rules = classmethod(_replace_rules)  # type: ignore[method-assign,assignment]
        Screen._update_focus_styles = _update_focus_styles  # type: ignore[method-assign]


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
