"""The Markdown-folder backend when something happens to a file while noted works on it: another
program writing it between noted's read and its rename, a file deleted while its note is edited,
noted itself killed half way through moving files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.vaults import by_title, git, opened

from noted.errors import ConflictError
from noted.models import ACTOR_OUTSIDE, NoteDraft, NotePatch
from noted.ops import notes as ops


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "Projects").mkdir(parents=True)
    (root / "Projects" / "Alpha.md").write_text("# Alpha\n")
    git(root, "init", "-q")
    return root


def outside_writes(monkeypatch: pytest.MonkeyPatch, path: Path, texts: list[str]) -> None:
    """Another program appends the next of ``texts`` to ``path`` each time noted has written a
    temporary file of its own (its read of ``path`` done, its rename not yet): a write landing in
    the window, every time, without a race."""

    real = os.fsync

    def fsync(fd: int) -> None:
        real(fd)
        if texts:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(texts.pop(0))

    monkeypatch.setattr(os, "fsync", fsync)


def test_an_append_meeting_an_outside_write_keeps_both_and_the_outside_one_in_history(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write replaced the file with what noted had read plus its line: the other program's
    line was gone from the file and, never read, from the history too."""
    path = vault / "Projects" / "Alpha.md"
    with opened(vault, tmp_path / "profile") as store:
        alpha = by_title(store, "Alpha")
        outside_writes(monkeypatch, path, ["Q-1\n"])
        store.update_note(alpha, NotePatch(append="P-1\n"), actor="user")
        assert path.read_text() == "# Alpha\nQ-1\nP-1\n"  # the append went onto the other text
        mine, theirs = store.note_history(alpha)[:2]
        assert (mine.actor, theirs.actor) == ("user", ACTOR_OUTSIDE)
        assert theirs.body == "# Alpha\nQ-1\n"


