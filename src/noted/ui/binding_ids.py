"""Every key binding id of the app, for checking ``ui.keymap`` entries before they are saved.

The ids live on the widgets' and screens' ``BINDINGS``; importing every module of ``noted.ui``
finds them all, the screens that load only when opened included. Textual's own widgets' ids
(``input.*``…) count too, since ``ui.keymap`` rebinds them the same way.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from textual.binding import Binding
from textual.dom import DOMNode

import noted.ui


@cache
def binding_ids() -> frozenset[str]:
    """The ids a ``ui.keymap`` entry may name."""
    for module in pkgutil.walk_packages(noted.ui.__path__, prefix="noted.ui."):
        importlib.import_module(module.name)
    return frozenset(declared())


def declared() -> dict[str, Binding]:
    """The bindings with an id of every widget, screen and app class loaded now, by id (one each:
    a binding id has the same default keys wherever it is declared)."""
    found: dict[str, Binding] = {}
    pending: list[type[DOMNode]] = [DOMNode]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        for binding in vars(cls).get("BINDINGS", ()):
            if isinstance(binding, Binding) and binding.id:
                found.setdefault(binding.id, binding)
    return found
