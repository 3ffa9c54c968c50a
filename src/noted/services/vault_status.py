"""What ``noted.services.Services.vault_status`` tells of a Markdown folder (``noted vault status``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class VaultStatus:
    """``noted vault status``: the Markdown folder, what noted holds of it, and the files it skips."""

    root: str
    notes: int
    notebooks: int
    skipped: tuple[tuple[str, str], ...]
    """(path, reason) of each file noted reads nothing from and never writes."""
    unread_front: tuple[tuple[str, str], ...] = ()
    """(path, problem) of each note whose front matter does not parse: its body is read, its
    title, tags and to-do are not (and noted writes no key into it)."""
    ignored_times: tuple[tuple[str, str], ...] = ()
    """(path, problem) of each front-matter time noted ignores: not a date, or out of its range."""
