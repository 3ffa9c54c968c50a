"""The Markdown-folder backend on a real folder under real ``git``: what it reads, what each kind
of noted write leaves in ``git diff``, conflicts, the trash, what it skips, and outside changes."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.polling import wait_for
from tests.support.vaults import by_title, git, opened

from noted.errors import ConflictError
from noted.models import ACTOR_OUTSIDE, NoteDraft, NotePatch
from noted.ops.conflicts import Choice, Conflict, resolve
from noted.ops.links import note_links
from noted.search.keyword import KeywordSearch
from noted.store.protocol import Store
from noted.store.vault import VaultStore

FRONT = "---\r\nzeta: last-first\r\ntags: [work]\r\naliases: [p]\r\n---\r\n\r\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "projects").mkdir(parents=True)
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "note.md").write_text("# obsidian's own\n")
    (root / "projects" / "plan.md").write_bytes((FRONT + "# Plan\r\n\r\nFirst step.\r\n").encode())
    (root / "inbox.md").write_text("Loose thought with #idea\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "skip.md").write_text("# ignored by git\n")
    (root / ".gitignore").write_text("ignored/\n")
    (root / "latin1.md").write_bytes("caf\xe9\n".encode("latin-1"))
    git(root, "init", "-q")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    return root


@pytest.fixture
def store(vault: Path, tmp_path: Path) -> Iterator[VaultStore]:
    opened = VaultStore.open(vault, tmp_path / "profile")
    yield opened
    opened.close()


def diff(vault: Path) -> list[str]:
    """The changed lines of ``git diff`` (without the headers), line endings shown."""
    out = subprocess.run(["git", "-C", str(vault), "diff", "-U0"], capture_output=True, check=True).stdout
    lines = out.decode().split("\n")
    return [line for line in lines if line[:1] in ("+", "-") and not line.startswith(("+++", "---"))]


MIRROR_METHODS = {
    *("list_folders", "get_folder", "folder_note_counts", "get_note", "get_notes", "note_metas"),
    "list_notes",
    *("count_notes", "list_tags", "get_tag", "find_tag", "note_tags", "note_tag_titles", "get_resource"),
    *("list_resources", "resource_notes", "changes_since", "notes_changed_since", "latest_cursor"),
    "item_changes",
    *("note_history", "get_revision", "prune_history", "create_tag", "add_resource"),
    "resource_versions",
    "kept_resource_ids",
    "kept_notes",
    "first_change_not_by",
}
"""The Store methods the mirror answers alone: reads, a tag with no notes, an attachment not yet linked."""


def test_every_store_method_that_writes_the_folder_is_the_vaults_own(store: VaultStore) -> None:
    # The store's parts bind the mirror's methods and then the vault's over them: a write left
    # bound to the mirror would change the mirror and never the file, so it must be in this set.
    mirror = {store.mirror.folders, store.mirror.notes, store.mirror.tags, store.mirror.resources}
    mirror.add(store.mirror.history)
    names = [n for n in dir(Store) if not n.startswith("_") and callable(getattr(Store, n))]
    served = {n for n in names if getattr(getattr(store, n), "__self__", None) in mirror}
    assert served == MIRROR_METHODS


def test_it_reads_titles_tags_and_folders_and_skips_what_it_should(store: VaultStore) -> None:
    titles = sorted(m.title for m in store.list_notes())
    assert titles == ["Plan", "inbox"]  # not .obsidian/, not .gitignore'd, not the Latin-1 file
    plan = store.get_note(by_title(store, "Plan"))
    assert plan.body == "# Plan\n\nFirst step.\n"
    assert [t.title for t in store.note_tags(plan.id)] == ["work"]
    assert store.get_folder(plan.parent_id).title == "projects"
    assert [t.title for t in store.note_tags(by_title(store, "inbox"))] == ["idea"]
    assert store.ledger.skipped() == [("latin1.md", "not UTF-8 (byte 3); noted reads and writes only UTF-8")]


def test_each_kind_of_noted_write_leaves_exactly_that_edit_in_git_diff(
    store: VaultStore, vault: Path
) -> None:
    plan = by_title(store, "Plan")
    store.update_note(plan, NotePatch(append="Second step."), actor="user")
    assert diff(vault) == ["+Second step.\r"]
    store.tag_note(plan, ["urgent"], actor="user")
    assert diff(vault) == ["-tags: [work]\r", "+tags: [work, urgent]\r", "+Second step.\r"]
    git(vault, "checkout", "-q", ".")
    store.follower.scan()
    store.update_note(plan, NotePatch(is_todo=True), actor="user")
    assert diff(vault) == ["+todo: true\r"]
    git(vault, "checkout", "-q", ".")
    store.follower.scan()
    store.update_note(plan, NotePatch(title="Better plan"), actor="user")
    assert diff(vault) == ["-# Plan\r", "+# Better plan\r"]
    git(vault, "checkout", "-q", ".")
    store.follower.scan()
    inbox = by_title(store, "inbox")
    store.update_note(inbox, NotePatch(body="Loose thought with #idea"), actor="user")  # no newline given
    assert diff(vault) == [] and git(vault, "status", "--porcelain") == ""


def test_a_note_moved_to_another_notebook_is_a_clean_rename_and_trash_moves_to_dot_trash(
    store: VaultStore, vault: Path
) -> None:
    inbox = by_title(store, "inbox")
    projects = store.get_note(by_title(store, "Plan")).parent_id
    store.update_note(inbox, NotePatch(parent_id=projects), actor="user")
    assert (vault / "projects" / "inbox.md").read_text() == "Loose thought with #idea\n"
    store.trash_note(inbox, actor="user")
    assert (vault / ".trash" / "projects" / "inbox.md").exists()
    assert not (vault / "projects" / "inbox.md").exists()
    store.restore_note(inbox, actor="user")
    assert (vault / "projects" / "inbox.md").read_text() == "Loose thought with #idea\n"
    assert not (vault / ".trash" / "projects").exists()  # the folder it left empty goes too
    store.trash_note(inbox, actor="user")
    (vault / ".trash" / "keep.md").write_text("a file of the person's own\n")
    assert store.empty_trash(actor="user") == 1
    assert not (vault / ".trash" / "projects").exists() and (vault / ".trash" / "keep.md").exists()


def test_a_notebook_erased_for_good_leaves_the_folder_working(vault: Path, tmp_path: Path) -> None:
    """Emptying the trash after trashing a notebook left its folder in the ledger: the next open
    met it as a folder gone outside, trashed a notebook that no longer existed, and every command
    failed ("no notebook with id …") until the profile's database was deleted."""
    (vault / "projects" / "deep").mkdir()
    (vault / "projects" / "deep" / "d.md").write_text("deep\n")
    store = VaultStore.open(vault, tmp_path / "profile")
    try:
        projects = store.get_note(by_title(store, "Plan")).parent_id
        store.trash_folder(projects, actor="user")
        assert store.empty_trash(actor="user") == 2
        assert not store.ledger.all_folders().keys() & {"projects", "projects/deep"}
    finally:
        store.close()
    again = VaultStore.open(vault, tmp_path / "profile")  # raised NotFoundError
    try:
        assert {m.title for m in again.list_notes()} >= {"inbox"}
        (vault / "projects").mkdir()
        (vault / "projects" / "new.md").write_text("new\n")
        again.follower.scan()
        assert "projects" in {f.title for f in again.list_folders()}
        with again.mirror.db.write() as conn:  # what an older noted left behind
            again.ledger.put_folder(conn, "0" * 32, "ghost")
    finally:
        again.close()
    VaultStore.open(vault, tmp_path / "profile").close()  # the folder the ledger alone knew is forgotten


