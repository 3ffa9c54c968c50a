"""Refusals in the Markdown folder that wrote anyway, and the default notebook found again.

Each test ran against the code before its fix and failed there (said per test)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.vaults import opened

from noted.errors import InvalidInputError
from noted.models import ACTOR_USER, NoteDraft, NotePatch
from noted.ops.notes import DEFAULT_NOTEBOOK, create_note, update_note


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("hi\n")
    return root


def test_a_create_refused_for_its_name_makes_no_notebook(vault: Path, tmp_path: Path) -> None:
    # Before: the Inbox folder was made and stayed; the next scan recorded it as made outside.
    (vault / ".gitignore").write_text("*.secret.md\n")
    with opened(vault, tmp_path / "p") as store:
        cursor = store.latest_cursor()
        with pytest.raises(InvalidInputError, match="gitignore"):
            create_note(store, NoteDraft(title="x.secret", body=""), actor=ACTOR_USER)
        assert not (vault / DEFAULT_NOTEBOOK).exists()
    with opened(vault, tmp_path / "p") as store:  # its scan would take in a folder left behind
        assert [f.title for f in store.list_folders()] == [vault.name]
        assert store.changes_since(cursor).changes == ()


def test_the_default_notebook_is_found_again_when_a_file_holds_its_name(vault: Path, tmp_path: Path) -> None:
    # Before: each create made another notebook ("Inbox 2", "Inbox 3"…), as it looked for "Inbox".
    (vault / DEFAULT_NOTEBOOK).write_text("a file, not a folder\n")
    with opened(vault, tmp_path / "p") as store:
        first = create_note(store, NoteDraft(title="a", body=""), actor=ACTOR_USER)
        second = create_note(store, NoteDraft(title="b", body=""), actor=ACTOR_USER)
        assert (first.notebook_created, second.notebook_created) == (True, False)
        assert second.note.parent_id == first.note.parent_id
    with opened(vault, tmp_path / "p") as store:  # found again by a fresh start too
        third = create_note(store, NoteDraft(title="c", body=""), actor=ACTOR_USER)
        assert third.note.parent_id == first.note.parent_id
    assert sorted(p.name for p in vault.iterdir()) == [DEFAULT_NOTEBOOK, f"{DEFAULT_NOTEBOOK} 2", "a.md"]


def test_a_save_past_the_size_the_folder_reads_is_refused_writing_nothing(
    vault: Path, tmp_path: Path
) -> None:
    # Before: the 5.4 MB save was written (and said done); after it the note was skipped as larger
    # than 5 MB, and every edit of it refused.
    big, bigger = "x" * 4_800_000 + "\n", "y" * 5_400_000 + "\n"
    with opened(vault, tmp_path / "p") as store:
        note = create_note(store, NoteDraft(title="Big", body=big), actor=ACTOR_USER).note
        (path,) = vault.rglob("Big.md")
        before = path.read_bytes()
        with pytest.raises(InvalidInputError, match="larger than 5 MB") as refused:
            update_note(store, note.id, NotePatch(body=bigger), actor=ACTOR_USER)
        assert "\n" not in str(refused.value)
        with pytest.raises(InvalidInputError, match="larger than 5 MB"):
            create_note(store, NoteDraft(title="Bigger", body=bigger), actor=ACTOR_USER)
        assert path.read_bytes() == before and not list(vault.rglob("Bigger.md"))
        update_note(store, note.id, NotePatch(append="still editable"), actor=ACTOR_USER)
        assert store.get_note(note.id).body.endswith("still editable\n")


def test_a_note_named_as_an_ignored_file_is_refused_as_when_the_name_is_free(
    vault: Path, tmp_path: Path
) -> None:
    """A name ``.gitignore`` ignores is refused when free, but when an ignored file held it the
    note went to ``x 2.md`` (titled "x" in its front matter): the hidden file decided. Now both are
    refused alike, nothing written. Not vacuous: a name held by a file noted follows still gets
    ``a 2.md``."""
    (vault / ".gitignore").write_text("x.md\n")
    (vault / "x.md").write_text("private\n")
    with opened(vault, tmp_path / "p") as store:
        root = store.list_folders()[0].id
        cursor = store.latest_cursor()
        with pytest.raises(InvalidInputError, match="gitignore"):
            store.create_note(NoteDraft(title="x", body="", parent_id=root), actor=ACTOR_USER)
        other = store.create_note(NoteDraft(title="b", body="", parent_id=root), actor=ACTOR_USER)
        with pytest.raises(InvalidInputError, match="gitignore"):
            update_note(store, other.id, NotePatch(title="x"), actor=ACTOR_USER)
        assert sorted(p.name for p in vault.iterdir()) == [".gitignore", "a.md", "b.md", "x.md"]
        assert [c.item_id for c in store.changes_since(cursor).changes] == [other.id]
        same = store.create_note(NoteDraft(title="a", body="", parent_id=root), actor=ACTOR_USER)
        assert store.note_paths()[same.id] == "a 2.md"


@pytest.mark.parametrize("title", [".", "..", "..."])
def test_a_notebook_named_only_dots_is_refused_saying_why(vault: Path, tmp_path: Path, title: str) -> None:
    # Before: creating one said "a notebook needs a title" (one was given) and renaming one to it said
    # '"" exists already in the Markdown folder'; a folder cannot be named so (or is hidden).
    from noted.ops.notebooks import create_notebook, update_notebook

    with opened(vault, tmp_path / "p") as store:
        kept = create_notebook(store, "Kept", actor=ACTOR_USER)
        cursor = store.latest_cursor()
        with pytest.raises(InvalidInputError, match=f'cannot take the name "{title}".*letter or a digit'):
            create_notebook(store, title, actor=ACTOR_USER)
        with pytest.raises(InvalidInputError, match=f'cannot take the name "{title}".*letter or a digit'):
            update_notebook(store, kept.id, title=title, actor=ACTOR_USER)
        assert store.changes_since(cursor).changes == ()
        assert store.get_folder(kept.id).title == "Kept"
    assert sorted(p.name for p in vault.iterdir()) == ["Kept", "a.md"]
