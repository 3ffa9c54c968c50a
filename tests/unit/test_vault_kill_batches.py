"""A Markdown folder's batch of several notes killed (SIGKILL) half way: all or nothing at the next
start, whatever operation the batch runs; a single note's save, fully written, is kept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import env_with_src
from tests.support.vaults import by_title, opened

KILL_AFTER = """
import os, signal, sys
from pathlib import Path
from noted.store.vault import VaultStore

store = VaultStore.open(Path(sys.argv[1]), Path(sys.argv[2]))
real, done, after = os.replace, [], int(sys.argv[3])

def replace(src, dst):
    real(src, dst)
    if Path(dst).suffix == ".md":
        done.append(dst)
        if len(done) == after:
            os.kill(os.getpid(), signal.SIGKILL)  # these notes' files written; the rows not committed

def tagged(title):
    tag = next(t for t in store.list_tags() if t.title == title)
    return tag, [m.id for m in store.list_notes(tag_id=tag.id)]

os.replace = replace
"""

MERGE = """
from noted.ops.notebooks import move_tag_on
alpha, ids = tagged("alpha")
move_tag_on(store, alpha.id, "beta", ids, actor="user")
"""

TAKE_OFF = """
from noted.ops.notebooks import take_tag_off
alpha, ids = tagged("alpha")
take_tag_off(store, alpha.id, ids, actor="user")
"""

UNDO = """
from noted.ops.batch_capture import capture, settled
from noted.ops.batch_undo import restore
from noted.ops.notebooks import move_tag_on
from noted.ops.notes import update_note
from noted.models import NotePatch
alpha, ids = tagged("alpha")
before = capture(store, notes=ids, tags=[alpha.id])
os.replace = real
for n, note_id in enumerate(ids):
    update_note(store, note_id, NotePatch(body=f"Changed {n}.\\n"), actor="assistant:c1")
os.replace = replace
restore(store, settled(store, before, "assistant:c1"), actor="user")
"""

APPLY = """
from noted.ops.batch_capture import capture
from noted.ops.batch_undo import all_or_none
from noted.ops.notes import update_note
from noted.models import NotePatch
alpha, ids = tagged("alpha")
with all_or_none(store, capture(store, notes=ids), actor="assistant:c1"):
    for n, note_id in enumerate(ids):
        update_note(store, note_id, NotePatch(body=f"Changed {n}.\\n"), actor="assistant:c1")
"""

RENAME = """
from noted.ops.notebooks import rename_tag
rename_tag(store, tagged("alpha")[0].id, "gamma", actor="user")
"""

SAVE = """
from noted.ops.editing import save_text
note = store.get_note(next(m.id for m in store.list_notes() if m.title == "N0"))
save_text(store, note, None, "# N0\\n\\nA new text.\\n", actor="user")
"""


def _kill(vault: Path, profile: Path, code: str, after: int) -> None:
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AFTER + code, str(vault), str(profile), str(after)],
        env=env_with_src(),
        check=False,
    )
    assert killed.returncode == -9


def _folder(tmp_path: Path, alpha: int, beta: int) -> tuple[Path, Path, dict[str, str]]:
    vault, profile = tmp_path / "notes", tmp_path / "profile"
    vault.mkdir()
    texts = {f"n{i}.md": f"---\ntags: [alpha]\n---\n# N{i}\n\nStep {i}.\n" for i in range(alpha)}
    texts |= {f"b{i}.md": f"---\ntags: [beta]\n---\n# B{i}\n\nOther {i}.\n" for i in range(beta)}
    for name, text in texts.items():
        (vault / name).write_text(text)
    with opened(vault, profile):
        pass
    return vault, profile, texts


@pytest.mark.parametrize("code", [MERGE, TAKE_OFF], ids=["merge", "take-off"])
def test_a_tag_batch_killed_half_way_through_its_notes_is_undone_in_every_one(
    tmp_path: Path, code: str
) -> None:
    """Merging alpha into beta (10 notes alpha, 1 beta), killed after the 4th file: alpha 8, beta 3
    and 2 "outside" changes to review at the next start. Not vacuous: the first assertion checks
    that the kill came after files were replaced."""
    vault, profile, texts = _folder(tmp_path, 10, 1)
    _kill(vault, profile, code, 4)
    assert sum((vault / name).read_text() != text for name, text in texts.items()) >= 2
    with opened(vault, profile) as store:
        assert {name: (vault / name).read_text() for name in texts} == texts
        counts = {t.title: len(store.list_notes(tag_id=t.id)) for t in store.list_tags()}
        assert counts == {"alpha": 10, "beta": 1}
        assert all(len(store.note_history(m.id)) == 1 for m in store.list_notes())  # no outside edit
    assert list(vault.glob(".noted-*")) == [] and not (profile / "vault-moves.log").exists()


def test_a_chat_batch_applied_and_killed_half_way_is_undone_whole(tmp_path: Path) -> None:
    """The assistant's ticked changes, applied as one unit (``all_or_none``), killed after 3 of 6
    notes: those 3 kept the new text, taken in as outside edits. Not vacuous: the first assertion
    checks the kill came after three files were written."""
    vault, profile, texts = _folder(tmp_path, 6, 0)
    _kill(vault, profile, APPLY, 3)
    assert sum((vault / name).read_text() != text for name, text in texts.items()) == 3
    with opened(vault, profile) as store:
        assert {name: (vault / name).read_text() for name in texts} == texts
        assert all(len(store.note_history(m.id)) == 1 for m in store.list_notes())


def test_a_batch_undo_killed_half_way_is_undone_whole(tmp_path: Path) -> None:
    """A chat batch's undo killed after 3 of its 6 notes: those 3 were back as before the batch,
    the rest not, and the next start followed them as outside edits. Not vacuous: the kill comes
    after the third note's file is put back, as the first assertion checks."""
    vault, profile, texts = _folder(tmp_path, 6, 0)
    _kill(vault, profile, UNDO, 3)
    assert sum((vault / name).read_text() == text for name, text in texts.items()) == 3
    with opened(vault, profile) as store:
        bodies = sorted(store.get_note(m.id).body for m in store.list_notes())
        assert bodies == [f"Changed {n}.\n" for n in range(6)]
        assert all(store.note_history(m.id)[0].actor == "assistant:c1" for m in store.list_notes())


