"""Editing a note in the person's own editor (``$VISUAL``, ``$EDITOR``, else ``vi``).

The app suspends itself, this module writes the note to a temporary file, runs the editor on it
and reads it back. Saving goes through the store with the ``updated_time`` the text was based on,
so a note changed meanwhile (by the assistant, an MCP client, another window) is never
overwritten: the save is refused and the edited file is kept for the person.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from noted.errors import InvalidInputError
from noted.ops.editing import as_text_file, run_editor


@dataclass(frozen=True, slots=True)
class ExternalEdit:
    """What came back from the editor: the text and the file it is kept in."""

    text: str
    path: Path
    changed: bool


def edit_text(text: str, *, title: str, run: Callable[[Path], int] = run_editor) -> ExternalEdit:
    """Write ``text`` to a temporary Markdown file, let ``run`` edit it, and read it back as written.

    The file is left in place (the caller removes it once the text is safely saved), so an edit
    that cannot be saved is never lost; an editor that could not start leaves nothing behind.

    Raises:
        InvalidInputError: the editor exited with an error or could not be run, or what it wrote is
            not UTF-8; the file is kept.
    """
    stem = "".join(c if c.isalnum() else "-" for c in title)[:40].strip("-") or "note"
    handle, name = tempfile.mkstemp(prefix=f"noted-{stem}-", suffix=".md")
    path = Path(name)
    written = as_text_file(text)
    with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
        file.write(written)
    try:
        status = run(path)
    except InvalidInputError:  # the editor did not start: the file holds only what was written
        path.unlink(missing_ok=True)
        raise
    if status != 0:
        raise InvalidInputError(
            f"the editor exited with status {status}; nothing was saved and the text is in {path}"
        )
    try:
        edited = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"cannot read the edited file {path}: {exc}; nothing was saved") from exc
    if edited == written:  # untouched: the final newline given to the editor is not a change
        return ExternalEdit(text, path, False)
    return ExternalEdit(edited, path, True)
