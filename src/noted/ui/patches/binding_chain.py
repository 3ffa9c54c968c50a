"""List what each key does on a screen, passing over keys that would do nothing where they are bound.

Upstream (Textual 8.2, ``screen.py``, ``Screen.active_bindings``): the public view of a screen's keys
keeps, for each key, the first binding along the focus chain, whether or not it can act there. On a
one-line text field, Textual's inherited *Scroll Up* hides the search screen's ``↑`` (*Previous*),
though a press of the key reaches that binding (the field cannot scroll, so Textual passes it on):
the help listed *Scroll Up / Scroll Down* for the keys that choose results. To report:
"active_bindings lists a binding whose action the node would skip".

The helper walks the chain as ``active_bindings`` does (``Screen._modal_binding_chain``), leaves out a
scrolling key on a node that cannot scroll that way, and asks ``App._check_action_state`` whether each
action is enabled. Off (another Textual), the help lists ``Screen.active_bindings`` as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from noted.ui.patches.guard import Patch, Private, enabled

if TYPE_CHECKING:
    from textual.binding import Binding
    from textual.dom import DOMNode
    from textual.screen import Screen

PATCH = Patch(
    name="binding_chain",
    module=__name__,
    written_for="8.2",
    touches=(
        Private("textual.screen:Screen", "_modal_binding_chain"),
        Private(
            "textual.app:App",
            "_check_action_state",
            "(self, action: 'str', default_namespace: 'DOMNode') -> 'bool | None'",
        ),
    ),
)


def working_bindings(
    screen: Screen[object], pointless: Callable[[DOMNode, Binding], bool]
) -> list[tuple[DOMNode, Binding]]:
    """What each key does on ``screen`` now (the focused widget first; a priority binding wins),
    leaving out what ``pointless`` says would do nothing and what is disabled."""
    if not enabled(PATCH):
        return [(active.node, active.binding) for active in screen.active_bindings.values() if active.enabled]
    app = screen.app
    found: dict[str, tuple[DOMNode, Binding]] = {}
    for node, bindings in screen._modal_binding_chain:
        for key, binding in bindings:
            if pointless(node, binding) or app._check_action_state(binding.action, node) is False:
                continue
            if key not in found or (binding.priority and not found[key][1].priority):
                found[key] = (node, binding)
    return list(found.values())