def test_a_note_whose_file_name_is_near_the_longest_a_folder_takes_can_be_saved(
    store: VaultStore, vault: Path
) -> None:
    """The file written beside it, ``.NAME.noted-PID.tmp``, was 17 bytes past 255: a note another
    app named with 119 accented letters could not be saved at all (exit 70)."""
    name = "é" * 125 + ".md"  # 253 bytes
    (vault / name).write_text("x\n")
    store.follower.scan()
    note = by_title(store, "é" * 125)
    store.update_note(note, NotePatch(body="x\nsaved\n"), actor="user")
    assert (vault / name).read_text() == "x\nsaved\n"
    assert [p.name for p in vault.iterdir() if p.name.endswith(".tmp")] == []


def test_a_file_named_with_a_control_character_opens_with_the_character_shown(
    store: VaultStore, vault: Path
) -> None:
    """Titles with control characters are refused on input, so a file named with one made the
    whole folder fail to open (every command exited 2)."""
    named = vault / "bell\x07 and\ttab.md"
    named.write_text("text\n")
    (vault / "front.md").write_text('---\ntitle: "esc\\x1b[2J"\n---\nbody\n')
    store.follower.scan()
    assert {"bell␇ and tab", "esc␛[2J"} <= {m.title for m in store.list_notes()}
    saved = store.update_note(by_title(store, "esc␛[2J"), NotePatch(body="body\nmore\n"), actor="user")
    assert saved.title == "esc␛[2J" and named.exists()
    assert (vault / "front.md").read_text() == '---\ntitle: "esc\\x1b[2J"\n---\nbody\nmore\n'  # as written


