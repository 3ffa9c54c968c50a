"""What ``noted import`` and ``noted export`` promise: all or nothing in, nothing foreign deleted out.

A refused import must leave the profile exactly as it was: the change feed's cursor, the notes,
the notebooks and the attachment files are compared before and after (``tests.support.faults``).
Before, the 600-file case below left 500 notes, a notebook and an attachment behind, and an
export into a folder that held an empty manifest deleted everything else in it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from tests.support.cli import run_noted
from tests.support.faults import EXIT, state

from noted.store.sqlite import SqliteStore
from noted.store.transfer import import_markdown


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    root = tmp_path / "profile"
    assert run_noted(root, "notes").returncode == 0
    return root


def refused(done: subprocess.CompletedProcess[str], *fragments: str) -> str:
    assert done.returncode == EXIT["bad input"], (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("noted: "), done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """600 good notes, the first linking an attachment: any write before a refusal would show."""
    root = tmp_path / "Vault"
    root.mkdir()
    (root / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (root / "n0001.md").write_text("![pic](pic.png)\n", encoding="utf-8")
    for i in range(2, 601):
        (root / f"n{i:04}.md").write_text(f"note {i}\n", encoding="utf-8")
    return root


def test_600_files_with_a_newline_in_a_name_past_the_500th_import_nothing(profile: Path, vault: Path) -> None:
    (vault / "n0550\nbad.md").write_text("x\n", encoding="utf-8")
    before = state(profile)
    refused(run_noted(profile, "import", str(vault)), r"n0550\nbad.md: its name: a title must be one line")
    assert state(profile) == before
    # Without the bad file the same folder imports whole: the refusal above was not vacuous.
    (vault / "n0550\nbad.md").unlink()
    assert run_noted(profile, "import", str(vault)).returncode == 0
    after = state(profile)
    assert after.notes == before.notes + 600 and len(after.resource_files) == 1


def test_a_50_mb_note_is_refused_naming_it(profile: Path, vault: Path) -> None:
    (vault / "huge.md").write_bytes(b"y" * (50 * 1024 * 1024))
    before = state(profile)
    refused(run_noted(profile, "import", str(vault)), "huge.md is too long for a note (52,428,800 characters")
    assert state(profile) == before


def test_a_file_name_that_is_not_utf8_is_refused(profile: Path, vault: Path) -> None:
    (vault / os.fsdecode(b"bad\xff.md")).write_text("x\n", encoding="utf-8")
    before = state(profile)
    refused(run_noted(profile, "import", str(vault)), r"the file name bad\xff.md is not valid UTF-8")
    assert state(profile) == before


def test_contents_that_are_not_utf8_are_refused_with_the_line(profile: Path, vault: Path) -> None:
    (vault / "n0599.md").write_bytes(b"fine\ncaf\xe9\n")
    before = state(profile)
    refused(run_noted(profile, "import", str(vault)), "n0599.md is not valid UTF-8 (line 2, byte 9)")
    assert state(profile) == before


def test_a_bad_tag_or_title_in_front_matter_names_the_line(profile: Path, vault: Path) -> None:
    (vault / "n0700.md").write_text('---\ntitle: ok\ntags: ["a\\nb"]\n---\nx\n', encoding="utf-8")
    before = state(profile)
    refused(run_noted(profile, "import", str(vault)), "n0700.md: line 3: a tag must be one line")
    (vault / "n0700.md").write_text(f"---\ntitle: {'t' * 1001}\n---\nx\n", encoding="utf-8")
    refused(run_noted(profile, "import", str(vault)), "n0700.md: line 2: a title may have at most 1000")
    assert state(profile) == before


def test_a_fault_half_way_through_an_import_undoes_all_of_it(profile: Path, vault: Path) -> None:
    # The unprivileged twin of the full-tmpfs test in test_cli_faults: SQLite is told the file may
    # not grow past a few pages more, so the import fails after its attachment file and some notes
    # were written, in its first slice. Everything must be undone, the file removed too (a fault in
    # a later slice: test_import_edges).
    from noted.errors import DiskFullError  # here, so the other tests run on the code before too

    before = state(profile)
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        pages = store.db.connection().execute("PRAGMA page_count").fetchone()[0]
        store.db.connection().execute(f"PRAGMA max_page_count={pages + 3}")
        with pytest.raises(DiskFullError):
            import_markdown(store, vault)
    finally:
        store.close()
    assert state(profile) == before


# Export ------------------------------------------------------------------------------------------------
def test_export_into_a_folder_with_only_an_empty_manifest_deletes_nothing(
    profile: Path, tmp_path: Path
) -> None:
    target = tmp_path / "looks-like-an-export"
    (target / "sub").mkdir(parents=True)
    (target / ".noted-export.yml").write_text("", encoding="utf-8")
    (target / "precious.txt").write_text("mine", encoding="utf-8")
    (target / "sub" / "notes.md").write_text("mine too", encoding="utf-8")
    refused(
        run_noted(profile, "export", str(target)), "holds 2 files", "precious.txt", "sub/notes.md", "--force"
    )
    assert (target / "precious.txt").read_text(encoding="utf-8") == "mine"
    assert (target / "sub" / "notes.md").read_text(encoding="utf-8") == "mine too"


def test_files_added_to_or_changed_in_an_export_are_kept_unless_forced(profile: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_noted(profile, "export", str(out)).returncode == 0
    assert run_noted(profile, "export", str(out)).returncode == 0  # an untouched export is replaced
    (out / "Welcome" / "added.md").write_text("added by hand", encoding="utf-8")
    start = out / "Welcome" / "Start here.md"
    start.write_text(start.read_text(encoding="utf-8") + "\nedited by hand\n", encoding="utf-8")
    refused(
        run_noted(profile, "export", str(out)),
        "holds 2 files that noted did not write there or that changed since",
        "Welcome/Start here.md (changed)",
        "Welcome/added.md",
    )
    assert (out / "Welcome" / "added.md").is_file() and "edited by hand" in start.read_text(encoding="utf-8")
    forced = run_noted(profile, "export", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert "deleted Welcome/added.md (not written by noted)" in forced.stderr
    assert "deleted Welcome/Start here.md (changed since the last export)" in forced.stderr
    assert not (out / "Welcome" / "added.md").exists() and "edited by hand" not in start.read_text(
        encoding="utf-8"
    )


def test_force_never_replaces_a_folder_that_is_not_an_export(profile: Path, tmp_path: Path) -> None:
    target = tmp_path / "home-like"
    target.mkdir()
    (target / "thesis.md").write_text("years of work", encoding="utf-8")
    refused(run_noted(profile, "export", str(target), "--force"), "is not a previous noted export")
    assert (target / "thesis.md").read_text(encoding="utf-8") == "years of work"


def test_an_export_into_the_markdown_folder_or_the_profile_is_refused(tmp_path: Path) -> None:
    """Exported into the Markdown folder, the export's files became notes: twice as many at each
    export. Into the profile folder, it would lie among the files noted keeps there."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n", encoding="utf-8")
    profile = tmp_path / "vault-profile"
    v = ("--vault", str(notes))
    assert run_noted(profile, "init", *v, init=False).returncode == 0
    for target, said in [
        (notes / "backup", f"is inside the Markdown folder {notes}"),
        (notes, "is the Markdown folder"),
        (profile / "backup", f"is inside the profile folder {profile}"),
        (profile, "is the profile folder"),
    ]:
        for _ in range(2):  # the second one doubled the notes
            refused(run_noted(profile, "export", str(target), *v, init=False), said, "outside it")
    assert [p.name for p in notes.rglob("*")] == ["a.md"] and not (profile / "backup").exists()
    listed = run_noted(profile, "notes", *v, init=False)
    assert listed.stdout.count("\n") == 1, listed.stdout
    # Not vacuous: the same export beside them is written.
    assert run_noted(profile, "export", str(tmp_path / "out"), *v, init=False).returncode == 0


