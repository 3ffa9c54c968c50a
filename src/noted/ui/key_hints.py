"""The keys of an action as the person has them now (``ui.keymap`` applied), for texts that name them.

A palette entry that says "(ctrl+n)" goes wrong the day ``ui.keymap.app.new_note`` moves the key;
so the texts ask here, with the owner's ``BINDINGS`` and the keymap in effect, rather than spell
the key out. The panes' help texts (``HELP``) name a key by its binding id in braces, ``{note.save}``,
and ``KeyHints.fill`` writes in the keys (``**Ctrl+S**``); only Textual's own keys, which no keymap
moves (``Tab``, the arrows, ``Enter`` in a list), are written out.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from textual.app import App
from textual.binding import BindingsMap, BindingType
from textual.dom import DOMNode
from textual.keys import format_key
from textual.screen import Screen

from noted.ui.binding_ids import binding_ids, declared

log = logging.getLogger(__name__)

PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)\}")
"""A binding id in braces, as help texts name a key: ``{list.mark}``."""
_NAMES = {
    "escape": "Esc", "enter": "Enter", "space": "Space", "tab": "Tab", "delete": "Delete",
    "backspace": "Backspace", "home": "Home", "end": "End", "pageup": "PgUp", "pagedown": "PgDn",
    "up": "↑", "down": "↓", "left": "←", "right": "→",
}  # fmt: skip


def spoken(key: str) -> str:
    """A key as the help and the README write it: ``Ctrl+S``, ``Esc``, ``F4``, ``?``, ``G``."""
    *modifiers, name = key.split("+")
    if name in _NAMES:
        shown = _NAMES[name]
    elif re.fullmatch(r"f\d+", name):
        shown = name.upper()
    else:
        shown = format_key(name)  # question_mark → ?
        shown = shown.upper() if modifiers and len(shown) == 1 else shown
    return "+".join([*(modifier.capitalize() for modifier in modifiers), shown])


def chord_keys(screen: Screen[Any], binding_id: str) -> str:
    """The keys that run ``binding_id`` on ``screen`` now, the keymap applied, leaving out keys a
    text field types (``/``): "Ctrl+F" ("" for none)."""
    found = [
        spoken(key) for key, active in screen.active_bindings.items()
        if active.binding.id == binding_id and ("+" in key or key[0] == "f" and key[1:].isdigit())
    ]  # fmt: skip
    return " or ".join(found)


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

    def spoken_keys(self, binding_id: str) -> tuple[str, ...]:
        """The keys of the binding ``binding_id`` now, as ``spoken`` writes them (none if no such id)."""
        found = declared()
        if binding_id not in found and binding_id in binding_ids():  # its module was not loaded yet
            found = declared()
        binding = found.get(binding_id)
        keys = self.keymap.get(binding_id) or (binding.key if binding is not None else "")
        return tuple(spoken(key.strip()) for key in keys.split(",") if key.strip())

    def fill(self, text: str) -> str:
        """``text`` (Markdown) with each ``{binding.id}`` replaced by that binding's keys in bold."""

        def keys(match: re.Match[str]) -> str:
            found = self.spoken_keys(match.group(1))
            if not found:  # a help text naming an id no binding has: a slip to fix
                log.warning("no key has the id %s named in a help text", match.group(1))
                return f"`{match.group(1)}`"
            return " or ".join("**" + re.sub(r"([\\`*_])", r"\\\1", key) + "**" for key in found)

        return PLACEHOLDER.sub(keys, text)

    def for_callback(
        self, text: str, callback: Callable[[], Any], owner: type[DOMNode] | None = None, where: str = ""
    ) -> str:
        """``hint`` for a bound ``action_*`` method: its action, on ``owner`` or the method's object."""
        name = getattr(callback, "__name__", "")
        target = owner or type(getattr(callback, "__self__", None))
        if not name.startswith("action_") or not isinstance(target, type) or not issubclass(target, DOMNode):
            return text
        return self.hint(text, target, name.removeprefix("action_"), where)
