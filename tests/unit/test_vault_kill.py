"""The Markdown-folder backend after noted was killed (SIGKILL: nothing runs on the way out) in the
middle of writing a note's file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import env_with_src
from tests.support.vaults import by_title, opened

from noted.store.transfer import import_markdown


def _run_killed(code: str, vault: Path, profile: Path, *args: str) -> None:
    """Run ``code`` on the folder and profile in a child that must end killed (SIGKILL)."""
    killed = subprocess.run(
        [sys.executable, "-c", code, str(vault), str(profile), *args], env=env_with_src(), check=False
    )
    assert killed.returncode == -9


KILL_AT_RENAME = """
import os, signal, sys
from pathlib import Path
from noted.models import NotePatch
from noted.store.vault import VaultStore

store = VaultStore.open(Path(sys.argv[1]), Path(sys.argv[2]))
note = next(m for m in store.list_notes() if m.title == "Plan")
real = os.replace

def replace(src, dst):
    if Path(src).name.startswith(".noted-"):
        os.kill(os.getpid(), signal.SIGKILL)  # its temporary file written, not yet renamed
    real(src, dst)

os.replace = replace
store.update_note(note.id, NotePatch(body="# Plan\\n\\nSecond step.\\n"), actor="user")
"""


def test_the_temporary_file_of_a_write_killed_half_way_is_removed_at_the_next_open(tmp_path: Path) -> None:
    """It stayed in the folder for good: a full copy of the note that ``git status`` showed."""
    vault, profile = tmp_path / "notes", tmp_path / "profile"
    (vault / "projects").mkdir(parents=True)
    (vault / "projects" / "plan.md").write_text("# Plan\n\nFirst step.\n")
    with opened(vault, profile) as store:
        plan = by_title(store, "Plan")
        store.trash_note(plan, actor="user")
        store.restore_note(plan, actor="user")
    live = vault / f".noted-{os.getpid()}-0123abcd.tmp"  # a write under way in a live process
    live.write_text("not done yet\n")
    _run_killed(KILL_AT_RENAME, vault, profile)
    assert len(list(vault.glob("projects/.noted-*.tmp"))) == 1  # left by the killed write
    (vault / ".trash").mkdir(exist_ok=True)
    (vault / ".trash" / ".noted-999999999-0123abcd.tmp").write_text("a dead process's\n")
    with opened(vault, profile) as store:
        assert store.get_note(plan).body == "# Plan\n\nFirst step.\n"
    assert list(vault.glob("projects/.noted-*")) == [] and list(vault.glob(".trash/.noted-*")) == []
    assert live.read_text() == "not done yet\n"  # another process's write under way: left alone


KILL_AFTER_LINK_WRITE = """
import os, signal, sys
from pathlib import Path
from noted.models import NotePatch
from noted.store.vault import VaultStore

store = VaultStore.open(Path(sys.argv[1]), Path(sys.argv[2]))
real = os.replace

def replace(src, dst):
    real(src, dst)
    if Path(dst).name == "a.md":
        os.kill(os.getpid(), signal.SIGKILL)  # moved, its links rewritten; the rows not committed

os.replace = replace
folders = {f.title: f.id for f in store.list_folders()}
with store.batch():  # (as every command runs a change)
    if sys.argv[3] == "notebook":
        store.update_folder(folders["sub"], parent_id=folders["other"], actor="user")
    else:
        note = next(m for m in store.list_notes() if m.title == "A")
        store.update_note(note.id, NotePatch(parent_id=folders["other"]), actor="user")
"""


@pytest.mark.parametrize("what", ["notebook", "note"])
def test_a_move_killed_after_rewriting_links_leaves_the_links_leading_where_they_did(
    tmp_path: Path, what: str
) -> None:
    """The crash's move was put back at the next start, the links rewritten for the new place were
    not: ``../plan.md`` became ``../../proj/plan.md``, leading nowhere from where the file is."""
    vault, profile = tmp_path / "notes", tmp_path / "profile"
    (vault / "proj" / "sub").mkdir(parents=True)
    (vault / "other").mkdir()
    (vault / "proj" / "plan.md").write_text("# Plan\n")
    text = "# A\n\nSee [plan](../plan.md).\n"
    (vault / "proj" / "sub" / "a.md").write_text(text)  # (the note moves from proj/sub/ too)
    (vault / "other" / "b.md").write_text("# B\n")
    with opened(vault, profile):
        pass
    _run_killed(KILL_AFTER_LINK_WRITE, vault, profile, what)
    moved = vault / "other" / ("sub/a.md" if what == "notebook" else "a.md")
    assert moved.read_text() != text  # the kill came after the rewrite
    with opened(vault, profile) as store:
        assert (vault / "proj" / "sub" / "a.md").read_text() == text and not moved.exists()
        note = store.get_note(by_title(store, "A"))
        assert note.body == text and [r.actor for r in store.note_history(note.id)] == ["import"]


KILL_AT_THIRD_TAG_WRITE = """
import os, signal, sys
from pathlib import Path
from noted.ops.notebooks import delete_tag, rename_tag
from noted.store.vault import VaultStore