def test_a_trashed_file_changed_outside_noted_stays_with_its_note_and_comes_back_with_its_text(
    store: VaultStore, vault: Path
) -> None:
    """Emptying the trash kept such a file (noted did not write it) but erased its note and said
    "deleted": the text sat unseen in .trash/. A restore then showed the text noted knew, not the file's."""
    plan = by_title(store, "Plan")
    folder = store.get_note(plan).parent_id
    store.trash_note(by_title(store, "inbox"), actor="user")
    store.trash_note(plan, actor="user")
    store.trash_folder(folder, actor="user")
    trashed = vault / ".trash" / "projects" / "plan.md"
    trashed.write_bytes(trashed.read_bytes() + b"Written while in the trash.\r\n")
    assert store.empty_trash(actor="user") == 1  # inbox.md went
    assert not (vault / ".trash" / "inbox.md").exists() and trashed.exists()
    assert store.get_note(plan).is_trashed and store.get_folder(folder).is_trashed  # both still listed
    assert store.empty_trash(actor="user") == 0 and trashed.exists()  # the same answer the next time
    restored = store.restore_note(plan, actor="user")
    assert "Written while in the trash." in restored.body
    assert store.note_history(plan)[0].actor == ACTOR_OUTSIDE
    assert (vault / "projects" / "plan.md").read_bytes().endswith(b"Written while in the trash.\r\n")


def test_a_save_on_a_stale_base_records_the_editors_version_and_keep_both_writes_a_conflict_copy(
    store: VaultStore, vault: Path
) -> None:
    plan = store.get_note(by_title(store, "Plan"))
    path = vault / "projects" / "plan.md"
    path.write_bytes(path.read_bytes().replace(b"First step.", b"Edited next door."))
    mine = plan.body + "Mine.\n"
    with pytest.raises(ConflictError):
        store.update_note(plan.id, NotePatch(body=mine), actor="user", base_updated_time=plan.updated_time)
    history = store.note_history(plan.id)
    assert history[0].actor == ACTOR_OUTSIDE and "Edited next door." in history[0].body
    resolved = resolve(store, Conflict.read(store, plan, plan.title, mine), Choice.KEEP_BOTH, actor="user")
    assert resolved.copy is not None
    copies = [p.name for p in (vault / "projects").iterdir() if "conflict copy" in p.name]
    assert len(copies) == 1 and copies[0].startswith("Plan (conflict copy ") and copies[0].endswith(".md")
    assert "> Conflict copy of [Plan](plan.md), saved " in (vault / "projects" / copies[0]).read_text()
    assert "Edited next door." in path.read_text()  # theirs stays in the file


