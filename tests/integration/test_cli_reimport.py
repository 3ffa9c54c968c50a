"""Importing a folder again: each file finds the note it made, and an unchanged one writes nothing.

On both the embedded store and a Markdown folder (``--vault``, whose notes read their title from a
first-line heading and keep links as paths), under real files and real SQLite. "Nothing written"
is checked on the change feed's cursor, and on the folder's bytes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tests.support.cli import Cli
from tests.support.vaults import opened


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


def counts(report: dict[str, int]) -> tuple[int, int, int]:
    return report["notes_created"], report["notes_updated"], report["notes_unchanged"]


def folder_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def vault_cursor(vault: Path, profile: Path) -> int:
    with opened(vault, profile) as store:
        return store.latest_cursor()


def test_a_folder_imported_again_into_a_markdown_folder_makes_one_note_with_its_heading(
    cli: Cli, tmp_path: Path
) -> None:
    """The import titled the note after its file ("a") while the folder reads the title from the
    heading: the second import made it "Heading Title", the third no longer found "a" and made
    ``a 2.md`` (its heading rewritten to ``# a``), and so on every second time."""
    vault, source = tmp_path / "vv", tmp_path / "src"
    vault.mkdir()
    source.mkdir()
    (source / "a.md").write_text("# Heading Title\n")
    v = ("--vault", str(vault))
    reports = [counts(cli.json("import", str(source), *v)) for _ in range(2)]
    written, cursor = folder_bytes(vault), vault_cursor(vault, cli.profile)
    reports += [counts(cli.json("import", str(source), *v)) for _ in range(3)]
    assert reports == [(1, 0, 0)] + [(0, 0, 1)] * 4
    (note,) = cli.json("notes", *v)
    assert note["title"] == "Heading Title"
    (path,) = (vault / "src").glob("*.md")
    assert path.read_text() == "# Heading Title\n"  # as the file had it (no created: of noted's own)
    assert folder_bytes(vault) == written and vault_cursor(vault, cli.profile) == cursor


def test_a_file_finds_its_note_again_whatever_its_title_became(cli: Cli, tmp_path: Path) -> None:
    """Matched by title alone, a note renamed in noted was no longer found: the import duplicated it."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.md").write_text("Some text.\n")
    cli.ok("import", str(source))
    (before,) = cli.json("notes", "--notebook", "src")
    cli.ok("edit", "a", "--title", "Renamed in noted")
    report = cli.json("import", str(source))
    assert counts(report) == (0, 0, 0) and report["notes_kept"] == 1  # the file is as imported: kept
    (after,) = cli.json("notes", "--notebook", "src")
    assert (after["id"], after["title"]) == (before["id"], "Renamed in noted")


@pytest.mark.parametrize("in_vault", [False, True], ids=["sqlite", "vault"])
def test_edits_made_in_noted_since_the_last_import_are_never_overwritten(
    cli: Cli, tmp_path: Path, in_vault: bool
) -> None:
    """The import compared the file with the note as it is now, so an unchanged file put its text
    back over an edit made in noted (left only in the history). Now: the file as the last import
    left it keeps the note; a changed file meeting an edited note makes a conflict copy, once."""
    source = tmp_path / "ri"
    source.mkdir()
    v: tuple[str, ...] = ("--vault", str(tmp_path / "vault")) if in_vault else ()
    (tmp_path / "vault").mkdir()
    (source / "a.md").write_text("original text\n")
    cli.ok("import", str(source), *v)
    cli.ok("edit", "a", "--append", "edit made in noted", *v)
    (source / "b.md").write_text("new\n")
    said = cli.ok("import", str(source), *v).out
    assert "1 note created, 0 updated, 0 unchanged, 1 kept as edited in noted" in said
    assert cli.json("show", "a", *v)["body"] == "original text\nedit made in noted\n"
    (source / "a.md").write_text("original text\nchanged in the file\n")
    report = cli.json("import", str(source), *v)
    assert report["conflict_copies"] == 1 and counts(report) == (0, 0, 1)  # b unchanged
    assert cli.json("show", "a", *v)["body"] == "original text\nedit made in noted\n"
    (copy,) = [
        n for n in cli.json("notes", "--notebook", "ri", *v) if n["title"].startswith("a (conflict copy ")
    ]
    assert cli.json("show", copy["id"], *v)["body"].endswith("\n\noriginal text\nchanged in the file\n")
    again = cli.json("import", str(source), *v)  # the copy is there already: none more
    assert (again["conflict_copies"], counts(again)) == (0, (0, 0, 2))


@pytest.mark.parametrize("emptied", [False, True], ids=["trashed", "emptied"])
@pytest.mark.parametrize("in_vault", [False, True], ids=["sqlite", "vault"])
def test_a_conflict_copy_put_in_the_trash_is_not_made_again_until_the_file_changes(
    cli: Cli, tmp_path: Path, in_vault: bool, emptied: bool
) -> None:
    """The check for a copy made before looked at the notes outside the trash only: the copy the
    person had deleted came back at every import of the same folder. Then it looked for the copy
    in the trash too, so once the trash was emptied, the next import of the unchanged file made it
    again; now the feed keeps that the copy (whose id is the file's text's) was made."""
    source = tmp_path / "tc"
    source.mkdir()
    v: tuple[str, ...] = ("--vault", str(tmp_path / "vault")) if in_vault else ()
    (tmp_path / "vault").mkdir()
    (source / "a.md").write_text("one\n")
    cli.ok("import", str(source), *v)
    cli.ok("edit", "a", "--append", "mine", *v)
    (source / "a.md").write_text("two\n")
    assert cli.json("import", str(source), *v)["conflict_copies"] == 1

    def copies() -> list[str]:
        return [n["id"] for n in cli.json("notes", "--notebook", "tc", *v) if "(conflict copy " in n["title"]]

    (copy,) = copies()
    cli.ok("trash", copy, *v)
    if emptied:
        cli.ok("empty-trash", "--yes", *v)
    again = cli.json("import", str(source), *v)
    assert (again["conflict_copies"], counts(again), copies()) == (0, (0, 0, 1), [])
    (source / "a.md").write_text("three\n")  # a change since that copy: a copy of it
    assert cli.json("import", str(source), *v)["conflict_copies"] == 1
    (new,) = copies()
    assert cli.json("show", new, *v)["body"].endswith("\n\nthree\n")


def test_a_note_no_import_record_tells_about_is_never_overwritten(cli: Cli, tmp_path: Path) -> None:
    """With no ``import`` revision (a note made in noted and found by its title, or one imported by
    an older noted whose record is gone) the file's text replaced the note's, however it was edited:
    the note's text is kept now, the file's beside it as a conflict copy."""
    source = tmp_path / "nr"
    source.mkdir()
    (source / "a.md").write_text("the file's text\n")
    (source / "b.md").write_text("one\n")
    cli.ok("notebook", "create", "nr")
    cli.ok("create", "a", "--notebook", "nr", "--body", "my own text")
    first = cli.json("import", str(source))
    assert (first["conflict_copies"], counts(first)) == (1, (1, 0, 0))  # a's copy; b created
    cli.ok("edit", "b", "--append", "edited in noted")
    sql = "DELETE FROM revisions WHERE actor = 'import' AND note_id = ?"
    with sqlite3.connect(cli.profile / "notes.db") as db:  # as an older noted (or the thinning) left it
        db.execute(sql, (cli.json("show", "b")["id"],))
    db.close()
    (source / "b.md").write_text("one\nchanged in the file\n")
    report = cli.json("import", str(source))
    assert (report["conflict_copies"], counts(report)) == (1, (0, 0, 1))  # a: its copy is there
    assert cli.json("show", "a")["body"] == "my own text"
    assert cli.json("show", "b")["body"] == "one\nedited in noted\n"
    copies = {
        n["title"].split(" (")[0]: n["id"]
        for n in cli.json("notes", "--notebook", "nr")
        if "(conflict" in n["title"]
    }
    assert cli.json("show", copies["a"])["body"].endswith("\n\nthe file's text\n")
    assert cli.json("show", copies["b"])["body"].endswith("\n\none\nchanged in the file\n")


def test_an_exported_file_edited_outside_updates_its_note_when_the_note_is_as_exported(
    cli: Cli, tmp_path: Path
) -> None:
    """A note no import wrote is still updated from its exported file when its ``updated`` time is
    the note's: the note is as exported, so only the file changed."""
    cli.ok("notebook", "create", "ex")
    cli.ok("create", "a", "--notebook", "ex", "--body", "as exported")
    export = tmp_path / "export"
    cli.ok("export", str(export))
    path = export / "ex" / "a.md"
    path.write_text(path.read_text().replace("as exported", "edited in the export"))
    report = cli.json("import", str(export))
    assert report["conflict_copies"] == 0 and report["notes_updated"] == 1
    assert cli.json("show", "a")["body"] == "edited in the export"


def test_a_changed_file_whose_note_was_not_edited_updates_it(cli: Cli, tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.md").write_text("one\n")
    cli.ok("import", str(source))
    (source / "a.md").write_text("two\n")
    report = cli.json("import", str(source))
    assert counts(report) == (0, 1, 0) and (report["notes_kept"], report["conflict_copies"]) == (0, 0)
    assert cli.json("show", "a")["body"] == "two\n"


def test_a_changed_file_whose_note_is_in_the_trash_is_counted_as_skipped(cli: Cli, tmp_path: Path) -> None:
    """It was counted as "unchanged" though its file had changed."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.md").write_text("one\n")
    cli.ok("import", str(source))
    cli.ok("trash", "a")
    (source / "a.md").write_text("two\n")
    result = cli.ok("import", str(source))
    assert "0 unchanged, 1 skipped (in the trash)" in result.out
    assert "its note is in the trash, so it was skipped" in result.err


def two_files_titled_x(tmp_path: Path) -> Path:
    source = tmp_path / "d5"
    source.mkdir()
    for name, body in (("a", "body A"), ("b", "body B")):
        (source / f"{name}.md").write_text(f"---\ntitle: X\n---\n{body}\n")
    return source


def bodies(cli: Cli, notebook: str) -> dict[str, str]:
    return {n["id"]: cli.json("show", n["id"])["body"] for n in cli.json("notes", "--notebook", notebook)}


def test_files_sharing_a_title_keep_their_own_notes(cli: Cli, tmp_path: Path) -> None:
    """Each re-import said "0 created, 2 updated", and the bodies under each note id alternated
    (so did ``Plan.md`` and ``Plan.txt``, both titled by their name)."""
    source = two_files_titled_x(tmp_path)
    (source / "Plan.md").write_text("plan in Markdown\n")
    (source / "Plan.txt").write_text("plan in text\n")
    assert counts(cli.json("import", str(source))) == (4, 0, 0)
    first, cursor = bodies(cli, "d5"), cli.cursor()
    for _ in range(2):
        assert counts(cli.json("import", str(source))) == (0, 0, 4)
    assert bodies(cli, "d5") == first and cli.cursor() == cursor


def test_notes_sharing_a_title_made_before_are_each_found_by_their_text(cli: Cli, tmp_path: Path) -> None:
    """Notes the import did not make (or made before it kept their ids) are found by title: the
    first in the listing, the one updated last, went to the first file, so two notes titled
    alike swapped bodies at every import."""
    source = two_files_titled_x(tmp_path)
    cli.ok("notebook", "create", "d5")
    made = {}
    for letter in "AB":  # B is the newer, so listed first
        (tmp_path / "body.txt").write_text(f"body {letter}\n")
        made[letter] = cli.json("create", "X", "--notebook", "d5", "--body-file", str(tmp_path / "body.txt"))[
            "id"
        ]
    cursor = cli.cursor()
    for _ in range(2):
        assert counts(cli.json("import", str(source))) == (0, 0, 2)
    assert bodies(cli, "d5") == {made["A"]: "body A\n", made["B"]: "body B\n"}
    assert cli.cursor() == cursor


def test_an_unchanged_export_with_crlf_line_endings_imports_as_unchanged(cli: Cli, tmp_path: Path) -> None:
    """The import turned every ``\\r\\n`` into ``\\n``: a note with them, exported and imported
    again unchanged, was "1 updated", its line endings rewritten and a revision added by import."""
    (tmp_path / "crlf.txt").write_bytes(b"l1\r\nl2\r\n")
    note_id = cli.json("create", "crlf", "--body-file", str(tmp_path / "crlf.txt"))["id"]
    cli.ok("export", str(tmp_path / "ec"))
    cursor = cli.cursor()
    report = cli.json("import", str(tmp_path / "ec"))
    assert report["notes_updated"] == 0 and report["notes_created"] == 0
    assert cli.json("show", note_id)["body"] == "l1\r\nl2\r\n" and cli.cursor() == cursor


def test_a_file_with_crlf_line_endings_reads_its_front_matter_and_imports_once(
    cli: Cli, tmp_path: Path
) -> None:
    source, vault = tmp_path / "w", tmp_path / "V"
    source.mkdir()
    vault.mkdir()
    (source / "win.md").write_bytes(b"---\r\ntitle: Win\r\ntags: [a]\r\n---\r\n\r\nline 1\r\nline 2\r\n")
    (source / "bare.md").write_bytes(b"no final newline")
    assert counts(cli.json("import", str(source))) == (2, 0, 0)
    win = cli.json("show", "Win")
    assert (win["body"], win["tags"]) == ("line 1\r\nline 2\r\n", ["a"])
    assert counts(cli.json("import", str(source))) == (0, 0, 2)
    # Into a Markdown folder (a profile of its own), whose notes keep `\n` (the file keeps its own
    # endings), the same.
    v, folder = ("--vault", str(vault)), Cli(tmp_path / "folder-profile", cli.capsys)
    assert counts(folder.json("import", str(source), *v)) == (2, 0, 0)
    written, cursor = folder_bytes(vault), vault_cursor(vault, folder.profile)
    assert counts(folder.json("import", str(source), *v)) == (0, 0, 2)
    assert folder_bytes(vault) == written and vault_cursor(vault, folder.profile) == cursor
    assert (vault / "w" / "Win.md").read_bytes().endswith(b"\r\n\r\nline 1\r\nline 2\r\n")


def test_an_unchanged_folder_imported_again_into_a_markdown_folder_changes_nothing(
    cli: Cli, tmp_path: Path
) -> None:
    """The import compared the file (links as ``:/id``, times to the millisecond, front-matter
    tags) with the note as the folder keeps it (links as paths, times to the second, inline tags
    too): every import said "updated", and removed the inline tag, to have it back the next time."""
    source, vault = tmp_path / "src", tmp_path / "vv"
    (source / "sub").mkdir(parents=True)
    vault.mkdir()
    (source / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (source / "a.md").write_text(
        "---\nis_todo: true\ntodo_due: 2031-01-02T10:00:00.123Z\n---\nSee ![p](pic.png).\n"
    )
    (source / "sub" / "other.md").write_text("---\ntags: [a]\n---\nBack to [a](../a.md). #inline\n")
    v = ("--vault", str(vault))
    assert counts(cli.json("import", str(source), *v)) == (2, 0, 0)
    written, cursor = folder_bytes(vault), vault_cursor(vault, cli.profile)
    for _ in range(2):
        assert counts(cli.json("import", str(source), *v)) == (0, 0, 2)
    assert folder_bytes(vault) == written and vault_cursor(vault, cli.profile) == cursor
    other = written["src/sub/other.md"].decode()
    assert other.endswith("Back to [a](../a.md). #inline\n")
    assert sorted(cli.json("show", "other", *v)["tags"]) == ["a", "inline"]
    # A real change is still one.
    (source / "sub" / "other.md").write_text("---\ntags: [a]\n---\nBack to [a](../a.md).\n")
    assert counts(cli.json("import", str(source), *v)) == (0, 1, 1)
    assert cli.json("show", "other", *v)["tags"] == ["a"]


def test_a_folder_whose_name_had_to_be_made_safe_finds_its_notebook_again(cli: Cli, tmp_path: Path) -> None:
    """Into a Markdown folder, "A:B" is the folder (and notebook) "A_B": matched by exact title, each
    import made another notebook ("A_B 2", "A_B 3") and moved the note into it."""
    vault, source = tmp_path / "v3", tmp_path / "s3"
    vault.mkdir()
    (source / "A:B").mkdir(parents=True)
    (source / "A:B" / "c.md").write_text("x\n")
    v = ("--vault", str(vault))
    reports = [cli.json("import", str(source), *v) for _ in range(3)]
    assert [r["notebooks_created"] for r in reports] == [2, 0, 0]
    assert sorted(n["title"] for n in cli.json("notebooks", *v)) == ["A_B", "s3"]