def test_importing_the_markdown_folder_into_itself_is_refused(tmp_path: Path) -> None:
    """Imported into itself, a Markdown folder copied every note and attachment ("Proj 2/One.md")."""
    notes = tmp_path / "vs"
    (notes / "Proj").mkdir(parents=True)
    (notes / "Proj" / "one.md").write_text("# One\n", encoding="utf-8")
    profile = tmp_path / "pvs"
    v = ("--vault", str(notes))
    assert run_noted(profile, "init", *v, init=False).returncode == 0
    outside = tmp_path / "outside"
    (outside / "inner").mkdir(parents=True)
    (outside / "inner" / "two.md").write_text("two\n", encoding="utf-8")
    for source, said in [
        (notes, "is the Markdown folder"),
        (notes / "Proj", f"is inside the Markdown folder {notes}"),
        (tmp_path, f"holds the Markdown folder {notes}"),
    ]:
        refused(run_noted(profile, "import", str(source), *v, init=False), said, "import a folder outside it")
    assert sorted(p.relative_to(notes).as_posix() for p in notes.rglob("*")) == ["Proj", "Proj/one.md"]
    # Not vacuous: a folder outside it is imported.
    assert run_noted(profile, "import", str(outside), *v, init=False).returncode == 0
    assert (notes / "outside" / "inner").is_dir()


def test_force_never_replaces_an_export_that_holds_the_markdown_folder(profile: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_noted(profile, "export", str(out)).returncode == 0
    notes = out / "notes"
    notes.mkdir()
    (notes / "mine.md").write_text("mine", encoding="utf-8")
    other = tmp_path / "other"
    assert run_noted(other, "init", "--vault", str(notes), init=False).returncode == 0
    refused(
        run_noted(other, "export", str(out), "--force", "--vault", str(notes), init=False),
        f"holds the Markdown folder {notes}",
    )
    assert (notes / "mine.md").read_text(encoding="utf-8") == "mine"