def test_a_save_to_a_note_whose_file_was_deleted_meanwhile_is_a_conflict(
    store: VaultStore, vault: Path
) -> None:
    """The deletion was caught up (the note to noted's trash), then the save wrote the file back
    from the mirror: silently, without its front-matter title and the keys only the file held."""
    path = vault / "file.md"
    path.write_text("---\ntitle: Real Title\ntags: [work]\ncustom: keep me\n---\nbody\n")
    store.follower.scan()
    note = store.get_note(by_title(store, "Real Title"))
    path.unlink()
    with pytest.raises(ConflictError):
        store.update_note(
            note.id, NotePatch(body="body\nmore\n"), actor="user", base_updated_time=note.updated_time
        )
    assert not path.exists() and store.get_note(note.id).is_trashed
    # A write that asked for no base (an append, Overwrite) writes the file noted last saw (its
    # front matter as it was) with the change into .trash/: the note stays in the trash, as on the
    # other backends.
    store.update_note(note.id, NotePatch(append="more"), actor="user")
    trashed = vault / ".trash" / "file.md"
    assert trashed.read_text() == "---\ntitle: Real Title\ntags: [work]\ncustom: keep me\n---\nbody\nmore\n"
    assert not path.exists()
    assert store.get_note(note.id).title == "Real Title" and store.get_note(note.id).is_trashed
    store.restore_note(note.id, actor="user")  # back to where it was, by moving that file
    assert path.read_text().endswith("body\nmore\n") and not trashed.exists()


def test_outside_renames_keep_the_notes_identity_and_deletions_go_to_the_trash(
    store: VaultStore, vault: Path
) -> None:
    plan = by_title(store, "Plan")
    store.update_note(plan, NotePatch(append="kept"), actor="user")
    os.rename(vault / "projects", vault / "work")
    os.rename(vault / "inbox.md", vault / "work" / "moved.md")
    store.follower.apply(["projects", "work", "inbox.md", "work/moved.md"])
    assert by_title(store, "Plan") == plan
    assert len(store.note_history(plan)) == 2  # its history came along
    moved = store.get_note(by_title(store, "moved"))
    assert store.get_folder(moved.parent_id).title == "work"
    (vault / "work" / "moved.md").unlink()
    store.follower.apply(["work/moved.md"])
    assert store.get_note(moved.id).is_trashed
    assert store.item_changes([moved.id])[0].actor == ACTOR_OUTSIDE
    store.restore_note(moved.id, actor="user")  # written back from what noted kept
    assert (vault / "work" / "moved.md").read_text() == "Loose thought with #idea\n"


def test_the_start_up_scan_catches_what_changed_while_noted_was_closed(vault: Path, tmp_path: Path) -> None:
    with opened(vault, tmp_path / "p") as store:
        inbox = by_title(store, "inbox")
    (vault / "inbox.md").write_text("Changed while closed\n")
    (vault / "new.md").write_text("# Brand new\n")
    with opened(vault, tmp_path / "p") as store:
        assert store.get_note(inbox).body == "Changed while closed\n"
        assert store.note_history(inbox)[0].actor == ACTOR_OUTSIDE
        assert by_title(store, "Brand new")


@pytest.mark.parametrize("when", ["closed", "running"])
def test_a_folder_named_like_a_note_is_a_notebook(vault: Path, tmp_path: Path, when: str) -> None:
    """A new folder whose name ends in .md was taken for a note's file: every command, and the app's
    start, failed with IsADirectoryError (exit 70). Not vacuous: the note inside is read from it."""
    with opened(vault, tmp_path / "p") as store:
        if when == "running":  # as the watcher hands it over
            (vault / "x.md" / "empty.md").mkdir(parents=True)
            (vault / "x.md" / "in.md").write_text("# Inside\n")
            store.follower.apply(["x.md"])
            assert store.get_folder(store.get_note(by_title(store, "Inside")).parent_id).title == "x.md"
    if when == "closed":
        (vault / "x.md" / "empty.md").mkdir(parents=True)
        (vault / "x.md" / "in.md").write_text("# Inside\n")
    with opened(vault, tmp_path / "p") as store:
        inside = store.get_note(by_title(store, "Inside"))
        assert store.get_folder(inside.parent_id).title == "x.md"
        assert {f.title for f in store.list_folders()} >= {"x.md", "empty.md"}


def test_a_notes_file_replaced_by_a_folder_of_its_name_is_a_note_deleted_outside(
    vault: Path, tmp_path: Path
) -> None:
    """The note stayed live with no file (the folder taken for its file), and an edit failed with
    IsADirectoryError (exit 70). Now it goes to noted's trash, as a deleted file's note does, and
    the folder is a notebook; a restore writes the note where it fits."""
    with opened(vault, tmp_path / "p") as store:
        inbox = by_title(store, "inbox")
    (vault / "inbox.md").unlink()
    (vault / "inbox.md").mkdir()
    with opened(vault, tmp_path / "p") as store:
        assert store.get_note(inbox).is_trashed
        assert "inbox.md" in {f.title for f in store.list_folders()}
        store.restore_note(inbox, actor="user")
        store.update_note(inbox, NotePatch(append="more"), actor="user")
        assert "more" in store.note_path(inbox).read_text() and (vault / "inbox.md").is_dir()


