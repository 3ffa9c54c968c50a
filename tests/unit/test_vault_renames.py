"""Renames outside noted that change more than a path: a folder renamed or moved keeps its
notebook, a note renamed and edited at once keeps its id and history (real files, real ``git``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from tests.support.polling import wait_for
from tests.support.vaults import by_title, git, opened

from noted.models import NotePatch
from noted.store.vault import VaultStore
from noted.store.vault.renames import pair_sets, pair_texts

PLAN = "# Plan\n\nFirst we gather the numbers for the quarter.\nThen we write the summary for the board.\n"
NOTES = "# Meeting notes\n\nThe board asked about hiring, the budget and the office move in spring.\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "projects" / "deep").mkdir(parents=True)
    (root / "archive").mkdir()
    (root / "projects" / "plan.md").write_text(PLAN)
    (root / "projects" / "meeting.md").write_text(NOTES)
    (root / "projects" / "deep" / "inner.md").write_text("# Inner\n\nDeep down.\n")
    (root / "inbox.md").write_text("# Inbox\n\nLoose thoughts about the garden and the new fence posts.\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


def folder_named(store: VaultStore, title: str) -> str:
    (folder,) = [f for f in store.list_folders() if f.title == title]
    return folder.id


def test_a_folder_renamed_with_git_mv_keeps_its_notebook_and_sub_notebooks(
    vault: Path, tmp_path: Path
) -> None:
    with opened(vault, tmp_path / "p") as store:
        projects, deep = folder_named(store, "projects"), folder_named(store, "deep")
        plan = by_title(store, "Plan")
        git(vault, "mv", "projects", "work")
        store.follower.apply(["projects", "work"])
        # Before the fix the folder got a new notebook (and "projects" went to the trash).
        assert folder_named(store, "work") == projects
        assert folder_named(store, "deep") == deep
        assert store.get_folder(deep).parent_id == projects
        assert "projects" not in [f.title for f in store.list_folders(include_trashed=True)]
        assert store.get_note(plan).parent_id == projects and not store.get_note(plan).is_trashed
        assert store.note_paths()[plan] == "work/plan.md"


def test_a_folder_moved_while_noted_was_closed_keeps_its_notebook(vault: Path, tmp_path: Path) -> None:
    with opened(vault, tmp_path / "p") as store:
        projects, archive = folder_named(store, "projects"), folder_named(store, "archive")
    git(vault, "mv", "projects", "archive/old projects")
    (vault / "archive" / "old projects" / "later.md").write_text("# Later\n\nAdded in the move.\n")
    with opened(vault, tmp_path / "p") as store:
        moved = store.get_folder(projects)
        assert (moved.title, moved.parent_id, moved.is_trashed) == ("old projects", archive, False)
        assert store.get_note(by_title(store, "Later")).parent_id == projects
        assert store.count_notes(folder_id=projects) == 3


def test_a_folder_move_seen_in_two_watcher_batches_brings_the_notebook_back(
    vault: Path, tmp_path: Path
) -> None:
    with opened(vault, tmp_path / "p") as store:
        projects, plan = folder_named(store, "projects"), by_title(store, "Plan")
        os.rename(vault / "projects", vault / "elsewhere")
        store.follower.apply(["projects"])  # the deletion first: the notebook goes to the trash
        assert store.get_folder(projects).is_trashed
        store.follower.apply(["elsewhere"])
        assert not store.get_folder(projects).is_trashed
        assert store.get_folder(projects).title == "elsewhere"
        assert store.get_note(plan).parent_id == projects and not store.get_note(plan).is_trashed


def test_a_folder_watched_while_renamed_keeps_its_notebook(vault: Path, tmp_path: Path) -> None:
    with opened(vault, tmp_path / "p") as store:
        projects, plan = folder_named(store, "projects"), by_title(store, "Plan")
        store.start_watching()
        os.rename(vault / "projects", vault / "renamed")
        # By the id read before: the watcher may see the deletions a batch before the new files,
        # and the note is in the trash in between (looking it up by title then found none).
        wait_for(lambda: store.note_paths().get(plan) == "renamed/plan.md", what="the move")
        assert folder_named(store, "renamed") == projects


def test_a_note_renamed_and_edited_in_one_commit_keeps_its_id_and_history(
    vault: Path, tmp_path: Path
) -> None:
    with opened(vault, tmp_path / "p") as store:
        plan = by_title(store, "Plan")
        store.update_note(plan, NotePatch(append="Last, we send it."), actor="user")
        before = len(store.note_history(plan))
        git(vault, "commit", "-qam", "noted's edit")
        git(vault, "mv", "projects/plan.md", "projects/quarter plan.md")
        text = (vault / "projects" / "quarter plan.md").read_text()
        (vault / "projects" / "quarter plan.md").write_text(text.replace("summary", "short summary"))
        git(vault, "commit", "-qam", "rename and edit")
        assert "=>" in git(vault, "show", "--stat", "-M", "--format=", "HEAD")  # git sees a rename too
        store.follower.apply(["projects/plan.md", "projects/quarter plan.md"])
        note = store.get_note(plan)  # before the fix: trashed, and a new note took the text
        assert not note.is_trashed and "short summary" in note.body
        assert store.note_paths()[plan] == "projects/quarter plan.md"
        assert len(store.note_history(plan)) == before + 1
        assert len(store.list_notes()) == 4


def test_a_save_as_rename_while_closed_is_found_by_the_start_up_scan(vault: Path, tmp_path: Path) -> None:
    with opened(vault, tmp_path / "p") as store:
        inbox = by_title(store, "Inbox")
    old = (vault / "inbox.md").read_text()
    (vault / "inbox.md").unlink()
    (vault / "garden.md").write_text(old.replace("# Inbox", "# Garden") + "Buy more posts.\n")
    with opened(vault, tmp_path / "p") as store:
        assert by_title(store, "Garden") == inbox
        assert not store.get_note(inbox).is_trashed


def test_an_ambiguous_or_unlike_new_file_is_a_new_note(vault: Path, tmp_path: Path) -> None:
    with opened(vault, tmp_path / "p") as store:
        meeting, inbox = by_title(store, "Meeting notes"), by_title(store, "Inbox")
        # Two near-copies of the gone meeting note: neither takes its history.
        (vault / "projects" / "meeting.md").unlink()
        (vault / "projects" / "a.md").write_text(NOTES + "Copy A.\n")
        (vault / "projects" / "b.md").write_text(NOTES + "Copy B.\n")
        # The inbox rewritten beyond recognition under a new name: a new note.
        (vault / "inbox.md").unlink()
        (vault / "other.md").write_text("# Other\n\nSomething else entirely, about trains.\n")
        store.follower.apply(
            ["projects/meeting.md", "projects/a.md", "projects/b.md", "inbox.md", "other.md"]
        )
        assert store.get_note(meeting).is_trashed and store.get_note(inbox).is_trashed
        live = {m.id for m in store.list_notes()}
        assert len(live) == 5 and not {meeting, inbox} & live


def test_the_similarity_rule() -> None:
    words = "one two three four five six seven eight nine ten"
    assert pair_texts({"new": words + " eleven"}, {"old": words, "far": "alpha beta"}) == {"new": "old"}
    assert pair_texts({"new": "alpha"}, {"old": words}) == {}
    assert pair_texts({"a": words + " x", "b": words + " y"}, {"old": words}) == {}  # ambiguous
    assert pair_texts({"new": ""}, {"old": ""}) == {}  # nothing to compare is no evidence
    assert pair_sets({"w": {"a.md", "b.md", "c.md"}}, {"p": {"a.md", "b.md"}, "q": {"z.md"}}) == {"w": "p"}
    assert pair_sets({"w": {"a.md"}}, {"p": {"a.md", "b.md", "c.md"}}) == {}


def test_a_folder_rename_reported_file_by_file_keeps_its_notebook(vault: Path, tmp_path: Path) -> None:
    # The watcher may report a renamed folder's files without the folder itself (seen under load).
    with opened(vault, tmp_path / "p") as store:
        projects = folder_named(store, "projects")
        os.rename(vault / "projects", vault / "renamed")
        store.follower.apply(["renamed/plan.md", "renamed/meeting.md", "projects/plan.md"])
        assert folder_named(store, "renamed") == projects
        assert "projects" not in [f.title for f in store.list_folders(include_trashed=True)]


def _swap(a: Path, b: Path) -> None:
    tmp = a.with_name("swap.tmp")
    a.rename(tmp)
    b.rename(a)
    tmp.rename(b)


@pytest.mark.parametrize("seen", ["scan", "batch"])
def test_two_files_swapping_names_keep_each_notes_history(vault: Path, tmp_path: Path, seen: str) -> None:
    """``mv a t; mv b a; mv t b`` made each path's note take the other's text, so the history of
    "plan.md"'s note showed the meeting's past. Each note follows its content. Not vacuous: the
    notes' paths changed (each file is the other note's), and their bodies did not."""
    plan_md, meeting_md = vault / "projects" / "plan.md", vault / "projects" / "meeting.md"
    with opened(vault, tmp_path / "p") as store:
        plan, meeting = by_title(store, "Plan"), by_title(store, "Meeting notes")
        store.update_note(plan, NotePatch(append="A later line of the plan.\n"), actor="user")
        cursor = store.latest_cursor()
        _swap(plan_md, meeting_md)
        if seen == "scan":
            store.follower.scan()
        else:
            store.follower.apply(["projects/plan.md", "projects/meeting.md"])
        paths = store.note_paths()
        assert (paths[plan], paths[meeting]) == ("projects/meeting.md", "projects/plan.md")
        assert store.get_note(plan).body == PLAN + "A later line of the plan.\n"
        assert store.get_note(meeting).body == NOTES
        assert {r.body for r in store.note_history(plan)} <= {PLAN, PLAN + "A later line of the plan.\n"}
        assert {r.body for r in store.note_history(meeting)} == {NOTES}
        assert {c.item_id for c in store.changes_since(cursor).changes} == {plan, meeting}  # both renamed


def test_swapped_and_edited_files_follow_their_text_and_a_rewrite_keeps_its_note(
    vault: Path, tmp_path: Path
) -> None:
    """Swapped names and both texts edited: each file still reads as the other note's text, so it
    is that note. A file rewritten into a text like no other's stays its path's note."""
    plan_md, meeting_md, inbox_md = (
        vault / p for p in ("projects/plan.md", "projects/meeting.md", "inbox.md")
    )
    with opened(vault, tmp_path / "p") as store:
        plan, meeting, inbox = (by_title(store, t) for t in ("Plan", "Meeting notes", "Inbox"))
        _swap(plan_md, meeting_md)
        plan_md.write_text(plan_md.read_text() + "Also the canteen.\n")
        meeting_md.write_text(meeting_md.read_text() + "And the appendix.\n")
        inbox_md.write_text("# Inbox\n\nSomething else entirely now.\n")
        store.follower.scan()
        paths = store.note_paths()
        assert (paths[plan], paths[meeting], paths[inbox]) == (
            "projects/meeting.md", "projects/plan.md", "inbox.md"
        )  # fmt: skip
        assert store.get_note(meeting).body == NOTES + "Also the canteen.\n"
        assert {r.body for r in store.note_history(meeting)} == {NOTES, NOTES + "Also the canteen.\n"}


def test_a_swap_seen_step_by_step_keeps_each_notes_history(vault: Path, tmp_path: Path) -> None:
    """The watcher may see ``mv a t``, ``mv b a`` and ``mv t b`` in three batches. The second put
    b's text at the path of a's gone note, which took it (``a`` restored with b's text), and the
    third gave b's note a's text. A file holding exactly the content of a note whose file went in
    the same batch is that note, even at another gone note's path; that one is still found by its
    content. Not vacuous: without the middle rule each note gets the other's text."""
    plan_md, meeting_md, tmp = vault / "projects" / "plan.md", vault / "projects" / "meeting.md", vault / "t"
    with opened(vault, tmp_path / "p") as store:
        plan, meeting = by_title(store, "Plan"), by_title(store, "Meeting notes")
        plan_md.rename(tmp)
        store.follower.apply(["projects/plan.md", "t"])
        assert store.get_note(plan).is_trashed
        meeting_md.rename(plan_md)
        store.follower.apply(["projects/meeting.md", "projects/plan.md"])
        tmp.rename(meeting_md)
        store.follower.apply(["t", "projects/meeting.md"])
        paths = store.note_paths()
        assert (paths[plan], paths[meeting]) == ("projects/meeting.md", "projects/plan.md")
        assert not store.get_note(plan).is_trashed and not store.get_note(meeting).is_trashed
        assert {r.body for r in store.note_history(plan)} == {PLAN}
        assert {r.body for r in store.note_history(meeting)} == {NOTES}


def test_a_note_whose_path_another_took_comes_back_beside_it_on_restore(vault: Path, tmp_path: Path) -> None:
    """``mv b a`` over a deleted a: the file is b's note; a's note stays in the trash, and its
    restore writes its file beside (``plan 2.md``), never over b's."""
    plan_md, meeting_md = vault / "projects" / "plan.md", vault / "projects" / "meeting.md"
    with opened(vault, tmp_path / "p") as store:
        plan, meeting = by_title(store, "Plan"), by_title(store, "Meeting notes")
        plan_md.unlink()
        store.follower.apply(["projects/plan.md"])
        meeting_md.rename(plan_md)
        store.follower.apply(["projects/meeting.md", "projects/plan.md"])
        assert store.note_paths()[meeting] == "projects/plan.md" and store.get_note(plan).is_trashed
        store.restore_note(plan, actor="user")
        assert store.note_paths()[plan] == "projects/plan 2.md"
        assert (vault / "projects" / "plan 2.md").read_text() == PLAN and plan_md.read_text() == NOTES


@pytest.mark.parametrize("seen", ["scan", "batch"])
def test_a_file_moved_over_another_is_its_own_note_and_the_other_is_deleted(
    vault: Path, tmp_path: Path, seen: str
) -> None:
    """``mv meeting.md plan.md``: the file at plan.md is the meeting note (its id, history, tags),
    and the plan note is deleted outside noted, restorable from its last version beside it. Before
    the fix the plan note took the meeting's text and the meeting note went to the trash. Not
    vacuous: each note is looked up by the id read before the move."""
    plan_md, meeting_md = vault / "projects" / "plan.md", vault / "projects" / "meeting.md"
    with opened(vault, tmp_path / "p") as store:
        plan, meeting = by_title(store, "Plan"), by_title(store, "Meeting notes")
        store.update_note(plan, NotePatch(append="A later line of the plan.\n"), actor="user")
        meeting_md.rename(plan_md)
        if seen == "scan":
            store.follower.scan()
        else:
            store.follower.apply(["projects/plan.md", "projects/meeting.md"])
        assert store.note_paths()[meeting] == "projects/plan.md"
        assert not store.get_note(meeting).is_trashed and store.get_note(meeting).body == NOTES
        assert {r.body for r in store.note_history(meeting)} == {NOTES}
        assert store.get_note(plan).is_trashed
        store.restore_note(plan, actor="user")
        assert store.note_paths()[plan] == "projects/plan 2.md"
        assert (vault / "projects" / "plan 2.md").read_text() == PLAN + "A later line of the plan.\n"
        assert plan_md.read_text() == NOTES


def test_a_file_moved_over_another_and_edited_is_its_own_note_when_unlike_the_other(
    vault: Path, tmp_path: Path
) -> None:
    """``mv meeting.md plan.md`` plus an edit: still the meeting note (its text, edited, and unlike
    the plan's). A plan rewritten to hold some of the inbox's words (gone too) stays the plan."""
    plan_md, meeting_md, inbox_md = (
        vault / p for p in ("projects/plan.md", "projects/meeting.md", "inbox.md")
    )
    with opened(vault, tmp_path / "p") as store:
        plan, meeting, inbox = (by_title(store, t) for t in ("Plan", "Meeting notes", "Inbox"))
        meeting_md.rename(plan_md)
        plan_md.write_text(NOTES.replace("spring", "early spring"))
        store.follower.scan()
        assert store.note_paths()[meeting] == "projects/plan.md" and store.get_note(plan).is_trashed
        inbox_text = inbox_md.read_text()
        inbox_md.unlink()
        plan_md.write_text(NOTES + inbox_text.split("\n")[2] + "\n")  # alike both: it stays its own
        store.follower.scan()
        assert store.note_paths()[meeting] == "projects/plan.md" and store.get_note(inbox).is_trashed


def _swap_dirs(root: Path, a: str = "projects", b: str = "archive") -> None:
    (root / a).rename(root / "t")
    (root / b).rename(root / a)
    (root / "t").rename(root / b)


@pytest.mark.parametrize("seen", ["scan", "batch", "steps"])
def test_two_folders_swapping_names_keep_each_notebook_with_its_files(
    vault: Path, tmp_path: Path, seen: str
) -> None:
    """``mv projects t; mv archive projects; mv t archive``: each notebook follows its files (as a
    note does), renamed, so a client bound to a notebook id sees the same notes. Before the fix the
    notebooks stayed with the names and the notes changed notebooks. Not vacuous: by ids read before."""
    (vault / "archive" / "old.md").write_text("# Old\n\nArchived long ago.\n")
    with opened(vault, tmp_path / "p") as store:
        projects, archive = folder_named(store, "projects"), folder_named(store, "archive")
        plan, old = by_title(store, "Plan"), by_title(store, "Old")
        if seen == "steps":
            for a, b in (("projects", "t"), ("archive", "projects"), ("t", "archive")):
                (vault / a).rename(vault / b)
                store.follower.apply([a, b])
        else:
            _swap_dirs(vault)
            if seen == "scan":
                store.follower.scan()
            else:
                store.follower.apply(["projects", "archive", "t"])
        assert (store.get_folder(projects).title, store.get_folder(archive).title) == ("archive", "projects")
        assert store.get_note(plan).parent_id == projects and store.get_note(old).parent_id == archive
        assert store.note_paths()[plan] == "archive/plan.md"
        assert store.get_folder(folder_named(store, "deep")).parent_id == projects
        assert not store.get_folder(projects).is_trashed and not store.get_folder(archive).is_trashed


def test_a_rename_and_edit_seen_in_two_watcher_batches_keeps_the_note(vault: Path, tmp_path: Path) -> None:
    """The watcher may report the old name's deletion a batch before the new, edited file (under
    load; or the file moved out of the folder, edited and moved back in). The deletion trashed the
    note and the new file became a new note, cutting the history off. The next batch's new files
    are now matched, by the same rule, with the notes whose file went in the batch before, and only
    those: after a batch between, it is a new note. Not vacuous: by the id read before."""
    plan_md = vault / "projects" / "plan.md"
    with opened(vault, tmp_path / "p") as store:
        plan, inbox = by_title(store, "Plan"), by_title(store, "Inbox")
        before = len(store.note_history(plan))
        text = plan_md.read_text()
        plan_md.unlink()
        store.follower.apply(["projects/plan.md"])
        assert store.get_note(plan).is_trashed
        (vault / "projects" / "quarter.md").write_text(text.replace("summary", "short summary"))
        store.follower.apply(["projects/quarter.md"])
        note = store.get_note(plan)
        assert not note.is_trashed and "short summary" in note.body
        assert store.note_paths()[plan] == "projects/quarter.md"
        assert len(store.note_history(plan)) == before + 1
        text = (vault / "inbox.md").read_text()
        (vault / "inbox.md").unlink()
        store.follower.apply(["inbox.md"])
        (vault / "projects" / "meeting.md").write_text(NOTES + "Later.\n")
        store.follower.apply(["projects/meeting.md"])  # a batch between: the inbox is gone for good
        (vault / "garden.md").write_text(text + "Buy more posts.\n")
        store.follower.apply(["garden.md"])
        assert store.get_note(inbox).is_trashed and by_title(store, "Inbox") != inbox


@pytest.mark.parametrize("seen", ["scan", "batch"])
def test_a_folder_moved_over_a_deleted_one_is_its_own_notebook(
    vault: Path, tmp_path: Path, seen: str
) -> None:
    """``rm -r archive; mv projects archive``: the folder is the projects notebook, renamed, and the
    archive notebook, its folder gone, is in the trash. Before the fix the archive notebook took
    the projects notes (a client bound to it saw them). The archive's own ``plan.md`` is deleted
    (its restore writes ``plan 2.md``), never the projects plan that took its path."""
    (vault / "archive" / "old.md").write_text("# Old\n\nArchived long ago.\n")
    (vault / "archive" / "plan.md").write_text("# Old plan\n\nLong gone.\n")
    with opened(vault, tmp_path / "p") as store:
        projects, archive = folder_named(store, "projects"), folder_named(store, "archive")
        plan, old_plan = by_title(store, "Plan"), by_title(store, "Old plan")
        shutil.rmtree(vault / "archive")
        (vault / "projects").rename(vault / "archive")
        if seen == "scan":
            store.follower.scan()
        else:
            store.follower.apply(["projects", "archive", "archive/old.md", "archive/plan.md"])
        assert store.get_folder(projects).title == "archive" and not store.get_folder(projects).is_trashed
        assert store.get_note(plan).parent_id == projects
        assert store.get_folder(archive).is_trashed
        assert store.note_paths()[plan] == "archive/plan.md" and store.get_note(plan).body == PLAN
        assert store.get_note(old_plan).is_trashed


def test_a_folder_deleted_beside_an_edit_in_another_takes_nothing(vault: Path, tmp_path: Path) -> None:
    """A batch that deletes a folder and edits a file of the same name in another: the batch lists
    only that file of the other folder, which must not read as a folder holding the deleted one's
    files (only folders listed in full are compared)."""
    (vault / "archive" / "plan.md").write_text("# Old plan\n\nLong gone.\n")
    with opened(vault, tmp_path / "p") as store:
        projects, archive, plan = (
            folder_named(store, "projects"),
            folder_named(store, "archive"),
            by_title(store, "Plan"),
        )
        shutil.rmtree(vault / "archive")
        (vault / "projects" / "plan.md").write_text(PLAN + "One more line.\n")
        store.follower.apply(["archive", "archive/plan.md", "projects/plan.md"])
        assert folder_named(store, "projects") == projects and store.get_folder(archive).is_trashed
        assert store.get_note(plan).parent_id == projects and store.note_paths()[plan] == "projects/plan.md"


def test_a_file_moved_over_another_seen_in_two_batches_is_its_own_note(vault: Path, tmp_path: Path) -> None:
    """``mv meeting.md plan.md`` reported as the deletion of meeting.md, then (next batch) the change
    of plan.md: the meeting note, trashed by the first, is the file at plan.md (and comes back);
    the plan note is deleted. Before, the plan note took the meeting's text."""
    plan_md, meeting_md = vault / "projects" / "plan.md", vault / "projects" / "meeting.md"
    with opened(vault, tmp_path / "p") as store:
        plan, meeting = by_title(store, "Plan"), by_title(store, "Meeting notes")
        meeting_md.rename(plan_md)
        store.follower.apply(["projects/meeting.md"])
        assert store.get_note(meeting).is_trashed
        store.follower.apply(["projects/plan.md"])
        assert store.note_paths()[meeting] == "projects/plan.md" and not store.get_note(meeting).is_trashed
        assert store.get_note(plan).is_trashed and store.get_note(plan).body == PLAN


@pytest.mark.parametrize("seen", ["scan", "batch"])
@pytest.mark.parametrize("own_files", [True, False])
def test_folders_swapped_with_a_same_named_identical_file_keep_each_notebook_whole(
    vault: Path, tmp_path: Path, seen: str, own_files: bool
) -> None:
    """``mv Work t; mv Home Work; mv t Home``, each holding a ``todo.md`` of the same text: a folder
    still holding half its names read as itself, so the notebooks kept their names and the files
    changed notebooks (a client limited to Work saw Home's note). Each notebook now follows its
    folder with every note in it, the identical ``todo.md`` included (by its folder: its text tells
    nothing). Folders that nothing tells apart (only identical files) each stay their name's.
    Not vacuous: by the ids read before, and every note's file lies in its notebook's folder."""
    for name in ("Work", "Home"):
        (vault / name).mkdir()
        (vault / name / "todo.md").write_text("# Todo\n\n- [ ] call them back\n")
        if own_files:
            (vault / name / f"{name.lower()}.md").write_text(f"# {name} only\n\nThe {name} things.\n")
    with opened(vault, tmp_path / "p") as store:
        work, home = folder_named(store, "Work"), folder_named(store, "Home")
        in_work = {n.id for n in store.list_notes(folder_id=work)}
        in_home = {n.id for n in store.list_notes(folder_id=home)}
        _swap_dirs(vault, "Work", "Home")
        if seen == "scan":
            store.follower.scan()
        else:
            store.follower.apply(["Work", "Home", "t"])
        assert {n.id for n in store.list_notes(folder_id=work)} == in_work
        assert {n.id for n in store.list_notes(folder_id=home)} == in_home
        titles = (store.get_folder(work).title, store.get_folder(home).title)
        assert titles == (("Home", "Work") if own_files else ("Work", "Home"))
        paths = store.note_paths()
        for note_id in in_work | in_home:
            folder = store.get_folder(store.get_note(note_id).parent_id).title
            assert paths[note_id].startswith(folder + "/"), (paths[note_id], folder)


@pytest.mark.parametrize("seen", ["batch", "scan"])
def test_a_save_as_then_a_later_delete_keeps_the_notes_history(
    vault: Path, tmp_path: Path, seen: str
) -> None:
    """An editor's save-as writes ``quarter.md`` with the plan's text; later, apart, ``rm plan.md``.
    The copy was a new note and the deletion trashed the plan, cutting its history off. As for a
    file moved (its text exactly a note's whose file went), the plan's note now takes the copy's
    file, and the copy's own note, made a moment before, is deleted outside noted (nothing lost).
    A copy someone changed in noted meanwhile (a tag) stays its own note. Not vacuous: by ids."""
    plan_md, copy_md = vault / "projects" / "plan.md", vault / "projects" / "quarter.md"

    def follow(store: VaultStore, *paths: str) -> VaultStore:
        if seen == "batch":
            store.follower.apply(list(paths))
            return store
        store.close()  # ``noted`` run between the two steps: each is seen by a start-up scan
        return VaultStore.open(vault, tmp_path / "p")

    store = VaultStore.open(vault, tmp_path / "p")
    try:
        plan, meeting = by_title(store, "Plan"), by_title(store, "Meeting notes")
        store.update_note(plan, NotePatch(append="Last, we send it.\n"), actor="user")
        history = {r.body for r in store.note_history(plan)}
        copy_md.write_text(plan_md.read_text())
        store = follow(store, "projects/quarter.md")
        copy = next(n.id for n in store.list_notes() if n.id not in {plan} and n.title == "Plan")
        plan_md.unlink()
        store = follow(store, "projects/plan.md")
        assert store.note_paths()[plan] == "projects/quarter.md" and not store.get_note(plan).is_trashed
        assert {r.body for r in store.note_history(plan)} == history
        assert store.get_note(copy).is_trashed
        # A copy tagged in noted before the delete: its own note, and the meeting note is deleted.
        (vault / "projects" / "minutes.md").write_text((vault / "projects" / "meeting.md").read_text())
        store = follow(store, "projects/minutes.md")
        minutes = store.note_paths()
        (kept,) = [n for n, p in minutes.items() if p == "projects/minutes.md"]
        store.tag_note(kept, ["mine"], actor="user")
        (vault / "projects" / "meeting.md").unlink()
        store = follow(store, "projects/meeting.md")
        assert store.get_note(meeting).is_trashed and not store.get_note(kept).is_trashed
    finally:
        store.close()


@pytest.mark.parametrize("seen", ["batch", "scan"])
def test_a_checkout_that_removes_a_note_leaves_its_copy_its_own(
    vault: Path, tmp_path: Path, seen: str
) -> None:
    """``cp plan.md quarter.md``, then a ``git checkout`` of a branch without ``plan.md`` removes it
    and leaves the untracked copy. That is no save-as: the plan's note took the copy's file (its id,
    history and tags moved there), and checking the plan's branch out again gave ``plan.md`` a new
    note with no history. The file git removed is the plan's, deleted (in the trash, its history
    whole, and back with its id when git brings the file back); the copy keeps its own note. Not
    vacuous: by ids, which the save-as rule swaps (``test_a_save_as_then_a_later_delete...``)."""
    plan_md, copy_md = vault / "projects" / "plan.md", vault / "projects" / "quarter.md"
    git(vault, "checkout", "-q", "-b", "bare")
    git(vault, "rm", "-q", "projects/plan.md")
    git(vault, "commit", "-qm", "no plan")
    git(vault, "checkout", "-q", "-")

    def follow(store: VaultStore, *paths: str) -> VaultStore:
        if seen == "batch":
            store.follower.apply(list(paths))
            return store
        store.close()
        return VaultStore.open(vault, tmp_path / "p")

    store = VaultStore.open(vault, tmp_path / "p")
    try:
        plan = by_title(store, "Plan")
        store.update_note(plan, NotePatch(append="Last, we send it.\n"), actor="user")
        store.tag_note(plan, ["board"], actor="user")
        git(vault, "commit", "-qam", "plan edited")
        history = {r.body for r in store.note_history(plan)}
        shutil.copyfile(plan_md, copy_md)
        store = follow(store, "projects/quarter.md")
        copy = next(n.id for n in store.list_notes() if n.id != plan and n.title == "Plan")
        git(vault, "checkout", "-q", "bare")
        assert not plan_md.exists() and copy_md.exists()
        store = follow(store, "projects/plan.md")
        assert store.note_paths()[copy] == "projects/quarter.md" and not store.get_note(copy).is_trashed
        assert store.get_note(plan).is_trashed and {r.body for r in store.note_history(plan)} == history
        git(vault, "checkout", "-q", "-")
        store = follow(store, "projects/plan.md")
        assert not store.get_note(plan).is_trashed and store.note_paths()[plan] == "projects/plan.md"
        assert [t.title for t in store.note_tags(plan)] == ["board"]
    finally:
        store.close()
