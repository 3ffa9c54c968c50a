"""noted: a terminal notebook with an assistant."""

from __future__ import annotations

__version__ = "0.1.0"
