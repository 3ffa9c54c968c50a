"""A note whose title is as long as a title may be (``MAX_TITLE``, 1,000 characters): what noted
writes of it itself still fits. On the embedded store, a Markdown folder and a real Joplin.

Not vacuous: *Keep both* titled the conflict copy "<title> (conflict copy <time>)", 1,033
characters, which the store refused: the person, who typed no title, was told "a title may have at
most 1000 characters" and neither side was kept as a note.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import open_backend

from noted.models import ACTOR_USER, NoteDraft, NotePatch, mcp_actor
from noted.ops.conflicts import Choice, Conflict, resolve
from noted.store.protocol import Store
from noted.store.rules import MAX_TITLE


@pytest.fixture(params=("sqlite", "vault", "joplin"))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def test_keep_both_of_a_note_with_the_longest_title_keeps_both(store: Store) -> None:
    title = "Minutes " + "x" * (MAX_TITLE - len("Minutes "))
    folder = store.create_folder("Work", actor=ACTOR_USER)
    base = store.create_note(NoteDraft(title, "one\n", parent_id=folder.id), actor=ACTOR_USER)
    store.update_note(base.id, NotePatch(body="one\ntheirs\n"), actor=mcp_actor("x"))
    conflict = Conflict.read(store, base, title, "one\nmine\n")

    resolved = resolve(store, conflict, Choice.KEEP_BOTH, actor=ACTOR_USER)

    assert resolved.copy is not None and resolved.copy.body.endswith("one\nmine\n")
    assert len(resolved.copy.title) <= MAX_TITLE
    assert resolved.copy.title.startswith("Minutes xxx") and "(conflict copy " in resolved.copy.title
    assert store.get_note(base.id).title == title  # the note keeps its own
