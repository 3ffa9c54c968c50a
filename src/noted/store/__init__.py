"""Storage: the ``Store`` protocol and its backends."""

from __future__ import annotations

from noted.store.protocol import Capabilities, NoteOrder, Store

__all__ = ["Capabilities", "NoteOrder", "Store"]
