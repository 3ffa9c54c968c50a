"""A Markdown folder's trashing and restoring (of a note, of a notebook) killed (SIGKILL) between
moving a file and committing its rows: the next start puts the moves back with the rows, rather than
taking the files it finds in ``.trash/`` (or back from it) for another program's doing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.cli import env_with_src
from tests.support.vaults import fresh, opened

from noted.models import ACTOR_OUTSIDE, NoteDraft, NotePatch
from noted.ops.notebooks import create_notebook, trash_notebook
from noted.ops.notes import create_note, trash_note, update_note
from noted.store.vault import VaultStore

KILL_AT_MOVE = """
import os, signal, sys
from pathlib import Path

real, done, after = os.rename, [], int(sys.argv[1])

def rename(src, dst):
    real(src, dst)
    if str(dst).endswith(".md"):
        done.append(dst)
        if len(done) == after:
            os.kill(os.getpid(), signal.SIGKILL)  # this note's file moved; its rows not committed

os.rename = rename
"""

CLI = (
    KILL_AT_MOVE
    + """
from noted.cli import main
main(sys.argv[2:])
"""
)

STORE = (
    KILL_AT_MOVE
    + """
from noted.store.vault import VaultStore
store = VaultStore.open(Path(sys.argv[2]), Path(sys.argv[3]))
getattr(store, sys.argv[4])(sys.argv[5], actor="user")
"""
)


def _killed(code: str, *args: str) -> None:
    run = subprocess.run([sys.executable, "-c", code, *args], env=env_with_src(), check=False)
    assert run.returncode == -9


def _outside(store: VaultStore) -> list[str]:
    """The items the change feed says another program changed (``noted changes`` lists them)."""
    changes = store.changes_since(0, limit=10_000).changes
    return [c.item_id for c in changes if c.actor == ACTOR_OUTSIDE]


def _review(vault: Path, profile: Path) -> tuple[list[str], list[str]]:
    """``noted changes`` for the folder, as arguments, and the ids of the changes it lists."""
    review = ["--profile", str(profile), "--vault", str(vault), "--json", "changes"]
    listed = subprocess.run(
        [sys.executable, "-m", "noted", *review],
        env=env_with_src(),
        capture_output=True,
        text=True,
        check=True,
    )
    return review, sorted(str(e["id"]) for e in json.loads(listed.stdout))


def test_a_revert_of_made_notes_killed_at_a_move_is_not_credited_to_outside(tmp_path: Path) -> None:
    """An MCP client made 6 notes; ``noted changes revert`` trashes them, one after the other, and
    was killed once the 3rd note's file was in ``.trash/``: the next start said another program
    trashed it (``outside trashed``, to review). Not vacuous: the file is in ``.trash/`` before
    the start, and the first two reverts committed (their notes trashed by the person)."""
    vault, profile = fresh(tmp_path, {"kept.md": "# Kept\n\nMine.\n"})
    with opened(vault, profile) as store:
        parent = store.list_folders()[0].id
        made = [
            create_note(store, NoteDraft(f"Made {n}", f"Text {n}.\n", parent), actor="mcp:c1").note.id
            for n in range(6)
        ]
    review, ids = _review(vault, profile)
    assert len(ids) == 6
    _killed(CLI, "3", *review, "revert", *ids)
    assert len(list((vault / ".trash").rglob("*.md"))) == 3
    with opened(vault, profile) as store:
        assert _outside(store) == []
        trashed = {m.id for m in store.list_notes(trashed=True)}
        assert len(trashed) == 2 and trashed < set(made)  # the 3rd's revert rolled back whole
        for meta in store.list_notes(trashed=True):
            assert store.note_path(meta.id).is_relative_to(vault / ".trash")
        for note_id in set(made) - trashed:
            assert store.note_path(note_id).parent == vault and store.note_path(note_id).exists()
    assert not (profile / "vault-moves.log").exists()


def _notebook(tmp_path: Path, *, trashed: bool) -> tuple[Path, Path, str, list[str]]:
    vault, profile = tmp_path / "notes", tmp_path / "profile"
    vault.mkdir()
    with opened(vault, profile) as store:
        book = create_notebook(store, "Work", actor="user").id
        notes = [
            create_note(store, NoteDraft(f"W{n}", f"Work {n}.\n", book), actor="user").note.id
            for n in range(5)
        ]
        if trashed:
            trash_notebook(store, book, actor="user")
    return vault, profile, book, notes


def test_a_notebook_trashed_and_killed_half_way_through_its_notes_is_undone_whole(tmp_path: Path) -> None:
    """Trashing a notebook of 5 notes, killed after its 3rd note's file moved: 3 notes came back
    trashed by ``outside`` and 2 stayed in the notebook. Not vacuous: 3 files are in ``.trash/``
    before the start."""
    vault, profile, book, notes = _notebook(tmp_path, trashed=False)
    _killed(STORE, "3", str(vault), str(profile), "trash_folder", book)
    assert len(list((vault / ".trash").rglob("*.md"))) == 3
    with opened(vault, profile) as store:
        assert _outside(store) == []
        assert not store.get_folder(book).is_trashed
        assert [m.id for m in store.list_notes(trashed=True)] == []
        assert len(list((vault / "Work").glob("*.md"))) == 5


def test_a_notebook_restored_and_killed_half_way_through_its_notes_is_undone_whole(tmp_path: Path) -> None:
    """Restoring a trashed notebook of 5 notes, killed after its 3rd note's file moved back: the
    next start took those 3 files for notes another program brought back. Not vacuous: 3 files
    are back in the notebook's folder before the start."""
    vault, profile, book, notes = _notebook(tmp_path, trashed=True)
    _killed(STORE, "3", str(vault), str(profile), "restore_folder", book)
    assert len(list((vault / "Work").glob("*.md"))) == 3
    with opened(vault, profile) as store:
        assert _outside(store) == []
        assert store.get_folder(book).is_trashed
        assert len(store.list_notes(trashed=True)) == 5
        assert len(list((vault / ".trash").rglob("*.md"))) == 5