def test_a_tag_renamed_on_its_one_note_and_killed_is_undone(tmp_path: Path) -> None:
    """A tag rename is a change of several notes even when one carries the tag (``several``):
    kept, the file's new tag would stand beside the old tag, left on no note. Not vacuous: the
    first assertion checks the file was rewritten before the kill."""
    vault, profile, texts = _folder(tmp_path, 1, 1)
    _kill(vault, profile, RENAME, 1)
    assert (vault / "n0.md").read_text() != texts["n0.md"]
    with opened(vault, profile) as store:
        assert (vault / "n0.md").read_text() == texts["n0.md"]
        assert sorted(t.title for t in store.list_tags()) == ["alpha", "beta"]


def test_a_single_note_save_killed_before_its_commit_keeps_the_file_written(tmp_path: Path) -> None:
    """One note's save is not a batch of several: the file fully written is kept (the text the
    person typed is not lost), and the next start takes it in."""
    vault, profile, _ = _folder(tmp_path, 2, 0)
    _kill(vault, profile, SAVE, 1)
    with opened(vault, profile) as store:
        assert store.get_note(by_title(store, "N0")).body.endswith("A new text.\n")
    assert not (profile / "vault-moves.log").exists()


def test_a_single_note_save_killed_before_its_commit_is_credited_to_whoever_saved_it(tmp_path: Path) -> None:
    """The file kept was taken in at the next start as an ``outside`` edit: ``noted changes`` said
    another program wrote it. Not vacuous: the saver is an assistant, neither the person nor the
    scan's own ``outside``, and the file holds the new text before the start."""
    vault, profile, _ = _folder(tmp_path, 2, 0)
    _kill(vault, profile, SAVE.replace('actor="user"', 'actor="assistant:c1"'), 1)
    assert (vault / "n0.md").read_text().endswith("A new text.\n")
    with opened(vault, profile) as store:
        note_id = by_title(store, "N0")
        newest = store.note_history(note_id, bodies=False)[0]
        assert newest.actor == "assistant:c1" and store.get_note(note_id).body.endswith("A new text.\n")
    assert not (profile / "vault-moves.log").exists()


CREATE = """
from noted.models import NoteDraft
from noted.ops.notes import create_note
create_note(store, NoteDraft(title="Fresh", body="# Fresh\\n\\nMade by the assistant.\\n"), actor="assistant:c1")
"""


def test_a_new_note_killed_before_its_commit_is_credited_to_whoever_made_it(tmp_path: Path) -> None:
    """As a save: the new file kept was taken in as a note made by ``outside``. Not vacuous: the
    file is there before the start, and the maker is neither the person nor ``outside``."""
    vault, profile, _ = _folder(tmp_path, 1, 0)
    _kill(vault, profile, CREATE, 1)
    assert [p.name for p in vault.rglob("Fresh*.md")]
    with opened(vault, profile) as store:
        note_id = by_title(store, "Fresh")
        assert store.note_history(note_id, bodies=False)[0].actor == "assistant:c1"