store = VaultStore.open(Path(sys.argv[1]), Path(sys.argv[2]))
real, done = os.replace, []

def replace(src, dst):
    real(src, dst)
    if Path(dst).suffix == ".md":
        done.append(dst)
        if len(done) == 3:
            os.kill(os.getpid(), signal.SIGKILL)  # three notes rewritten; the rows not committed

os.replace = replace
tag = next(t for t in store.list_tags() if t.title == "alpha")
if sys.argv[3] == "rename":
    rename_tag(store, tag.id, "beta", actor="user")
else:
    delete_tag(store, tag.id, actor="user")
"""


@pytest.mark.parametrize("what", ["rename", "delete"])
def test_a_tag_change_killed_half_way_through_its_notes_is_undone_in_every_one(
    tmp_path: Path, what: str
) -> None:
    """A tag renamed (or deleted) in each file that carries it, killed after some: those files kept
    the new tag while the rows rolled back, so the next start took them in as edits made outside:
    the tag split in two (3 notes "beta", 5 "alpha"), 3 changes to review, and the rename asked
    again refused ("a tag named beta exists already"). Not vacuous: the kill comes after the third
    file is replaced, which the first assertion checks."""
    vault, profile = tmp_path / "notes", tmp_path / "profile"
    vault.mkdir()
    texts = {f"n{i}.md": f"---\ntags: [alpha]\n---\n# N{i}\n\nStep {i} #alpha.\n" for i in range(8)}
    for name, text in texts.items():
        (vault / name).write_text(text)
    with opened(vault, profile):
        pass
    _run_killed(KILL_AT_THIRD_TAG_WRITE, vault, profile, what)
    assert sum((vault / name).read_text() != text for name, text in texts.items()) == 3
    with opened(vault, profile) as store:
        assert {name: (vault / name).read_text() for name in texts} == texts
        assert [(t.title, len(store.list_notes(tag_id=t.id))) for t in store.list_tags()] == [("alpha", 8)]
        assert all(len(store.note_history(m.id)) == 1 for m in store.list_notes())  # no outside edit
    assert list(vault.glob(".noted-*")) == [] and not (profile / "vault-moves.log").exists()


KILL_IN_IMPORT = """
import os, signal, sys
from pathlib import Path
from noted.store.transfer import import_markdown
from noted.store.vault import VaultStore

store = VaultStore.open(Path(sys.argv[1]), Path(sys.argv[2]))
real = os.replace

def replace(src, dst):
    if Path(dst).name == "z.md":
        os.kill(os.getpid(), signal.SIGKILL)  # a.md and b.md written, the slice's rows not committed
    real(src, dst)

