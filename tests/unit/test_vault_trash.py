"""The Markdown folder's ``.trash/``: a trashed note's file edited there by another program is the
note's text, as any file of the folder is (``noted.store.vault.trash``), and never overwritten.

Before, ``.trash/`` was not followed: a write to the trashed note (a model's, an undo's) replaced
the edited file without a trace, and a restore put the old title back over an edited heading."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.polling import wait_for
from tests.support.tools_env import make_env
from tests.support.vaults import by_title, git, opened

from noted.errors import ConflictError, InvalidInputError
from noted.models import ACTOR_OUTSIDE, ACTOR_USER, NotePatch
from noted.ops.batch_capture import capture, settled
from noted.ops.batch_undo import restore

EDITED = "# Plan B\n\nWritten in the trash by an editor.\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "projects").mkdir(parents=True)
    (root / "projects" / "plan.md").write_text("# Plan\n\nFirst step.\n")
    git(root, "init", "-q")
    return root


def test_a_write_to_a_trashed_note_meets_the_edit_made_in_the_trash(vault: Path, tmp_path: Path) -> None:
    with opened(vault, tmp_path / "p") as store:
        plan = by_title(store, "Plan")
        store.trash_note(plan, actor=ACTOR_USER)
        trashed = vault / ".trash" / "projects" / "plan.md"
        read = store.get_note(plan)  # as a model read it, before the edit
        trashed.write_text(EDITED)
        with pytest.raises(ConflictError):  # a write based on what it read: refused, the edit kept
            store.update_note(
                plan, NotePatch(body="Model.\n"), actor="assistant:c", base_updated_time=read.updated_time
            )
        assert trashed.read_text() == EDITED
        assert (store.note_history(plan)[0].actor, store.get_note(plan).title) == (ACTOR_OUTSIDE, "Plan B")
        # A write asking for no base replaces it, the edit kept in the history first, as anywhere.
        store.update_note(plan, NotePatch(body="Model.\n"), actor="assistant:c")
        assert [r.actor for r in store.note_history(plan)][:2] == ["assistant:c", ACTOR_OUTSIDE]
        assert store.note_history(plan)[1].body == EDITED and store.get_note(plan).is_trashed


def test_a_restore_brings_back_the_text_and_title_edited_in_the_trash(vault: Path, tmp_path: Path) -> None:
    """The heading edited in .trash/ was written back to the old title by the restore."""
    with opened(vault, tmp_path / "p") as store:
        plan = by_title(store, "Plan")
        notebook = store.get_note(plan).parent_id
        store.trash_note(plan, actor=ACTOR_USER)
        (vault / ".trash" / "projects" / "plan.md").write_text(EDITED)
        restored = store.restore_note(plan, actor=ACTOR_USER)
        assert (restored.title, restored.body) == ("Plan B", EDITED)
        assert (vault / "projects" / "plan.md").read_text() == EDITED
        store.trash_folder(notebook, actor=ACTOR_USER)  # a notebook's restore, likewise
        (vault / ".trash" / "projects" / "plan.md").write_text(EDITED.replace("B", "C"))
        store.restore_folder(notebook, actor=ACTOR_USER)
        assert store.get_note(plan).title == "Plan C"
        assert (vault / "projects" / "plan.md").read_text() == EDITED.replace("B", "C")


def test_an_edit_in_the_trash_is_followed_and_emptying_the_trash_keeps_its_file(
    vault: Path, tmp_path: Path
) -> None:
    with opened(vault, tmp_path / "p") as store:
        plan = by_title(store, "Plan")
        store.trash_note(plan, actor=ACTOR_USER)
    trashed = vault / ".trash" / "projects" / "plan.md"
    trashed.write_text(EDITED)  # while noted was closed
    with opened(vault, tmp_path / "p") as store:
        note = store.get_note(plan)
        assert (note.title, note.body, note.is_trashed) == ("Plan B", EDITED, True)
        assert store.note_history(plan)[0].actor == ACTOR_OUTSIDE
        # Followed, yet not noted's: the file and its note stay (the revisions would go with it).
        assert store.empty_trash(actor=ACTOR_USER) == 0 and trashed.read_text() == EDITED
        trashed.write_text("# Plan\n\nFirst step.\n")  # put back as noted left it: followed too
        store.follower.scan()
        assert store.get_note(plan).body == "# Plan\n\nFirst step.\n"
        store.start_watching()  # and while noted runs
        trashed.write_text(EDITED + "More.\n")
        wait_for(lambda: store.get_note(plan).body == EDITED + "More.\n", what="the edit in .trash/ followed")
        assert store.get_note(plan).is_trashed and store.empty_trash(actor=ACTOR_USER) == 0
        assert trashed.exists()


def test_a_trashed_notes_file_deleted_from_the_trash_is_written_back_by_a_restore(
    vault: Path, tmp_path: Path
) -> None:
    """The restore moved a file that was no longer there: a FileNotFoundError, nothing restored."""
    with opened(vault, tmp_path / "p") as store:
        plan = by_title(store, "Plan")
        store.trash_note(plan, actor=ACTOR_USER)
        (vault / ".trash" / "projects" / "plan.md").unlink()  # the editor emptied its trash
        restored = store.restore_note(plan, actor=ACTOR_USER)
        assert not restored.is_trashed
        assert (vault / "projects" / "plan.md").read_text() == "# Plan\n\nFirst step.\n"


async def test_an_undo_of_a_models_batch_keeps_the_edit_made_in_the_trash_since(
    vault: Path, tmp_path: Path
) -> None:
    """The undo compared the mirror, which had not seen the edit, and wrote the note back over it."""
    with opened(vault, tmp_path / "p") as store:
        env = make_env(store, tmp_path, enabled=("update_note", "delete_note"))
        plan = by_title(store, "Plan")
        calls: list[tuple[str, dict[str, object]]] = [
            ("update_note", {"id": plan, "append": "A model's line."}),
            ("delete_note", {"id": plan}),
        ]
        before = capture(store, notes=[plan])
        results = await env.registry.call_together(calls, env.ctx, before)
        assert all(r.ok for r in results), results
        batch = settled(store, before, env.ctx.actor)
        trashed = vault / ".trash" / "projects" / "plan.md"
        trashed.write_text(EDITED)
        undone = restore(store, batch, actor=ACTOR_USER)
        assert undone.kept == ('note "Plan"',)  # (named as the undo found it)
        assert trashed.read_text() == EDITED and store.get_note(plan).body == EDITED


def test_a_link_written_into_a_trashed_note_still_leads_there_once_it_is_restored(
    vault: Path, tmp_path: Path
) -> None:
    """A trashed note's file keeps its links as they were in its folder (a restore moves it back
    unchanged), so a ``:/id`` link written meanwhile is one from there too. Not vacuous: before, it
    was written from ``.trash/projects/``, ``../../img/a.png``, which leads nowhere once restored;
    and it is read back as ``:/id`` both in the trash and after."""
    (vault / "img").mkdir()
    (vault / "img" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (vault / "projects" / "other.md").write_text("# Other\n\n![](../img/a.png)\n")
    with opened(vault, tmp_path / "p") as store:
        plan, other = by_title(store, "Plan"), by_title(store, "Other")
        [image] = store.list_resources(note_id=other)
        store.trash_note(plan, actor=ACTOR_USER)
        store.update_note(plan, NotePatch(append=f"![](:/{image.id}) [o](:/{other})"), actor=ACTOR_USER)
        assert "](../img/a.png) [o](other.md)" in (vault / ".trash" / "projects" / "plan.md").read_text()
        assert [r.id for r in store.list_resources(note_id=plan)] == [image.id]  # read back in the trash
        store.restore_note(plan, actor=ACTOR_USER)
        assert "](../img/a.png) [o](other.md)" in (vault / "projects" / "plan.md").read_text()
        assert [r.id for r in store.list_resources(note_id=plan)] == [image.id]


@pytest.mark.parametrize("change", ["grown", "link"])
def test_emptying_the_trash_keeps_a_file_it_cannot_check(vault: Path, tmp_path: Path, change: str) -> None:
    """A file in .trash/ changed into one noted does not read (over 5 MB, a symbolic link) is the
    person's: it stays. (It was deleted: a file that could not be checked counted as unchanged.)"""
    with opened(vault, tmp_path / "p") as store:
        plan = by_title(store, "Plan")
        store.trash_note(plan, actor=ACTOR_USER)
        trashed = vault / ".trash" / "projects" / "plan.md"
        if change == "grown":
            with trashed.open("a") as fh:
                fh.write("my text\n" + "x" * 5_100_000 + "\n")
        else:
            (tmp_path / "mine.md").write_text("my own file\n")
            trashed.unlink()
            trashed.symlink_to(tmp_path / "mine.md")
        store.empty_trash(actor=ACTOR_USER)
        assert trashed.is_symlink() if change == "link" else trashed.stat().st_size > 5_000_000
        assert (tmp_path / "mine.md").exists() or change == "grown"


