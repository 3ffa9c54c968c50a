"""Storage faults on the command line: one line naming the cause and the remedy, an exit code of
its own, nothing changed, reads still working where they can; and a log that never crashes noted.

Each fault is real (an immutable flag or mode bits, a full tmpfs, a damaged page), made by
``tests.support.faults``, and each test runs ``noted`` as a real process. Before these were
handled every case below ended as "internal error" (exit 70), most with a traceback.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tests.support.cli import run_noted
from tests.support.faults import EXIT, damage, fill, small_disk, state, unwritable

from noted.models import NoteDraft, mcp_actor
from noted.store.sqlite import SqliteStore


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    """A profile with its welcome notes, created by a first run."""
    root = tmp_path / "profile"
    assert run_noted(root, "notes").returncode == 0
    return root


def one_line(done: subprocess.CompletedProcess[str], code: int, *fragments: str) -> None:
    """Exit ``code``, and stderr is exactly one ``noted:`` line holding every fragment (no stack)."""
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("noted: "), done.stderr
    assert "Traceback" not in done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_a_profile_folder_that_cannot_be_written_still_reads_and_refuses_writes(profile: Path) -> None:
    (profile / "noted.log").unlink()  # so the log has to be created, in a folder that refuses it
    before = state(profile)
    with unwritable(profile):
        listed = run_noted(profile, "notes")
        found = run_noted(profile, "search", "--mode", "keyword", "welcome")
        created = run_noted(profile, "create", "New", "--body", "text")
    # Reads work: the log notice is the one line on stderr, said once, no traceback.
    assert listed.returncode == 0 and "Start here" in listed.stdout, listed.stderr
    assert listed.stderr.count("cannot open the log file") == 1 and "Traceback" not in listed.stderr
    assert found.returncode == 0 and "Start here" in found.stdout, found.stderr
    # The write is refused naming the folder, with its own code; the log notice comes first.
    assert created.returncode == EXIT["folder not writable"], created.stderr
    last = created.stderr.splitlines()[-1]
    assert f"cannot write in the folder {profile}" in last and "Traceback" not in created.stderr
    assert state(profile) == before


def test_saved_conversations_are_listed_from_a_folder_that_cannot_be_written(
    profile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `noted chats` made sure of its tables in a write first, so there it said "cannot write in
    # the folder …; reading still works" (exit 10) and listed nothing. Not vacuous: a
    # conversation is saved first, and its question is looked for in the listing.
    monkeypatch.setenv("NOTED_AI_ENABLED", "1")
    monkeypatch.setenv("NOTED_AI_PROVIDER", "fake")
    asked = run_noted(profile, "ask", "what is in my notes?")
    assert asked.returncode == 0, asked.stderr
    with unwritable(profile):
        listed = run_noted(profile, "chats")
    assert listed.returncode == 0 and "what is in my notes?" in listed.stdout, listed.stderr


def test_changes_are_listed_from_a_folder_that_cannot_be_written(profile: Path) -> None:
    # `noted changes` read the feed into its review rows first, a write, so there it said
    # "cannot write in the folder …" (exit 10) and listed nothing. Not vacuous: an entry it
    # recorded before is looked for in the listing, and a change made since, which it cannot
    # record, must be said to be left out rather than listed as "Nothing to review".
    bot = mcp_actor("claude")
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        folder = store.list_folders()[0].id
        note = store.create_note(NoteDraft("Plan", "one\n", parent_id=folder), actor=bot)
    finally:
        store.close()
    assert run_noted(profile, "changes").returncode == 0  # the review has recorded "Plan"
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        store.tag_note(note.id, ["ai"], actor=bot)
    finally:
        store.close()
    before = state(profile)
    with unwritable(profile):
        listed = run_noted(profile, "changes")
    assert listed.returncode == 0 and '"Plan"' in listed.stdout, (listed.stdout, listed.stderr)
    assert "tagged ai" not in listed.stdout
    lines = listed.stderr.splitlines()
    assert len(lines) == 1 and "not listed" in lines[0] and str(profile) in lines[0], listed.stderr
    assert state(profile) == before
    # Once the folder can be written again the change made since is recorded and listed.
    assert "tagged ai" in run_noted(profile, "changes").stdout


def test_a_read_only_database_still_reads_and_refuses_writes(profile: Path) -> None:
    before = state(profile)
    with unwritable(profile / "notes.db"):
        listed = run_noted(profile, "notes")
        created = run_noted(profile, "create", "New", "--body", "text")
        trashed = run_noted(profile, "trash", "Start here")
    assert listed.returncode == 0 and "Start here" in listed.stdout, listed.stderr
    one_line(created, EXIT["database read-only"], "notes.db is read-only", "chmod u+w")
    one_line(trashed, EXIT["database read-only"], "notes.db is read-only")
    assert state(profile) == before


def test_a_log_that_cannot_be_opened_is_reported_once_and_noted_goes_on(profile: Path) -> None:
    # Works without root: a folder where the log file should be cannot be opened as a file.
    (profile / "noted.log").unlink()
    (profile / "noted.log").mkdir()
    done = run_noted(profile, "create", "Logged", "--body", "x")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and "cannot open the log file" in done.stderr, done.stderr
    assert run_noted(profile, "show", "Logged").returncode == 0


def test_a_full_disk_is_named_and_changes_nothing(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "3m") as disk:
        profile = disk / "profile"
        assert run_noted(profile, "notes").returncode == 0
        before = state(profile)
        body = tmp_path / "big.md"
        body.write_text("word " * 200_000, encoding="utf-8")  # 1 MB: more than is left
        filler = fill(disk, leave=200_000)
        done = run_noted(profile, "create", "Big", "--body-file", str(body))
        one_line(done, EXIT["disk full"], f"the disk holding {profile} is full", "free some space")
        filler.unlink()
        assert state(profile) == before


def test_settings_and_tokens_in_a_folder_that_cannot_be_written_name_it(profile: Path) -> None:
    # The files beside notes.db (config.toml, the client tokens) are storage too: exit 10, not 1.
    with unwritable(profile):
        changes = [
            run_noted(profile, "config", "set", "ai.enabled", "true"),
            run_noted(profile, "mcp", "token", "add", "claude"),
            run_noted(profile, "mcp", "token"),
        ]
    for done in changes:
        one_line(
            done, EXIT["folder not writable"], f"cannot write in the folder {profile}", "make it writable"
        )
    assert sorted(p.name for p in profile.iterdir()) == ["noted.log", "notes.db", "resources"]


def test_settings_and_tokens_on_a_full_disk_name_it(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "3m") as disk:
        profile = disk / "profile"
        assert run_noted(profile, "notes").returncode == 0
        assert run_noted(profile, "config", "set", "ai.model", "small").returncode == 0
        config = (profile / "config.toml").read_text(encoding="utf-8")
        filler = fill(disk)
        changes = [
            run_noted(profile, "config", "set", "ai.model", "x" * 5000),
            run_noted(profile, "mcp", "token", "add", "claude"),
        ]
        filler.unlink()
        for done in changes:
            one_line(done, EXIT["disk full"], f"the disk holding {profile} is full", "free some space")
        assert (profile / "config.toml").read_text(encoding="utf-8") == config  # the old file stands
        # No half-written file and no clients file; the empty lock file an edit of the clients file
        # holds (as `.config.toml.lock` for the settings) is no data and may stay.
        left = [p.name for p in profile.iterdir() if p.name.endswith(".tmp") or "client" in p.name]
        assert left in ([], [".mcp-clients.json.lock"])
        assert all(p.stat().st_size == 0 for p in profile.glob(".*.lock"))


def test_a_full_disk_still_lists_shows_and_exports_to_another_disk(tmp_path: Path) -> None:
    # Before: notes, show and export failed with exit 12 (the WAL index could not grow), so the
    # person could not even move their notes off the full disk.
    with small_disk(tmp_path / "disk", "3m") as disk:
        profile = disk / "profile"
        assert run_noted(profile, "notes").returncode == 0
        before = state(profile)
        filler = fill(disk, leave=0)
        try:
            listed = run_noted(profile, "notes")
            shown = run_noted(profile, "show", "Start here")
            exported = run_noted(profile, "export", str(tmp_path / "elsewhere"))
            refused = run_noted(profile, "create", "New", "--body", "x")
        finally:
            filler.unlink()
        assert listed.returncode == 0 and "Start here" in listed.stdout, listed.stderr
        assert shown.returncode == 0 and shown.stdout.startswith("# Start here"), shown.stderr
        assert exported.returncode == 0 and (tmp_path / "elsewhere" / "Welcome" / "Start here.md").is_file()
        one_line(refused, EXIT["disk full"], f"the disk holding {profile} is full")
        assert state(profile) == before


def test_a_full_disk_during_an_import_leaves_no_note_notebook_or_attachment_file(tmp_path: Path) -> None:
    source = tmp_path / "Vault"
    source.mkdir()
    (source / "pic.png").write_bytes(b"\x89PNG" + bytes(300_000))
    (source / "a.md").write_text("![p](pic.png)\n", encoding="utf-8")
    for i in range(400):
        (source / f"n{i:03}.md").write_text(f"note {i}\n" + "text " * 1_000, encoding="utf-8")
    with small_disk(tmp_path / "disk", "4m") as disk:
        profile = disk / "profile"
        assert run_noted(profile, "notes").returncode == 0
        before = state(profile)
        # Room for the attachment and some notes, not for 2 MB of them: the import fails half-way,
        # after the attachment's file was written (not vacuous: the check alone refuses nothing).
        filler = fill(disk, leave=1_200_000)
        done = run_noted(profile, "import", str(source))
        one_line(done, EXIT["disk full"], "is full")
        filler.unlink()
        assert state(profile) == before
        assert "Vault" not in run_noted(profile, "notebooks").stdout


def test_a_damaged_database_page_says_how_to_recover(profile: Path) -> None:
    damage(profile / "notes.db")
    for args in (["notes"], ["search", "--mode", "keyword", "welcome"], ["create", "X", "--body", "y"]):
        done = run_noted(profile, *args)
        one_line(done, EXIT["database damaged"], "is damaged", "backup", ".recover", "noted export")


def test_a_file_that_is_not_a_database_is_reported_as_damaged(profile: Path) -> None:
    (profile / "notes.db").write_bytes(b"not a database at all " * 200)
    one_line(run_noted(profile, "notes"), EXIT["database damaged"], "not a SQLite database")


def test_a_profile_that_cannot_be_created_names_the_folder(tmp_path: Path) -> None:
    parent = tmp_path / "locked"
    parent.mkdir()
    with unwritable(parent):
        done = run_noted(parent / "profile", "init")
    one_line(done, EXIT["folder not writable"], f"cannot create the profile folder {parent / 'profile'}")
    assert not (parent / "profile").exists()


@pytest.mark.slow
def test_a_database_held_by_another_process_past_the_timeout_is_named(profile: Path) -> None:
    # Another writer holds the write lock for longer than the busy timeout (15 s): the write gives
    # up with its own code instead of an internal error, and nothing of it is kept.
    import apsw

    before = state(profile)
    holder = apsw.Connection(str(profile / "notes.db"))
    holder.execute("BEGIN IMMEDIATE")
    try:
        done = run_noted(profile, "create", "Late", "--notebook", "Welcome", "--body", "x")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    one_line(done, EXIT["database busy"], "locked too long", "run the command again")
    assert state(profile) == before