def test_the_watcher_brings_an_outside_save_to_keyword_search(store: VaultStore, vault: Path) -> None:
    store.start_watching()
    keyword = KeywordSearch(store)
    (vault / "projects" / "fresh.md").write_text("# Fresh\n\nzanzibar quokka\n")
    wait_for(lambda: keyword.search("quokka").total == 1, what="the new file found by keyword")
    (vault / "projects" / "fresh.md").write_text("# Fresh\n\nzanzibar wombat\n")
    wait_for(lambda: keyword.search("wombat").total == 1, what="the edit found by keyword")
    assert keyword.search("quokka").total == 0


def test_a_symlink_out_of_the_folder_is_never_followed(vault: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("# Secret\n")
    (vault / "link.md").symlink_to(outside)
    with opened(vault, tmp_path / "p") as store:
        assert "Secret" not in [m.title for m in store.list_notes()]
        assert (
            "link.md",
            "a symbolic link (noted reads and writes only plain files)",
        ) in store.ledger.skipped()


def test_links_that_are_no_notes_are_listed_and_a_linked_gitignore_is_not_read(
    vault: Path, tmp_path: Path
) -> None:
    """A link to a folder or to a file that is no note was left out without a word, and a
    ``.gitignore`` that is a link was read from wherever it led (here: outside the folder). Git
    (2.32 on) does not follow such a ``.gitignore`` either. Not vacuous: the ignored note is read
    once the link is not, and a hidden or ignored link is still not listed."""
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "outside-ignore").write_text("secret.md\n")
    (vault / "secret.md").write_text("# Secret\n")
    (vault / ".gitignore").unlink()
    (vault / ".gitignore").symlink_to(tmp_path / "outside-ignore")
    (vault / "linkdir").symlink_to(tmp_path / "elsewhere")
    (vault / "projects" / "photo.png").symlink_to(tmp_path / "outside-ignore")
    (vault / "projects" / "scan.pdf").symlink_to(tmp_path / "outside-ignore")  # (two in one folder)
    (vault / ".hidden-link").symlink_to(tmp_path / "elsewhere")
    with opened(vault, tmp_path / "p") as store:
        skipped = dict(store.ledger.skipped())
        assert "Secret" in [m.title for m in store.list_notes()]
        link = "a symbolic link (noted reads and writes only plain files)"
        assert skipped[".gitignore"] == link + "; its rules are not read"
        assert skipped["linkdir"] == "a symbolic link to a folder (noted follows no links)"
        assert skipped["projects/photo.png"] == skipped["projects/scan.pdf"] == link
        assert ".hidden-link" not in skipped


def test_a_move_seen_in_two_watcher_batches_keeps_the_note(store: VaultStore, vault: Path) -> None:
    # A git checkout under load reaches the watcher in several batches: the deletion in one, the
    # file at its new path in a later one. The gone file's hash is kept so the note is found again.
    inbox = by_title(store, "inbox")
    os.rename(vault / "inbox.md", vault / "projects" / "later.md")
    store.follower.apply(["inbox.md"])
    assert store.get_note(inbox).is_trashed
    store.follower.apply(["projects/later.md"])
    assert by_title(store, "later") == inbox and not store.get_note(inbox).is_trashed
    assert store.note_paths()[inbox] == "projects/later.md"


def test_the_app_shows_a_folder_read_before_at_once_and_its_watcher_scans_it(
    vault: Path, tmp_path: Path
) -> None:
    with opened(vault, tmp_path / "p"):
        pass
    (vault / "inbox.md").write_text("Changed while closed\n")
    store = VaultStore.open(vault, tmp_path / "p", defer_scan=True)
    try:
        inbox = by_title(store, "inbox")
        assert store.get_note(inbox).body == "Loose thought with #idea\n"  # shown as noted last saw it
        store.start_watching()
        wait_for(lambda: store.get_note(inbox).body == "Changed while closed\n", what="the watcher's scan")
    finally:
        store.close()


