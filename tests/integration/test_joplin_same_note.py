"""Two noted processes on one Joplin profile writing the same note at once (the app and
``noted edit --append``, an AI app's MCP server): neither's save is written over by the other.

Joplin's Data API has no conditional write, so each store reads the note and puts it back; the
test makes the second writer run its whole save between the first one's read and its write, the
order two processes can take by chance.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.joplin import JoplinServer, shared_server

from noted.models import NoteDraft, NotePatch
from noted.store.joplin import JoplinStore

pytestmark = pytest.mark.slow


@pytest.fixture
def pair(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> Iterator[tuple[JoplinStore, JoplinStore]]:
    joplin: JoplinServer = shared_server(tmp_path_factory.getbasetemp())
    first, second = joplin.store(tmp_path / "profile"), joplin.store(tmp_path / "profile")
    yield first, second
    first.close()
    second.close()


def _meanwhile(store: JoplinStore, other: threading.Thread) -> None:
    """Start ``other`` right after ``store`` next reads a note, and give it time to finish."""
    api = store.notes.api
    read = api.note_item

    def note_item(*args: Any, **kwargs: Any) -> Any:
        item = read(*args, **kwargs)
        api.note_item = read  # type: ignore[method-assign]
        other.start()
        other.join(timeout=3)  # (it waits for this save with the fix: this wait is then its only cost)
        return item

    api.note_item = note_item  # type: ignore[method-assign]


@pytest.mark.parametrize("based", [False, True])
def test_a_save_landing_between_anothers_read_and_write_is_kept(
    pair: tuple[JoplinStore, JoplinStore], based: bool
) -> None:
    """``noted edit --append`` from two processes at once: both said "saved", and the note kept
    one line (the other only in the history); an editor's save, based on the text it read, was not
    refused either, and wrote over the other. Now the second waits for the first and lands on its
    text. Not vacuous: the second save runs between the
    first one's read and its write, which, unguarded, writes over it."""
    first, second = pair
    folder = first.create_folder("Same note", actor="user")
    note = first.create_note(NoteDraft("Shared", "start\n", folder.id), actor="user")
    done: list[object] = []

    def other() -> None:
        try:
            done.append(
                second.update_note(note.id, NotePatch(append="from the other process\n"), actor="user")
            )
        except Exception as exc:  # (shown by the assertion below)
            done.append(exc)

    thread = threading.Thread(target=other)
    _meanwhile(first, thread)
    if based:  # (the editor's save: based on the text it showed)
        first.update_note(
            note.id, NotePatch(body="start\nmine\n"), actor="user", base_updated_time=note.updated_time
        )
    else:
        first.update_note(note.id, NotePatch(append="from this process\n"), actor="user")
    thread.join()
    assert len(done) == 1 and not isinstance(done[0], Exception), done
    mine = "start\nmine\n" if based else "start\nfrom this process\n"
    assert first.get_note(note.id).body == mine + "from the other process\n"
    assert {r.body for r in first.note_history(note.id)} >= {mine, mine + "from the other process\n"}