def test_a_restore_meeting_a_link_in_the_trash_names_the_file(vault: Path, tmp_path: Path) -> None:
    with opened(vault, tmp_path / "p") as store:
        plan = by_title(store, "Plan")
        store.trash_note(plan, actor=ACTOR_USER)
        trashed = vault / ".trash" / "projects" / "plan.md"
        (tmp_path / "mine.md").write_text("# Plan\n\nFirst step.\n")
        trashed.unlink()
        trashed.symlink_to(tmp_path / "mine.md")
        with pytest.raises(InvalidInputError) as refused, store.batch():  # (as the CLI runs it)
            store.restore_note(plan, actor=ACTOR_USER)
        assert '".trash/projects/plan.md"' in refused.value.message and refused.value.hint
        assert trashed.is_symlink() and store.get_note(plan).is_trashed  # nothing changed


def test_emptying_the_trash_keeps_a_file_another_program_moved_there(vault: Path, tmp_path: Path) -> None:
    """A note's file moved into .trash/ at its own path by the person (or their editor) is followed
    there as that note trashed, but noted did not put it there: emptying the trash deleted it, as
    its bytes were those noted last read. Not vacuous: a file noted moved there itself goes."""
    (vault / "mine.md").write_text("mine\n")
    with opened(vault, tmp_path / "p") as store:
        mine, plan = by_title(store, "mine"), by_title(store, "Plan")
    (vault / ".trash").mkdir()
    (vault / "mine.md").rename(vault / ".trash" / "mine.md")  # while noted was closed
    with opened(vault, tmp_path / "p") as store:
        assert store.get_note(mine).is_trashed
        store.trash_note(plan, actor=ACTOR_USER)
        assert store.empty_trash(actor=ACTOR_USER) == 1  # the note noted trashed, its file with it
        assert not (vault / ".trash" / "projects" / "plan.md").exists()
        assert (vault / ".trash" / "mine.md").read_text() == "mine\n"
        assert store.get_note(mine).is_trashed  # kept in the trash: restore it, or delete the file
        store.restore_note(mine, actor=ACTOR_USER)
        assert (vault / "mine.md").read_text() == "mine\n" and not (vault / ".trash" / "mine.md").exists()