def test_a_save_meeting_an_outside_write_is_a_conflict_and_replaces_nothing(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = vault / "Projects" / "Alpha.md"
    with opened(vault, tmp_path / "profile") as store:
        alpha = store.get_note(by_title(store, "Alpha"))
        outside_writes(monkeypatch, path, ["Q-1\n"])
        with pytest.raises(ConflictError):
            patch = NotePatch(body="# Alpha\nMine.\n")
            store.update_note(alpha.id, patch, actor="user", base_updated_time=alpha.updated_time)
        assert path.read_text() == "# Alpha\nQ-1\n"
        assert store.note_history(alpha.id)[0].actor == ACTOR_OUTSIDE
        assert store.get_note(alpha.id).body == "# Alpha\nQ-1\n"  # the conflict view shows it


def test_a_tag_meeting_an_outside_write_keeps_the_outside_text(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = vault / "Projects" / "Alpha.md"
    with opened(vault, tmp_path / "profile") as store:
        alpha = by_title(store, "Alpha")
        outside_writes(monkeypatch, path, ["Q-1\n"])
        store.tag_note(alpha, ["work"], actor="user")
        assert path.read_text() == "---\ntags:\n- work\n---\n\n# Alpha\nQ-1\n"


def test_a_file_changing_at_every_write_is_never_replaced(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = vault / "Projects" / "Alpha.md"
    lines = [f"Q-{i}\n" for i in range(20)]
    with opened(vault, tmp_path / "profile") as store:
        alpha = by_title(store, "Alpha")
        outside_writes(monkeypatch, path, lines)
        with pytest.raises(ConflictError, match="changed outside noted"):
            store.update_note(alpha, NotePatch(append="P-1\n"), actor="user")
        written = path.read_text()
        assert "P-1" not in written and written.startswith("# Alpha\nQ-0\nQ-1\nQ-2\nQ-3\nQ-4\n")
        assert "Q-3" in store.get_note(alpha).body  # followed as it went


def test_a_new_notes_file_name_taken_by_another_program_meanwhile_is_not_replaced(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = vault / "Projects" / "New.md"
    with opened(vault, tmp_path / "profile") as store:
        projects = store.get_note(by_title(store, "Alpha")).parent_id
        outside_writes(monkeypatch, path, ["theirs\n"])  # made after noted found the name free
        new = store.create_note(NoteDraft("New", "mine\n", projects), actor="user")
        assert path.read_text() == "theirs\n"  # and the note made under the next free name
        assert store.note_path(new.id) == vault / "Projects" / "New 2.md" and new.title == "New"


def test_a_note_whose_file_was_deleted_is_saved_into_the_trash_under_a_free_name_keeping_its_title(
    vault: Path, tmp_path: Path
) -> None:
    """Saved over (Overwrite, an append), the note of a file deleted outside noted stays in the
    trash: its file was written back in its notebook's folder and the note taken out of the trash."""
    path = vault / "Projects" / "Gamma.md"
    path.write_text("plain\n")  # titled by its file's name
    other = vault / ".trash" / "Projects" / "Gamma.md"  # another file of that name, in the trash already
    other.parent.mkdir(parents=True)
    other.write_text("someone else's\n")
    with opened(vault, tmp_path / "profile") as store:
        gamma = by_title(store, "Gamma")
        path.unlink()
        store.follower.scan()
        store.update_note(gamma, NotePatch(body="Mine.\n"), actor="user")
        note = store.get_note(gamma)
        assert note.is_trashed and (note.title, note.body) == ("Gamma", "Mine.\n")
        assert not path.exists() and other.read_text() == "someone else's\n"
        written = vault / ".trash" / "Projects" / "Gamma 2.md"
        assert written.read_text() == "---\ntitle: Gamma\n---\n\nMine.\n"
        store.update_note(gamma, NotePatch(title="Delta"), actor="user")  # a file in .trash/ keeps its name
        assert store.get_note(gamma).title == "Delta" and store.get_note(gamma).is_trashed
        assert written.read_text() == "---\ntitle: Delta\n---\n\nMine.\n"
        assert store.restore_note(gamma, actor="user").title == "Delta"
        assert not written.exists() and store.note_path(gamma) == vault / "Projects" / "Gamma.md"


@pytest.mark.parametrize("front", ["tags: [kept]\n", "title: [not yaml\n"], ids=["yaml", "not-yaml"])
def test_a_tag_change_to_a_note_whose_file_was_deleted_goes_into_the_trash_and_stays(
    vault: Path, tmp_path: Path, front: str
) -> None:
    """A tag added or removed while the note's file was gone wrote the file back in its folder and
    took the note out of the trash; a scan after the person put their file back read the tags from
    it again, the change undone. Now, as a save does, it writes the file into ``.trash/`` (front
    matter byte for byte, YAML or not) and the note stays in the trash."""
    path = vault / "Projects" / "Tagged.md"
    text = f"---\n{front}---\nbody #old\n"
    path.write_text(text)
    with opened(vault, tmp_path / "profile") as store:
        note_id = by_title(store, "Tagged")
        path.unlink()  # no scan between: the tag change itself finds the file gone
        store.untag_note(note_id, ["old"], actor="user")
        trashed = vault / ".trash" / "Projects" / "Tagged.md"
        assert not path.exists() and trashed.read_text() == f"---\n{front}---\nbody\n"
        path.write_text(text)  # the person puts their file back
        store.follower.scan()
        assert trashed.read_text() == f"---\n{front}---\nbody\n"  # the change is kept, and so is the file
        assert path.read_text() == text


def test_a_trashed_note_titled_by_its_file_name_takes_a_new_title(vault: Path, tmp_path: Path) -> None:
    """A file in .trash/ is not renamed, and the new title went nowhere: the note kept its old one."""
    (vault / "Projects" / "Eps.md").write_text("plain\n")
    with opened(vault, tmp_path / "profile") as store:
        eps = by_title(store, "Eps")
        store.trash_note(eps, actor="user")
        assert store.update_note(eps, NotePatch(title="Zeta"), actor="user").title == "Zeta"
        assert (vault / ".trash" / "Projects" / "Eps.md").read_text() == "---\ntitle: Zeta\n---\n\nplain\n"


CRASH = """
import os, sys
from pathlib import Path
from noted.ops import notebooks as ops
from noted.store.vault import VaultStore
from noted.store.vault.files import Vault

store = VaultStore.open(Path(sys.argv[1]), Path(sys.argv[2]))
folder = next(f for f in store.list_folders(include_trashed=True) if f.title == "nb0")
if sys.argv[3] == "restore":
    ops.trash_notebook(store, folder.id, actor="user")
moved, real = [], Vault.move

def move(self, old, new):
    if len(moved) == 4:
        os._exit(9)  # killed: no exception, no undo, no rollback but SQLite's own
    moved.append(old)
    real(self, old, new)

Vault.move = move
(ops.restore_notebook if sys.argv[3] == "restore" else ops.trash_notebook)(store, folder.id, actor="user")
"""


def notebook_of_ten(vault: Path) -> set[str]:
    (vault / "nb0").mkdir()
    for i in range(10):
        (vault / "nb0" / f"n{i}.md").write_text(f"note {i}\n")
    return {f"n{i}.md" for i in range(10)}


@pytest.mark.parametrize("verb", ["trash", "restore"])
def test_a_notebook_trashed_or_restored_by_a_noted_killed_half_way_is_as_it_was_before(
    vault: Path, tmp_path: Path, verb: str
) -> None:
    """Killed after moving some of a notebook's files into .trash/, noted left the notebook live,
    the moved notes "deleted outside" one by one, and, restored one by one, a second copy of each
    in .trash/ that emptying the trash never removed. Each move is written down first now, and the
    next start puts back the moves of a batch that did not finish, as SQLite rolled back its rows."""
    names = notebook_of_ten(vault)
    profile = tmp_path / "profile"
    killed = subprocess.run([sys.executable, "-c", CRASH, str(vault), str(profile), verb], check=False)
    assert killed.returncode == 9
    here, trash = vault / "nb0", vault / ".trash" / "nb0"
    assert {p.name for p in here.glob("*.md")} and {p.name for p in trash.glob("*.md")}  # half way
    with opened(vault, profile) as store:
        live = {m.title for m in store.list_notes() if m.title.startswith("n")}
        trashed = {m.title for m in store.list_notes(trashed=True)}
        if verb == "trash":  # as before the trash: all live, in their folder
            assert ({p.name for p in here.iterdir()}, live, trashed) == (
                names,
                {n[:-3] for n in names},
                set(),
            )
            assert not trash.exists()
        else:  # as before the restore: all in the trash, notebook and notes
            assert ({p.name for p in trash.iterdir()}, live) == (names, set())
            assert trashed == {n[:-3] for n in names} and not list(here.glob("*.md"))
        assert not (profile / "vault-moves.log").exists()
        assert [f.title for f in store.list_folders(include_trashed=True) if f.title == "nb0"] == ["nb0"]


def test_a_notes_file_found_in_the_trash_is_that_note_trashed_and_comes_back_from_there(
    vault: Path, tmp_path: Path
) -> None:
    """Moved into .trash/ at its own path (by a noted stopped where no log tells, or another
    program), a note's file is followed there: the note was "deleted outside", and a restore wrote
    its file again from noted's record, leaving the moved one in .trash/ for good."""
    notebook_of_ten(vault)
    with opened(vault, tmp_path / "profile") as store:
        ids = {m.title: m.id for m in store.list_notes()}
        (vault / ".trash" / "nb0").mkdir(parents=True)
        for name in ("n0", "n1", "n2"):
            os.rename(vault / "nb0" / f"{name}.md", vault / ".trash" / "nb0" / f"{name}.md")
        store.follower.scan()
        assert {m.title for m in store.list_notes(trashed=True)} == {"n0", "n1", "n2"}
        assert store.note_path(ids["n0"]) == vault / ".trash" / "nb0" / "n0.md"
        store.restore_note(ids["n0"], actor="user")
        assert (vault / "nb0" / "n0.md").read_text() == "note 0\n"
        assert not (vault / ".trash" / "nb0" / "n0.md").exists()  # moved back, not written twice
        # Not noted's to delete (it did not put them there): they and their notes stay in the trash.
        assert store.empty_trash(actor="user") == 0
        assert {p.name for p in (vault / ".trash" / "nb0").iterdir()} == {"n1.md", "n2.md"}


def test_a_note_deleted_outside_by_an_older_noted_comes_back_from_its_file_in_the_trash(
    vault: Path, tmp_path: Path
) -> None:
    """A profile an older noted left with the note "deleted outside" and its file in .trash/: a
    restore moves that file back; emptying the trash keeps the other (noted did not put it there)."""
    notebook_of_ten(vault)
    with opened(vault, tmp_path / "profile") as store:
        ids = {m.title: m.id for m in store.list_notes()}
        for name in ("n0", "n1"):
            (vault / "nb0" / f"{name}.md").unlink()
        store.follower.scan()  # deleted outside: noted's trash
        (vault / ".trash" / "nb0").mkdir(parents=True)
        for name in ("n0", "n1"):
            (vault / ".trash" / "nb0" / f"{name}.md").write_text(f"note {name[1]}\n")
        store.restore_note(ids["n0"], actor="user")
        assert (vault / "nb0" / "n0.md").read_text() == "note 0\n"
        assert not (vault / ".trash" / "nb0" / "n0.md").exists()
        assert store.empty_trash(actor="user") == 0
        assert (vault / ".trash" / "nb0" / "n1.md").exists() and store.get_note(ids["n1"]).is_trashed


@pytest.mark.parametrize("when", ["before", "meanwhile"])
def test_ops_update_with_a_stale_base_keeps_the_outside_change_recorded(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """``noted.ops.update_note`` (the tools' and the CLI's way) wraps the store's write in its own
    batch: the conflict rolled back the catch-up the store had recorded, so the outside text was
    in the file but in no version, no review entry, not in the mirror. Not vacuous: the store's
    own ``update_note`` (test above) keeps it; through ops it was lost."""
    path = vault / "Projects" / "Alpha.md"
    with opened(vault, tmp_path / "profile") as store:
        alpha = store.get_note(by_title(store, "Alpha"))
        cursor = store.latest_cursor()
        if when == "before":
            path.write_text("# Alpha\nQ-1\n")
        else:
            outside_writes(monkeypatch, path, ["Q-1\n"])
        with pytest.raises(ConflictError):
            patch = NotePatch(body="# Alpha\nMine.\n")
            ops.update_note(store, alpha.id, patch, actor="mcp:x", base_updated_time=alpha.updated_time)
        assert path.read_text() == "# Alpha\nQ-1\n"
        assert store.get_note(alpha.id).body == "# Alpha\nQ-1\n"
        assert store.note_history(alpha.id)[0].actor == ACTOR_OUTSIDE
        assert [c.actor for c in store.changes_since(cursor).changes] == [ACTOR_OUTSIDE]
