"""What a patch of Textual is, and whether it is on: the registry's building blocks.

A ``Patch`` names the Textual release it was written for (``written_for``, a minor version such as
``"8.2"``) and every private name of Textual it touches (``Private``). ``noted.ui.patches.install``
turns on the patches written for the running Textual and skips, with one warning in the log, those
written for another; ``enabled`` is how a helper or a widget's override asks whether its patch is on,
and does what Textual does when it is not.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass, field
from typing import Any

import textual

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Private:
    """One private name of Textual that a patch replaces, overrides, calls or reads.

    Attributes:
        owner: Where the name lives, as ``"module:Class"`` (``"textual.strip:Strip"``).
        name: The attribute (``"divide"``).
        signature: ``str(inspect.signature(...))`` of a callable as in the Textual it was written
            for; ``None`` for a data attribute (set in ``__init__``, a property, a class attribute).
    """

    owner: str
    name: str
    signature: str | None = None


@dataclass(frozen=True)
class Patch:
    """One work-around for Textual behaviour, with what it touches and how to undo it.

    Attributes:
        name: Short id, as the pin's comment in ``pyproject.toml`` lists it.
        module: The module whose docstring describes the upstream bug.
        written_for: The Textual minor release the patch was written and measured against.
        touches: Every private name of Textual it relies on (the upgrade canary checks them).
        speed: It exists only to make the app faster: ``noted.ui.speed``'s switch leaves it out.
        swap: What it replaces in Textual's classes, process-wide; ``None`` for a patch that lives
            in a helper or an override and only asks ``enabled``.
    """

    name: str
    module: str
    written_for: str
    touches: tuple[Private, ...]
    speed: bool = False
    swap: Swap | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Swap:
    """Attributes of one Textual class replaced by noted's, and Textual's own while they are.

    Attributes:
        owner: The class, as ``"module:Class"``.
        replacements: Attribute name to what takes its place (a function, a ``classmethod``).
        saved: Textual's originals, from the class's own ``__dict__`` while the swap is applied, so
            ``revert`` puts back exactly what Textual defined.
    """

    owner: str
    replacements: dict[str, object]
    saved: dict[str, object] = field(default_factory=dict, compare=False)
    _originals: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def _class(self) -> type:
        module, _, name = self.owner.partition(":")
        owner: type = getattr(importlib.import_module(module), name)
        return owner

    def apply(self) -> None:
        """Put the replacements in place, keeping Textual's originals."""
        owner = self._class()
        self.saved.update({name: owner.__dict__[name] for name in self.replacements})
        # Bound once here: ``original`` is called for every line painted (``Strip.divide``).
        self._originals.update({name: value.__get__(None, owner) for name, value in self.saved.items()})  # type: ignore[attr-defined]
        for name, value in self.replacements.items():
            setattr(owner, name, value)

    def revert(self) -> None:
        """Put Textual's originals back."""
        owner = self._class()
        for name, value in self.saved.items():
            setattr(owner, name, value)
        self.saved.clear()
        self._originals.clear()

    def original(self, name: str) -> Any:
        """Textual's own ``name`` as the class gives it (a ``classmethod`` bound to it), while applied."""
        return self._originals[name]


_installed: set[str] = set()
_warned: set[str] = set()


def textual_minor(version: str | None = None) -> str:
    """``"8.2"`` for Textual 8.2.8: the part of a version a patch is guarded by."""
    return ".".join((version or textual.__version__).split(".")[:2])


def enabled(patch: Patch) -> bool:
    """Whether ``patch`` is installed: the running Textual is the one it was written for."""
    return patch.name in _installed


def turn_on(patch: Patch, version: str | None = None) -> bool:
    """Install ``patch`` unless it is on already or was written for another Textual; say if it is on."""
    if patch.name in _installed:
        return True
    running = textual_minor(version)
    if running != patch.written_for:
        if patch.name not in _warned:  # once per process: every app of the tests installs again
            _warned.add(patch.name)
            log.warning(
                "Textual %s is not the %s that the %r patch (%s) was written for: left out, so noted "
                "runs as Textual does (slower). Check it with tests/unit/test_textual_patches.py.",
                running,
                patch.written_for,
                patch.name,
                patch.module,
            )
        return False
    if patch.swap is not None:
        patch.swap.apply()
    _installed.add(patch.name)
    return True


def turn_off(patch: Patch) -> None:
    """Put Textual's own code back for ``patch`` (nothing if it is not on)."""
    if patch.name in _installed:
        if patch.swap is not None:
            patch.swap.revert()
        _installed.discard(patch.name)
