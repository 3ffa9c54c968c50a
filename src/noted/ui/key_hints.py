"""The keys of an action as the person has them now (``ui.keymap`` applied), for texts that name them.

A palette entry that says "(ctrl+n)" goes wrong the day ``ui.keymap.app.new_note`` moves the key;
so the texts ask here, with the owner's ``BINDINGS`` and the keymap in effect, rather than spell
the key out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from textual.app import App
from textual.binding import BindingsMap, BindingType
from textual.dom import DOMNode

log = logging.getLogger(__name__)


def class_bindings(owner: type[DOMNode]) -> list[BindingType]:
    """The ``BINDINGS`` of ``owner`` and its bases, the nearest last (so they win, as in Textual)."""
    found: list[BindingType] = []
    for cls in reversed(owner.__mro__):
        found.extend(vars(cls).get("BINDINGS", ()))
    return found


@dataclass(frozen=True, slots=True)
class KeyHints:
    """Finds an action's keys among a class's bindings, with the keymap applied."""

    app: App[Any]
    keymap: Mapping[str, str]
    """``ui.keymap``: binding id → keys (``"ctrl+w"``, ``"f5,ctrl+r"``)."""

    def keys(self, owner: type[DOMNode], action: str) -> tuple[str, ...]:
        """The keys (as the key bar shows them: ``^n``, ``/``) that run ``action`` on ``owner``."""
        bindings = BindingsMap(class_bindings(owner))
        if self.keymap:
            bindings.apply_keymap(dict(self.keymap))
        shown: list[str] = []
        for _key, binding in bindings:
            if binding.action == action:
                display = self.app.get_key_display(binding)
                if display not in shown:
                    shown.append(display)
        return tuple(shown)

    def hint(self, text: str, owner: type[DOMNode], action: str, where: str = "") -> str:
        """``text`` followed by the keys of ``action`` in brackets ("… (^n)"), or alone if it has none.

        ``where``: said after the keys when they work elsewhere ("… (s in its list)").
        """
        keys = self.keys(owner, action)
        if not keys:  # a text naming an action no key runs: a slip to fix, not the person's problem
            log.warning("no key runs %s.%s for the text %r", owner.__name__, action, text)
            return text
        return f"{text} ({' or '.join(keys)}{where})"

    def for_callback(self, text: str, callback: Callable[[], Any], owner: type[DOMNode] | None = None) -> str:
        """``hint`` for a bound ``action_*`` method: its action, on ``owner`` or the method's object."""
        name = getattr(callback, "__name__", "")
        target = owner or type(getattr(callback, "__self__", None))
        if not name.startswith("action_") or not isinstance(target, type) or not issubclass(target, DOMNode):
            return text
        return self.hint(text, target, name.removeprefix("action_"))