def test_a_note_trashed_alone_and_killed_at_its_move_stays_where_it_was(tmp_path: Path) -> None:
    """The store's own ``trash_note`` (as a revert calls it), killed once its file moved. Not
    vacuous: the file is in ``.trash/`` before the start."""
    vault, profile, _, notes = _notebook(tmp_path, trashed=False)
    _killed(STORE, "1", str(vault), str(profile), "trash_note", notes[0])
    assert len(list((vault / ".trash").rglob("*.md"))) == 1
    with opened(vault, profile) as store:
        assert _outside(store) == [] and store.list_notes(trashed=True) == []
        trash_note(store, notes[0], actor="user")  # and it can be trashed after all
        assert store.note_path(notes[0]).is_relative_to(vault / ".trash")


KILL_AT_WRITE = """
import os, signal, sys
from pathlib import Path
from noted.store.vault import VaultStore

store = VaultStore.open(Path(sys.argv[1]), Path(sys.argv[2]))
real = os.replace

def replace(src, dst):
    real(src, dst)
    if str(dst).endswith(".md"):
        os.kill(os.getpid(), signal.SIGKILL)  # the note's file written; its rows not committed

os.replace = replace
store.tag_note(sys.argv[3], ["urgent"], actor="assistant:c1")
"""


def test_a_note_tagged_alone_and_killed_after_its_write_is_credited_to_who_tagged_it(tmp_path: Path) -> None:
    """The store's own ``tag_note`` (as a revert calls it) is one note's save: the file kept, and
    taken in at the next start as the tagger's, not another program's. Not vacuous: the file
    carries the tag before the start."""
    vault, profile, _, notes = _notebook(tmp_path, trashed=False)
    _killed(KILL_AT_WRITE, str(vault), str(profile), notes[0])
    assert "urgent" in (vault / "Work" / "W0.md").read_text()
    with opened(vault, profile) as store:
        assert _outside(store) == []
        assert [t.title for t in store.note_tags(notes[0])] == ["urgent"]


def test_a_revert_of_a_retitle_killed_at_its_move_is_not_credited_to_outside(tmp_path: Path) -> None:
    """An MCP client retitled "Plan" to "Roadmap" (its file renamed with it); ``noted changes
    revert`` renames the file back, then writes it, and was killed between the two: the next start
    recorded the rename as another program's. Not vacuous: the file is back at ``Plan.md`` before
    the start."""
    vault, profile = tmp_path / "notes", tmp_path / "profile"
    vault.mkdir()
    with opened(vault, profile) as store:
        parent = store.list_folders()[0].id if store.list_folders() else ""
        note = create_note(store, NoteDraft("Plan", "First step.\n", parent), actor="user").note
        update_note(store, note.id, NotePatch(title="Roadmap"), actor="mcp:c1")
    assert [p.name for p in vault.rglob("*.md")] == ["Roadmap.md"]
    review, ids = _review(vault, profile)
    _killed(CLI, "1", *review, "revert", *ids)
    assert [p.name for p in vault.rglob("*.md")] == ["Plan.md"]
    with opened(vault, profile) as store:
        assert _outside(store) == []
        assert store.get_note(note.id).title == "Roadmap"  # rolled back with its rows, to revert again
        assert [p.name for p in vault.rglob("*.md")] == ["Roadmap.md"]


KILL_AT_RMDIR = """
import os, signal, sys
from pathlib import Path
from noted.store.vault import VaultStore

store = VaultStore.open(Path(sys.argv[1]), Path(sys.argv[2]))
real = os.rmdir

def rmdir(path, *args, **kwargs):
    real(path, *args, **kwargs)
    if Path(path).name == "Work":
        os.kill(os.getpid(), signal.SIGKILL)  # the notebook's folders removed; its rows not committed

os.rmdir = rmdir
store.trash_folder(sys.argv[3], actor="user")
"""


def test_a_notebook_trashed_and_killed_once_its_folders_went_gets_them_back(tmp_path: Path) -> None:
    """Killed after the emptied folders of a trashed notebook were removed: the next start moved
    the notes' files back (making their folder) but not the empty sub-notebook's folder, which the
    scan then took for one another program deleted, and trashed as ``outside``. Not vacuous: both
    folders are gone before the start."""
    vault, profile, book, _ = _notebook(tmp_path, trashed=False)
    with opened(vault, profile) as store:
        later = create_notebook(store, "Later", parent_id=book, actor="user").id
    _killed(KILL_AT_RMDIR, str(vault), str(profile), book)
    assert not (vault / "Work").exists()
    with opened(vault, profile) as store:
        assert _outside(store) == []
        assert not store.get_folder(book).is_trashed and not store.get_folder(later).is_trashed
        assert (vault / "Work" / "Later").is_dir() and len(list((vault / "Work").glob("*.md"))) == 5