def test_the_index_by_meaning_follows_an_outside_edit(store: VaultStore, vault: Path) -> None:
    from noted.embeddings.fake import FakeEmbedder
    from noted.indexer.engine import Indexer
    from noted.search.semantic import SemanticSearch

    embedder = FakeEmbedder()
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    search = SemanticSearch(store, store.db, embedder)
    (vault / "inbox.md").write_text("kangaroo habitats across the outback\n")
    store.follower.apply(["inbox.md"])  # what the watcher does with the editor's save
    indexer.run_until_idle()  # the indexer follows the mirror's change feed, as on every backend
    hits = search.search("kangaroo habitats across the outback", limit=3)
    assert hits and hits[0].note_id == by_title(store, "inbox")


def test_a_skipped_file_is_listed_until_it_goes(store: VaultStore, vault: Path) -> None:
    assert [p for p, _ in store.ledger.skipped()] == ["latin1.md"]
    (vault / "latin1.md").unlink()
    store.follower.scan()
    assert store.ledger.skipped() == []


def test_a_rename_in_place_is_in_the_feed_and_in_note_paths(store: VaultStore, vault: Path) -> None:
    plan = by_title(store, "Plan")  # titled by its heading: the rename changes nothing else
    assert store.note_paths()[plan] == "projects/plan.md"
    cursor = store.latest_cursor()
    os.rename(vault / "projects" / "plan.md", vault / "projects" / "plan-2026.md")
    store.follower.apply(["projects/plan.md", "projects/plan-2026.md"])
    assert store.note_paths()[plan] == "projects/plan-2026.md"  # not the path read before the rename
    assert [c.actor for c in store.changes_since(cursor).changes] == [ACTOR_OUTSIDE]


def test_a_title_whose_file_name_is_taken_is_kept_in_front_matter(store: VaultStore, vault: Path) -> None:
    """A create, rename or move that lands on ``NAME 2.md`` keeps the title asked for (the file's
    name no longer carries it), and a title that fits its file name writes no front matter."""
    projects = store.get_note(by_title(store, "Plan")).parent_id
    first = by_title(store, "inbox")
    root = store.get_note(first).parent_id
    made = store.create_note(NoteDraft(title="inbox", body="second\n", parent_id=root), actor="user")
    assert made.title == "inbox" and store.get_note(made.id).title == "inbox"
    assert (vault / "inbox 2.md").read_text() == "---\ntitle: inbox\n---\n\nsecond\n"
    other = store.create_note(NoteDraft(title="other", body="third\n", parent_id=root), actor="user")
    assert (vault / "other.md").read_text() == "third\n"
    store.update_note(other.id, NotePatch(title="inbox"), actor="user")
    assert store.get_note(other.id).title == "inbox"
    assert (vault / "inbox 3.md").read_text() == "---\ntitle: inbox\n---\n\nthird\n"
    (vault / "projects" / "inbox.md").write_text("taken\n")
    store.follower.scan()
    store.update_note(first, NotePatch(parent_id=projects), actor="user")
    assert store.get_note(first).title == "inbox"
    assert (vault / "projects" / "inbox 2.md").read_text().startswith("---\ntitle: inbox\n---\n")


def test_a_title_changed_only_in_case_renames_the_file_to_it(store: VaultStore, vault: Path) -> None:
    """The file's own name counted as taken, so ``inbox`` retitled ``Inbox`` became ``Inbox 2.md``."""
    inbox = by_title(store, "inbox")
    store.update_note(inbox, NotePatch(title="Inbox"), actor="user")
    assert (vault / "Inbox.md").read_text() == "Loose thought with #idea\n"
    assert store.get_note(inbox).title == "Inbox" and not (vault / "inbox.md").exists()
    assert git(vault, "status", "--porcelain", "--untracked-files=all").split() == [
        "D",
        "inbox.md",
        "??",
        "Inbox.md",
    ]


