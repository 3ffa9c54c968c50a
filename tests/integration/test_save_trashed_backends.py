"""A save of edited text meeting a note moved to the trash meanwhile, on every backend.

Trashing leaves a note's ``updated_time`` as it was, so a save based on it used to be taken: the
person was told "saved" of a note now out of sight in the trash. It is a change made meanwhile
like any other now: nothing is written, and the conflict is settled as the app's conflict view and
``noted edit`` settle it, each way saying the note stays in the trash. Not vacuous: each test reads
the note back from the store (its body and its trash state) after the save.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend

from noted.models import ACTOR_USER, Note, NoteDraft
from noted.ops.conflicts import Choice, Conflict, resolve
from noted.ops.editing import SaveLine, save_text

MCP = "mcp:test"


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def _opened(store: LocalStore) -> Note:
    home = store.create_folder("Home", actor=ACTOR_USER)
    return store.create_note(NoteDraft("Plan", "theirs\n", parent_id=home.id), actor=ACTOR_USER)


def test_a_save_into_a_note_trashed_meanwhile_is_a_conflict(store: LocalStore) -> None:
    base = _opened(store)
    store.trash_note(base.id, actor=MCP)
    saved = save_text(store, base, None, "mine\n", actor=ACTOR_USER)
    assert saved.conflict
    now = store.get_note(base.id)
    assert now.is_trashed and now.body == "theirs\n"  # nothing written into the trashed note
    outcome = SaveLine().save(store, 1, base, "Plan", "mine\n", actor=ACTOR_USER, session="s")
    assert outcome.conflict is not None and outcome.conflict.theirs.is_trashed


@pytest.mark.parametrize("choice", [Choice.KEEP_BOTH, Choice.THEIRS, Choice.OVERWRITE])
def test_each_way_out_keeps_the_text_and_says_the_note_stays_in_the_trash(
    store: LocalStore, choice: Choice
) -> None:
    base = _opened(store)
    store.trash_note(base.id, actor=MCP)
    resolved = resolve(store, Conflict.read(store, base, "Plan", "mine\n"), choice, actor=ACTOR_USER)
    note = store.get_note(base.id)
    assert note.is_trashed
    if choice is Choice.KEEP_BOTH:
        assert resolved.copy is not None and "the note stays in the trash" in resolved.message
        copy = store.get_note(resolved.copy.id)
        assert not copy.is_trashed and copy.parent_id == base.parent_id and copy.body.endswith("\n\nmine\n")
        assert "was moved to the trash while this text was being edited" in copy.body.splitlines()[0]
    else:
        assert resolved.message.endswith(" The note stays in the trash.")
        kept = note.body if choice is Choice.OVERWRITE else store.note_history(base.id)[1].body
        assert kept == "mine\n"


def test_a_note_opened_in_the_trash_is_saved_there(store: LocalStore) -> None:
    first = _opened(store)
    store.trash_note(first.id, actor=ACTOR_USER)
    base = store.get_note(first.id)
    saved = save_text(store, base, None, "edited in the trash\n", actor=ACTOR_USER)
    assert saved.note is not None and saved.note.is_trashed
    assert store.get_note(base.id).body == "edited in the trash\n"
