"""``SaveLine``: the saves of one editor, on a real SQLite store, in and out of the order asked.

Two saves of the editor can be in flight at once (Ctrl+S while the editor makes way for another
note). Each test reads the store afterwards: the note's text, its conflict copies and its change
feed, so a save that met the editor's own write as a conflict, wrote older text over newer, or
kept a second copy fails it.
"""

from __future__ import annotations

import threading

from noted.models import ACTOR_USER, Note, NoteDraft, NotePatch
from noted.ops.editing import SaveLine
from noted.store.sqlite import SqliteStore

MCP = "mcp:test"
SESSION = "app-editor-test"


def _base(store: SqliteStore) -> Note:
    folder = store.create_folder("Work", actor=ACTOR_USER)
    return store.create_note(NoteDraft(title="Plan", body="as opened", parent_id=folder.id), actor=ACTOR_USER)


def _copies(store: SqliteStore) -> list[Note]:
    return [store.get_note(m.id) for m in store.list_notes() if m.title.startswith("Plan (conflict copy ")]


def _save(line: SaveLine, store: SqliteStore, ticket: int, base: Note, body: str) -> object:
    return line.save(store, ticket, base, "Plan", body, actor=ACTOR_USER, session=SESSION)


def test_a_second_save_from_the_same_version_builds_on_the_first(store: SqliteStore) -> None:
    base = _base(store)
    line = SaveLine()
    first, second = line.ticket(), line.ticket()
    one = line.save(store, first, base, "Plan", "typed", actor=ACTOR_USER, session=SESSION)
    two = line.save(store, second, base, "Plan", "typed more", actor=ACTOR_USER, session=SESSION)
    assert one.saved is not None and two.saved is not None and two.conflict is None
    assert store.get_note(base.id).body == "typed more"
    cursor = store.latest_cursor()
    again = line.save(store, line.ticket(), base, "Plan", "typed more", actor=ACTOR_USER, session=SESSION)
    assert again.saved is not None and again.saved.updated_time == two.saved.updated_time
    assert store.latest_cursor() == cursor  # the same text again writes nothing


def test_a_save_overtaken_by_a_later_one_writes_nothing_older_over_it(store: SqliteStore) -> None:
    base = _base(store)
    line = SaveLine()
    first, second = line.ticket(), line.ticket()
    later = line.save(store, second, base, "Plan", "newer", actor=ACTOR_USER, session=SESSION)
    cursor = store.latest_cursor()
    earlier = line.save(store, first, base, "Plan", "older", actor=ACTOR_USER, session=SESSION)
    assert earlier == later and store.get_note(base.id).body == "newer"
    assert store.latest_cursor() == cursor


def test_two_saves_of_a_note_deleted_meanwhile_keep_one_copy(store: SqliteStore) -> None:
    base = _base(store)
    store.trash_note(base.id, actor=MCP)
    store.empty_trash(actor=MCP)
    line = SaveLine()
    tickets = [line.ticket(), line.ticket()]
    outcomes: list[object] = []
    threads = [
        threading.Thread(target=lambda t=t: outcomes.append(_save(line, store, t, base, "mine")))
        for t in tickets
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    (copy,) = _copies(store)
    assert copy.body.endswith("\n\nmine")
    assert copy.body.startswith('> Copy of "Plan", saved ') and "was deleted elsewhere" in copy.body
    assert f"(:/{base.id})" not in copy.body  # no link to a note that no longer exists
    assert [getattr(o, "kept", None) for o in outcomes] == [copy, copy]


def test_a_change_made_elsewhere_is_still_a_conflict_and_nothing_is_written(store: SqliteStore) -> None:
    base = _base(store)
    line = SaveLine()
    assert line.save(store, line.ticket(), base, "Plan", "mine", actor=ACTOR_USER, session=SESSION).saved
    store.update_note(base.id, NotePatch(body="theirs"), actor=MCP)
    cursor = store.latest_cursor()
    outcome = line.save(store, line.ticket(), base, "Plan", "mine, more", actor=ACTOR_USER, session=SESSION)
    assert outcome.conflict is not None and outcome.conflict.theirs.body == "theirs"
    assert outcome.saved is None and outcome.kept is None
    assert store.latest_cursor() == cursor and store.get_note(base.id).body == "theirs"