def test_a_title_changed_only_in_case_onto_another_files_name_is_name_2(
    store: VaultStore, vault: Path
) -> None:
    """``case.md`` retitled ``Case`` beside another file ``Case.md`` was refused ("exists already",
    exit 2), where any other taken name gives ``NAME 2.md`` and the title in front matter."""
    (vault / "case.md").write_text("lower\n")
    (vault / "Case.md").write_text("upper\n")  # (a file system that tells case apart)
    store.follower.scan()
    (lower,) = [m.id for m in store.list_notes() if store.note_path(m.id).name == "case.md"]
    assert store.update_note(lower, NotePatch(title="Case"), actor="user").title == "Case"
    assert (vault / "Case 2.md").read_text() == "---\ntitle: Case\n---\n\nlower\n"
    assert (vault / "Case.md").read_text() == "upper\n" and not (vault / "case.md").exists()


def test_a_link_to_a_note_by_its_id_is_written_as_the_path_of_its_file(
    store: VaultStore, vault: Path
) -> None:
    """The assistant links notes as ``[title](:/id)`` and a conflict copy links its note so: in the
    folder that is the file's relative path, which Obsidian and every editor follow (no id of
    noted's is written into a note); a link to a trashed note, or to nothing, stays as written."""
    plan, inbox = by_title(store, "Plan"), by_title(store, "inbox")
    body = f"See [the plan](:/{plan}#first) and [inbox](<:/{inbox}>) and [x](:/{'0' * 32}).\n"
    made = store.create_note(
        NoteDraft(title="links", body=body, parent_id=store.get_note(plan).parent_id), actor="user"
    )
    assert (vault / "projects" / "links.md").read_text() == (
        f"See [the plan](plan.md#first) and [inbox](../inbox.md) and [x](:/{'0' * 32}).\n"
    )
    assert [link.note_id for link in note_links(store, KeywordSearch(store), made.id).outgoing[:2]] == [
        plan,
        inbox,
    ]
    store.trash_note(inbox, actor="user")
    store.update_note(made.id, NotePatch(body=f"[inbox](:/{inbox})\n"), actor="user")
    assert (vault / "projects" / "links.md").read_text() == f"[inbox](:/{inbox})\n"


def test_a_note_restored_onto_a_taken_name_or_written_back_keeps_its_title(
    store: VaultStore, vault: Path
) -> None:
    """Restoring ``inbox`` while another ``inbox.md`` is there moved it to ``inbox 2.md``, titled
    ``inbox 2`` by the file on its next read; a note whose file went outside and is restored is
    written back from the mirror, and its title (front matter, no file name holds ``a/b``) with it."""
    inbox = by_title(store, "inbox")
    root = store.get_note(inbox).parent_id
    store.trash_note(inbox, actor="user")
    store.create_note(NoteDraft(title="inbox", body="new\n", parent_id=root), actor="user")
    store.restore_note(inbox, actor="user")
    assert (vault / "inbox 2.md").read_text() == "---\ntitle: inbox\n---\n\nLoose thought with #idea\n"
    store.follower.scan()
    assert store.get_note(inbox).title == "inbox" and (vault / "inbox.md").read_text() == "new\n"
    slash = store.create_note(NoteDraft(title="a/b", body="text\n", parent_id=root), actor="user")
    (vault / "a_b.md").unlink()
    store.follower.scan()
    assert store.get_note(slash.id).is_trashed
    store.restore_note(slash.id, actor="user")
    assert (vault / "a_b.md").read_text() == "---\ntitle: a/b\n---\n\ntext\n"


def test_a_retitled_note_that_others_link_to_by_name_keeps_its_file_name(
    store: VaultStore, vault: Path
) -> None:
    """Renaming the file of a note other notes link to (``[[inbox]]``, ``../inbox.md``) left those
    links leading nowhere: the title goes into front matter then, and the links still lead to it."""
    plan, inbox = by_title(store, "Plan"), by_title(store, "inbox")
    store.update_note(plan, NotePatch(append="See [[inbox]].\n"), actor="user")
    store.update_note(inbox, NotePatch(title="Inbox zero"), actor="user")
    assert (vault / "inbox.md").read_text() == "---\ntitle: Inbox zero\n---\n\nLoose thought with #idea\n"
    (link,) = note_links(store, KeywordSearch(store), plan).outgoing
    assert (link.note_id, link.title) == (inbox, "Inbox zero")
    store.update_note(plan, NotePatch(body="No links now.\n"), actor="user")
    other = store.create_note(
        NoteDraft(title="other", body="x\n", parent_id=store.get_note(inbox).parent_id), actor="user"
    )
    store.update_note(other.id, NotePatch(title="renamed"), actor="user")  # nothing links to it
    assert (vault / "renamed.md").read_text() == "x\n" and not (vault / "other.md").exists()


