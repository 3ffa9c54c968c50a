"""What a save of the editor's text reads, on every backend: the note's times and place, not its
body, which ``save_text`` was given (``base``) and the store writes over. A 39 MB note's save read
its body whole twice before the write (on Joplin, over HTTP), and the embedded store read the row
it had just written back again. The note a save returns is the one a fresh read gives.
"""

from __future__ import annotations

from tests.integration.test_save_trashed_backends import store  # noqa: F401 (a fixture, on every backend)
from tests.support.backends import LocalStore
from tests.support.counting import Counting

from noted.models import ACTOR_USER, NoteDraft
from noted.ops.editing import save_text


def test_a_save_reads_no_body_and_returns_the_note_as_stored(store: LocalStore) -> None:  # noqa: F811
    home = store.create_folder("Home", actor=ACTOR_USER)
    base = store.create_note(NoteDraft("Plan", "one\n", parent_id=home.id, is_todo=True), actor=ACTOR_USER)
    counted = Counting(store, "get_note", "get_notes")
    saved = save_text(counted.store, base, "Plan B", "one\ntwo\n", actor=ACTOR_USER)
    assert not counted.read  # not vacuous: before, the save read the note whole first
    assert saved.note is not None and saved.note == store.get_note(base.id)
    assert (saved.note.title, saved.note.body, saved.note.is_todo) == ("Plan B", "one\ntwo\n", True)
