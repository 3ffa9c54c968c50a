"""Words that count things, shared by the app and the command line."""

from __future__ import annotations


def plural(count: int, word: str) -> str:
    """``1 note``, ``2 notes``, ``1,024 notes`` (``word`` takes an s)."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"