def test_a_tag_no_file_carries_any_more_leaves_the_list_of_tags(store: VaultStore, vault: Path) -> None:
    """A folder's tags live in its files: one that no file carries (removed by noted, by an outside
    edit, or gone with the last note the trash held) was still listed by ``noted tags`` as ``beta (0)``."""
    plan = by_title(store, "Plan")
    store.tag_note(plan, ["beta", "gamma"], actor="user")
    store.untag_note(plan, ["beta"], actor="user")
    (vault / "inbox.md").write_text("Loose thought, no tag now\n")
    store.follower.apply(["inbox.md"])
    store.trash_note(plan, actor="user")
    assert {t.title for t in store.list_tags()} == {"work", "gamma"}  # the trash still holds them
    store.empty_trash(actor="user")
    assert store.list_tags() == [] and store.find_tag("beta") is None


def test_a_name_that_is_not_utf8_is_skipped_and_listed_and_the_watcher_keeps_going(
    vault: Path, tmp_path: Path
) -> None:
    """One such file or folder made every command fail (an internal error, exit 70), and the
    watcher stop for good the first time it saw one."""
    root = os.fsencode(vault)
    with open(root + b"/caf\xe9.md", "wb") as fh:
        fh.write(b"# Cafe\n")
    os.mkdir(root + b"/dir\xfe")
    with open(root + b"/dir\xfe/x.md", "wb") as fh:
        fh.write(b"# X\n")
    with opened(vault, tmp_path / "profile") as store:
        assert dict(store.ledger.skipped()) == {
            "caf\\xe9.md": "a file whose name is not UTF-8; noted reads only UTF-8 names",
            "dir\\xfe": "a folder whose name is not UTF-8; noted reads only UTF-8 names",
            "latin1.md": "not UTF-8 (byte 3); noted reads and writes only UTF-8",
        }
        assert {m.title for m in store.list_notes()} == {"Plan", "inbox"}
        store.start_watching()
        with open(root + b"/na\xefve.md", "wb") as fh:  # an event the watch cannot give
            fh.write(b"# Naive\n")
        (vault / "later.md").write_text("# Later\n")
        wait_for(lambda: by_title_in(store, "Later"), what="a change after the bad name followed")
        os.unlink(root + b"/caf\xe9.md")
        store.follower.scan()
        assert "caf\\xe9.md" not in dict(store.ledger.skipped())


def by_title_in(store: VaultStore, title: str) -> bool:
    return any(m.title == title for m in store.list_notes())


def test_a_note_whose_file_gitignore_comes_to_ignore_goes_as_if_gone_and_comes_back(
    vault: Path, tmp_path: Path
) -> None:
    """Before, a note followed before .gitignore named its file stayed a note (after a restart too),
    so ``[[Plan]]`` led to the file of a note noted no longer follows."""
    profile = tmp_path / "profile"
    (vault / "links.md").write_text("# Links\n\n[[plan]]\n")
    with opened(vault, profile) as store:
        plan = by_title(store, "Plan")
        assert note_links(store, KeywordSearch(store), by_title(store, "Links")).outgoing[0].note_id == plan
    (vault / ".gitignore").write_text("ignored/\nprojects/plan.md\n")  # while noted was closed
    with opened(vault, profile) as store:
        assert sorted(m.title for m in store.list_notes()) == ["Links", "inbox"]
        assert store.get_note(plan).is_trashed  # as a file gone: in noted's trash, the file left alone
        links = note_links(store, KeywordSearch(store), by_title(store, "Links"))
        assert [(link.note_id, link.broken) for link in links.outgoing] == [("", 'no note "plan"')]
        assert (vault / "projects" / "plan.md").read_text().endswith("# Plan\n\nFirst step.\n")
    (vault / ".gitignore").write_text("ignored/\n")
    with opened(vault, profile) as store:
        assert not store.get_note(plan).is_trashed  # its file followed again: the same note