def _tree(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".git" not in p.parts)


@pytest.mark.parametrize("trashed", [False, True])
def test_a_failed_batch_that_trashed_or_restored_a_notebook_leaves_the_folders_as_they_were(
    vault: Path, tmp_path: Path, trashed: bool
) -> None:
    """Trashing a notebook removes its emptied folders (and a restore the emptied ones of
    ``.trash/``); a later step of the batch failed and the files could not go back (their folder
    gone): they stayed where the rolled-back rows did not say, and the next trash of the notebook
    raised a FileNotFoundError. Not vacuous: the folders are gone inside the batch, and the
    notebook's empty sub-folder (no note to move back) must come back too."""
    (vault / "projects" / "later").mkdir()
    with opened(vault, tmp_path / "p") as store:
        plan = by_title(store, "Plan")
        book = store.get_note(plan).parent_id
        if trashed:
            store.trash_folder(book, actor=ACTOR_USER)
        before = _tree(vault)
        with pytest.raises(RuntimeError), store.batch():
            (store.restore_folder if trashed else store.trash_folder)(book, actor=ACTOR_USER)
            assert _tree(vault) != before
            raise RuntimeError("a later step of the batch")
        assert _tree(vault) == before
        assert store.get_folder(book).is_trashed == trashed
        (store.restore_folder if trashed else store.trash_folder)(book, actor=ACTOR_USER)
        assert store.get_note(plan).is_trashed != trashed
        where = vault / "projects" / "plan.md"
        assert store.note_path(plan) == (where if trashed else vault / ".trash" / "projects" / "plan.md")
