"""How two versions of a note are shown to a person: a unified diff of their title and body, and
where the first change is. The conflict view, the review, the history and Joplin's sync conflicts
all show them this way."""

from __future__ import annotations

import difflib

DIFF_CONTEXT = 5
"""Unchanged lines the conflict view shows around each change: enough to tell where in the note it
is (with 2, a change showed as some 5 lines, too few to judge a conflict by). Its sides scroll to
the first change; the review's short diffs keep the default 2, so the change itself is in view."""


def text_diff(
    old: tuple[str, str] | None, new: tuple[str, str], labels: tuple[str, str], context: int = 2
) -> str:
    """A unified diff of two (title, body) versions of a note, the title as a ``#`` first line
    (unless the body opens with it, as a Markdown folder's note does), ``context`` unchanged lines
    around each change; ``old`` None: no note before, every line added."""
    old_lines = [] if old is None else _diff_lines(*old)
    new_lines = _diff_lines(*new)
    lines = difflib.unified_diff(old_lines, new_lines, labels[0], labels[1], n=context)
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return text or "(no change)\n"


def first_changed_line(old: str, new: str) -> int | None:
    """The first line of ``new`` (0-based) where it differs from ``old``; None for the same text."""
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    for tag, _, _, j1, _ in matcher.get_opcodes():
        if tag != "equal":
            return j1
    return None


def _diff_lines(title: str, body: str) -> list[str]:
    lines = body.splitlines(keepends=True)
    heading = f"# {title}"
    return lines if lines and lines[0].rstrip("\r\n") == heading else [heading + "\n", *lines]
