"""The note list's check of a few marked notes agrees with the listing it saves reading, on every backend.

``still_listed`` tells, note by note, which notes a source lists, so that a refresh need not read a
list of thousands to learn whether a marked note left it. It must say what ``load_page`` would.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend

from noted.models import ACTOR_IMPORT, NoteDraft
from noted.store.protocol import NoteOrder
from noted.ui.data import ALL_NOTES, NoteSource, SourceKind, load_page, still_listed


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def test_still_listed_says_what_the_listing_says_for_every_kind_of_list(backend_store: LocalStore) -> None:
    store = backend_store
    work = store.create_folder("Work", actor=ACTOR_IMPORT)
    home = store.create_folder("Home", actor=ACTOR_IMPORT)
    todo = store.create_note(NoteDraft(title="todo", parent_id=work.id, is_todo=True), actor=ACTOR_IMPORT)
    plain = store.create_note(NoteDraft(title="plain", parent_id=home.id), actor=ACTOR_IMPORT)
    gone = store.create_note(NoteDraft(title="gone", parent_id=work.id), actor=ACTOR_IMPORT)
    (tag,) = store.tag_note(plain.id, ["plan"], actor=ACTOR_IMPORT)
    store.tag_note(gone.id, ["plan"], actor=ACTOR_IMPORT)
    store.trash_note(gone.id, actor=ACTOR_IMPORT)
    ids = {todo.id, plain.id, gone.id, "0" * 32}  # and a note that is not there at all
    sources = [
        ALL_NOTES,
        NoteSource(SourceKind.FOLDER, work.id),
        NoteSource(SourceKind.FOLDER, home.id),
        NoteSource(SourceKind.TAG, tag.id),
        NoteSource(SourceKind.TODOS),
        NoteSource(SourceKind.TRASH),
    ]
    said = {}
    for source in sources:
        listed = {row.meta.id for row in load_page(store, source, NoteOrder.UPDATED, 0, 100).rows}
        said[source.key] = still_listed(store, source, ids)
        assert said[source.key] == listed & ids, source
    # Not vacuous: each note is listed by some sources and not by others.
    assert len({frozenset(found or ()) for found in said.values()}) >= 4
    assert still_listed(store, NoteSource(SourceKind.SEARCH, "plain"), ids) is None  # only a search tells
