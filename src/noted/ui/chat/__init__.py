"""The chat pane: streaming answers, tool-call disclosures, edit proposals, saved conversations."""

from __future__ import annotations

from noted.ui.chat.pane import ChatPane

__all__ = ["ChatPane"]
