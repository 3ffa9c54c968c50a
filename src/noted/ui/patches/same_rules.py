"""Skip a restyle that gives a node the rules it already has (``Stylesheet.replace_rules``).

Upstream (Textual 8.2, ``css/stylesheet.py``, ``Stylesheet.replace_rules``): the early return meant
for a node whose rules did not change, ``Styles(node, rules) == base_styles``, compares the rules as
the stylesheet gives them (``"underline"``, a layout object) with the styles' stored, converted values
(``Style(underline=True)``, a new layout object each time): they never compare equal, and without
``animate`` there is no check at all. So every restyled node has all its rules set again, which drops
its rendered lines and asks for a layout. Whenever focus moves Textual restyles every widget under the
nearest ancestor with a ``:focus-within`` rule, and a class change restyles the node's whole subtree:
moving the focus from the note list to the page took 100-130 ms on a 10,000-note profile, most of it
painting the screen again as it was. To report: "replace_rules re-applies unchanged rules because it
compares raw rules with converted styles".

The patch wraps ``replace_rules``: when the stylesheet gives a node the same rules it gave it last
time, and nothing has changed its styles since (``StylesBase._updates`` counts every change: an
animation, a reset, a direct set), there is nothing to do. Any other case goes to Textual as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from noted.ui.patches.guard import Patch, Private, Swap

if TYPE_CHECKING:
    from textual.dom import DOMNode

_LAST = "_noted_last_rules"
"""Where a node keeps the rules it was last given, and its styles' change count then."""


def _replace_rules(cls: type, node: DOMNode, rules: dict[str, Any], animate: bool = False) -> None:
    """``Stylesheet.replace_rules``, skipped when ``rules`` are what this node was last given."""
    base = node.styles.base
    last = node.__dict__.get(_LAST)
    if last is not None and last[1] == base._updates and last[0] == rules:
        return
    _SWAP.original("replace_rules")(node, rules, animate)
    node.__dict__[_LAST] = (dict(rules), base._updates)


_SWAP = Swap("textual.css.stylesheet:Stylesheet", {"replace_rules": classmethod(_replace_rules)})
PATCH = Patch(
    name="same_rules",
    module=__name__,
    written_for="8.2",
    speed=True,
    touches=(
        Private(
            "textual.css.stylesheet:Stylesheet",
            "replace_rules",
            "(node: 'DOMNode', rules: 'RulesMap', animate: 'bool' = False) -> 'None'",
        ),
        Private("textual.css.styles:Styles", "_updates"),
    ),
    swap=_SWAP,
)