os.replace = replace
import_markdown(store, Path(sys.argv[3]))
"""


def test_an_import_killed_half_way_into_a_markdown_folder_duplicates_nothing_when_run_again(
    tmp_path: Path,
) -> None:
    """Before: the files the killed slice wrote stayed and were taken in as the person's own notes,
    a.md with its link to z.md as noted's ":/id" (z.md not written yet); the next import found a.md
    by title, kept it so ("1 created"), and the link led nowhere, noted's id in the person's file.
    (With 500 notes, those whose title or text the import reads otherwise became conflict copies.)"""
    vault, profile, src = tmp_path / "notes", tmp_path / "profile", tmp_path / "src"
    vault.mkdir()
    src.mkdir()
    (src / "a.md").write_text("see [z](z.md)\n")  # z.md is written after it: a forward link
    (src / "b.md").write_text("bee\n")
    (src / "z.md").write_text("zed\n")
    _run_killed(KILL_IN_IMPORT, vault, profile, str(src))
    assert (vault / "src" / "a.md").exists()  # (the kill came where it was meant to)
    with opened(vault, profile) as store:
        report = import_markdown(store, src)
        titles = sorted(m.title for m in store.list_notes())
    assert (report.notes_created, report.conflict_copies) == (3, 0)
    assert titles == ["a", "b", "z"]
    assert (vault / "src" / "a.md").read_text() == "see [z](z.md)\n"


@pytest.mark.parametrize("theirs", [False, True], ids=["alone", "a file put in"])
def test_an_import_killed_half_way_leaves_no_empty_notebook_folders_it_made(
    tmp_path: Path, theirs: bool
) -> None:
    """The notes the killed slice wrote were undone at the next start, but the folders it made for
    its notebooks stayed, empty, and the scan took them in as notebooks the import never made.
    A folder someone put a file in meanwhile stays (and the folders it is in). Not vacuous: the
    folders are there before the start."""
    vault, profile, src = tmp_path / "notes", tmp_path / "profile", tmp_path / "src"
    vault.mkdir()
    (src / "deep" / "er").mkdir(parents=True)
    (src / "a.md").write_text("see [z](z.md)\n")
    (src / "deep" / "er" / "b.md").write_text("bee\n")
    (src / "z.md").write_text("zed\n")
    (vault / "kept.md").write_text("# kept\n")
    with opened(vault, profile) as store:
        before = sorted(f.title for f in store.list_folders())
    _run_killed(KILL_IN_IMPORT, vault, profile, str(src))
    assert (vault / "src" / "deep" / "er").is_dir() and (vault / "src" / "a.md").exists()
    if theirs:
        (vault / "src" / "deep" / "mine.txt").write_text("the person's\n")
    with opened(vault, profile) as store:
        after = sorted(f.title for f in store.list_folders())
        assert sorted(m.title for m in store.list_notes()) == ["kept"]
    left = sorted(str(p.relative_to(vault)) for p in vault.rglob("*"))
    if theirs:
        assert left == ["kept.md", "src", "src/deep", "src/deep/mine.txt"]
    else:
        assert left == ["kept.md"] and after == before


KILL_AFTER_MKDIR = """
import os, signal, sys
from pathlib import Path
from noted.store.vault import VaultStore

store = VaultStore.open(Path(sys.argv[1]), Path(sys.argv[2]))
real = store.vault.make_dir

def make_dir(folder):
    real(folder)
    os.kill(os.getpid(), signal.SIGKILL)  # the folder made, its notebook's row not committed

store.vault.make_dir = make_dir
store.create_folder("Projects", actor="user")
"""


def test_a_notebook_made_alone_and_killed_before_its_commit_leaves_no_folder(tmp_path: Path) -> None:
    """The folder stayed and the next start's scan took it in as a notebook made outside noted.
    Not vacuous: the folder is checked to be there after the kill."""
    vault, profile = tmp_path / "notes", tmp_path / "profile"
    vault.mkdir()
    (vault / "kept.md").write_text("# kept\n")
    with opened(vault, profile) as store:
        before = sorted(f.title for f in store.list_folders())
    _run_killed(KILL_AFTER_MKDIR, vault, profile)
    assert (vault / "Projects").is_dir()
    with opened(vault, profile) as store:
        assert sorted(f.title for f in store.list_folders()) == before
    assert sorted(str(p.relative_to(vault)) for p in vault.rglob("*")) == ["kept.md"]


KILL_AFTER_ATTACHMENT_FILE = """
import os, signal, sys
from pathlib import Path
from noted.ops.attachments import attach_to_note
from noted.store.vault import VaultStore

store = VaultStore.open(Path(sys.argv[1]), Path(sys.argv[2]))
note = next(m for m in store.list_notes() if m.title == "kept")
real = os.replace

def replace(src, dst):
    real(src, dst)
    if Path(dst).name == "f.bin":
        os.kill(os.getpid(), signal.SIGKILL)  # the attachment's file written, the note not yet

os.replace = replace
attach_to_note(store, store.get_note(note.id), b"bytes", filename="f.bin", mime="application/octet-stream", title="f", actor="user")
"""


def test_an_attachment_killed_before_its_note_is_written_leaves_no_file(tmp_path: Path) -> None:
    """The batch wrote no note's file, yet it was kept as a single note's save: the attachment's
    file stayed in the folder, linked by no note, and the scan took it in as another program's
    (found by ``crash_loop_more.py attach --vault``). Not vacuous: the file is there after the kill."""
    vault, profile = tmp_path / "notes", tmp_path / "profile"
    vault.mkdir()
    (vault / "kept.md").write_text("# kept\n")
    with opened(vault, profile):
        pass
    _run_killed(KILL_AFTER_ATTACHMENT_FILE, vault, profile)
    assert [p.name for p in vault.rglob("f.bin")] == ["f.bin"]
    with opened(vault, profile) as store:
        assert store.list_resources() == []
    assert sorted(str(p.relative_to(vault)) for p in vault.rglob("*")) == ["kept.md"]
