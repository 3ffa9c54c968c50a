"""``noted --vault DIR`` and ``backend = vault``: the CLI on a Markdown folder under real git."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from tests.support.cli import Cli
from tests.support.faults import EXIT, unwritable
from tests.support.vaults import git

from noted.cli.commands_edit import EXIT_CONFLICT
from noted.cli.exits import ExitCode


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "daily").mkdir(parents=True)
    (root / "daily" / "monday.md").write_text("---\ntags: [log]\n---\n# Monday\n\nSee [[Tuesday#Plans]].\n")
    (root / "daily" / "tuesday.md").write_text("# Tuesday\n\n## Plans\n\nRest.\n")
    (root / "big.md").write_bytes(b"x" * 5_000_001)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


def test_show_edit_and_tag_work_on_the_files_and_git_diff_shows_only_that(cli: Cli, vault: Path) -> None:
    v = ("--vault", str(vault))
    assert "Rest." in cli.ok("show", "Tuesday", *v).out
    cli.ok("tag", "Tuesday", "rest", *v)
    assert git(vault, "diff", "--stat").strip().startswith("daily/tuesday.md | 5 +++++")
    assert (
        vault / "daily" / "tuesday.md"
    ).read_text() == "---\ntags:\n- rest\n---\n\n# Tuesday\n\n## Plans\n\nRest.\n"


def test_links_json_and_vault_status(cli: Cli, vault: Path) -> None:
    v = ("--vault", str(vault))
    links = cli.json("links", "Monday", *v)
    (link,) = links["outgoing"]
    assert (link["title"], link["heading"], link["section"], link["broken"]) == (
        "Tuesday",
        "Plans",
        "1.1",
        None,
    )
    back = cli.json("links", "Tuesday", *v)
    assert [b["title"] for b in back["backlinks"]] == ["Monday"]
    status = cli.json("vault", "status", *v)
    assert status["notes"] == 2
    assert status["skipped"] == [{"path": "big.md", "reason": "larger than 5 MB"}]
    assert (vault / "big.md").stat().st_size == 5_000_001  # listed, never rewritten


def test_one_profile_per_folder_and_vault_status_elsewhere_say_what_to_do(
    cli: Cli, vault: Path, tmp_path: Path
) -> None:
    cli.ok("notes", "--vault", str(vault))
    other = tmp_path / "other"
    other.mkdir()
    refused = cli("notes", "--vault", str(other))
    assert refused.code != 0 and "one profile per folder" in refused.err
    plain = Cli(tmp_path / "plain", cli.capsys)
    result = plain("vault", "status")
    assert result.code == ExitCode.BAD_INPUT and "not in a Markdown folder" in result.err


def test_the_first_open_of_a_folder_shows_a_progress_bar_on_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for i in range(30):
        (root / f"n{i}.md").write_text(f"# Note {i}\n")
    monkeypatch.setattr("noted.cli.progress.DELAY_S", 0)  # a real first open of a large folder takes seconds
    piped = Cli(tmp_path / "piped", capsys, init=False)
    assert piped.ok("init", "--vault", str(root)).err == ""  # the same run into a pipe: no bar
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    shown = Cli(tmp_path / "profile", capsys, init=False)
    said = shown.ok("init", "--vault", str(root)).err
    assert "Reading the Markdown folder" in said and "30/30" in said
    assert "Note 29" in shown.ok("notes", "--vault", str(root)).out
    assert "Note 29" in piped.ok("notes", "--vault", str(root)).out


def test_front_matter_that_is_not_yaml_is_never_rewritten_and_the_refusal_says_why(
    cli: Cli, vault: Path
) -> None:
    """Adding a tag to a file whose front matter does not parse would write a key nobody reads back
    (the tag command said "tags: (none)" and exited 0): it is refused, the file untouched, and an
    edit that needs no front matter still works."""
    v = ("--vault", str(vault))
    broken = vault / "broken.md"
    text = "---\ntitle: [unclosed\n---\nbody\n"
    broken.write_text(text)
    refused = cli("tag", "broken", "new", *v)
    assert refused.code == ExitCode.BAD_INPUT, refused
    assert refused.err.count("\n") == 1 and "front matter" in refused.err and 'set "tags"' in refused.err
    assert broken.read_text() == text
    cli.ok("edit", "broken", "--append", "more", *v)
    assert broken.read_text() == text + "more\n"
    # `noted vault status` names it, with the line (counted in the file) and the parser's words.
    (vault / "daily" / "list.md").write_text("---\n- a list\n---\nx\n")
    assert cli.json("vault", "status", *v)["front_matter_unread"] == [
        {"path": "broken.md", "problem": "line 3: did not find expected ',' or ']'"},
        {"path": "daily/list.md", "problem": "not a list of keys (key: value lines)"},
    ]
    shown = cli.ok("vault", "status", *v).out
    assert "2 notes whose front matter is not YAML noted can read" in shown
    assert "  broken.md: line 3: did not find expected ',' or ']'" in shown


def test_renaming_a_sub_notebook_keeps_it_where_it_is(cli: Cli, vault: Path) -> None:
    """With no note at the folder's root there is no root notebook: a rename (no new parent) was
    taken for a move to the top, and ``daily/week`` became ``later``."""
    v = ("--vault", str(vault))
    cli.ok("notebook", "create", "week", "--parent", "daily", *v)
    (vault / "daily" / "week" / "note.md").write_text("# In the week\n")
    cli.ok("notebook", "rename", "week", "later", *v)
    assert (vault / "daily" / "later" / "note.md").read_text() == "# In the week\n"
    assert not (vault / "later").exists()
    paths = {f["title"]: f["path"] for f in cli.json("notebooks", *v)}
    assert paths["later"] == "daily/later"


def test_a_profile_inside_the_folder_is_not_read_as_notebooks(cli: Cli, vault: Path) -> None:
    """``--profile ~/notes/noted --vault ~/notes``: the profile's folders (its attachments' store,
    the log) showed as empty notebooks beside the user's."""
    inside = Cli(vault / "noted-profile", cli.capsys, init=False)
    inside.ok("init", "--vault", str(vault))
    paths = sorted(f["path"] for f in inside.json("notebooks", "--vault", str(vault)))
    assert paths == ["daily"] and (vault / "noted-profile" / "vault.db").exists()
    assert "noted-profile" not in inside.ok("vault", "status", "--vault", str(vault)).out


def test_a_profile_that_is_the_folder_or_holds_it_or_a_missing_folder_is_refused_writing_nothing(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--profile ~/notes --vault ~/notes init`` put vault.db, noted.log and two notebooks made of
    the profile's folders into the person's folder; a missing folder left noted.log behind."""
    before = sorted(vault.rglob("*"))
    same = Cli(vault, capsys, init=False)("init", "--vault", str(vault))
    assert (same.code, len(same.err.splitlines())) == (ExitCode.BAD_INPUT, 1), same.err
    assert sorted(vault.rglob("*")) == before
    holder = tmp_path / "holder"
    (holder / "notes").mkdir(parents=True)
    holds = Cli(holder, capsys, init=False)("init", "--vault", str(holder / "notes"))
    assert (holds.code, len(holds.err.splitlines())) == (ExitCode.BAD_INPUT, 1), holds.err
    assert [p.name for p in holder.iterdir()] == ["notes"]
    missing = Cli(tmp_path / "fresh", capsys, init=False)("init", "--vault", str(tmp_path / "missing"))
    assert (missing.code, len(missing.err.splitlines())) == (ExitCode.REFUSED, 1), missing.err
    assert not (tmp_path / "fresh").exists()


def test_a_note_file_deleted_while_its_note_is_in_the_editor_is_a_conflict_that_keeps_both(
    cli: Cli, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The save wrote the file back from noted's record, silently (exit 0): without its
    front-matter title and the keys only the file held. Now the deletion is a change made
    meanwhile: exit 3, the person's text a conflict copy, the note in the trash as it was. The
    line said "changed while you edited it" with a diff: the save's rollback undid the trashing it
    had just recorded, so the note was not yet in the trash when the line was worded."""
    v = ("--vault", str(vault))
    note_file = vault / "file.md"
    note_file.write_text("---\ntitle: Real Title\ntags: [work]\ncustom: keep me\n---\nbody\n")
    script = tmp_path / "editor.py"
    script.write_text(
        "import pathlib, sys\n"
        f"pathlib.Path({str(note_file)!r}).unlink()\n"
        "edited = pathlib.Path(sys.argv[-1])\n"
        "edited.write_text(edited.read_text() + 'more\\n')\n"
    )
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    result = cli("edit", "Real Title", *v)
    assert result.code == EXIT_CONFLICT, result
    assert "moved to the trash while you edited it" in result.err and not note_file.exists()
    assert f"--vault {vault} restore " in result.err and "diff <(" not in result.err
    (copy,) = vault.glob("Real Title (conflict copy *.md")
    assert copy.read_text().endswith("\nbody\nmore\n")
    (trashed,) = cli.json("notes", "--trash", *v)
    assert trashed["title"] == "Real Title"
    # --overwrite saves the text into the note, which stays in the trash (as the dialog says and
    # the embedded store does): into .trash/ its file goes, not back to the folder. It came back
    # there, and the note out of the trash.
    note_file.write_text("---\ntitle: Other\n---\nthere\n")
    cli.ok("notes", *v)
    result = cli("edit", "Other", "--overwrite", *v)
    assert result.code == 0, result
    assert not note_file.exists() and (vault / ".trash" / "file.md").read_text().endswith("\nthere\nmore\n")
    assert "Other" not in [n["title"] for n in cli.json("notes", *v)]
    assert "Other" in [n["title"] for n in cli.json("notes", "--trash", *v)]


def test_a_notebook_created_on_a_name_the_folder_has_taken_says_its_name(
    cli: Cli, vault: Path, tmp_path: Path
) -> None:
    """A link (not followed, so no notebook) named ``linkdir`` made ``notebook create linkdir`` a
    notebook "linkdir 2", printing only its id."""
    v = ("--vault", str(vault))
    (tmp_path / "elsewhere").mkdir()
    (vault / "linkdir").symlink_to(tmp_path / "elsewhere")
    made = cli.ok("notebook", "create", "linkdir", *v)
    assert (
        made.err
        == 'noted: the notebook is named "linkdir 2": the Markdown folder cannot take the name "linkdir"\n'
    )
    assert [f["title"] for f in cli.json("notebooks", *v) if f["id"] == made.out.strip()] == ["linkdir 2"]
    assert cli.ok("notebook", "create", "free", *v).err == ""


def test_restore_brings_back_a_trashed_notes_file_as_edited_in_the_trash(cli: Cli, vault: Path) -> None:
    """Its heading changed in .trash/, the restore wrote the old title back over it."""
    v = ("--vault", str(vault))
    cli.ok("trash", "Tuesday", *v)
    edited = "# Tuesday, moved\n\n## Plans\n\nWork after all.\n"
    (vault / ".trash" / "daily" / "tuesday.md").write_text(edited)
    assert "Tuesday, moved" in cli.ok("restore", "Tuesday, moved", *v).out
    assert (vault / "daily" / "tuesday.md").read_text() == edited
    assert "Work after all." in cli.ok("show", "Tuesday, moved", *v).out


def test_a_tag_added_keeps_the_comment_on_the_tags_line(cli: Cli, vault: Path) -> None:
    note = vault / "daily" / "tuesday.md"
    note.write_text("---\ntags: alpha, beta  # csv\n---\n# Tuesday\n")
    git(vault, "commit", "-qam", "tags")
    cli.ok("tag", "Tuesday", "gamma", "--vault", str(vault))
    # Before: the line became "tags: alpha, beta, gamma", the person's comment gone.
    assert note.read_text() == "---\ntags: alpha, beta, gamma  # csv\n---\n# Tuesday\n"
    assert git(vault, "diff", "--numstat").split() == ["1", "1", "daily/tuesday.md"]


def test_a_notebook_move_stopped_by_an_immutable_file_names_that_file(cli: Cli, vault: Path) -> None:
    """It named the folder the move had made (``cannot write in the folder …/projects/daily``), gone
    once the move was undone, rather than the file that refused."""
    v = ("--vault", str(vault))
    (vault / "projects").mkdir()
    (vault / "projects" / "plan.md").write_text("# Plan\n")
    (vault / "daily" / "tuesday.md").write_text("# Tuesday\n\n[plan](../projects/plan.md)\n")
    with unwritable(vault / "daily" / "tuesday.md"):
        done = cli("notebook", "move", "daily", "--parent", "projects", *v)
    assert done.code == EXIT["folder not writable"]
    assert 'cannot replace the file "projects/daily/tuesday.md"' in done.err and "immutable" in done.err
    assert (vault / "daily" / "tuesday.md").read_text() == "# Tuesday\n\n[plan](../projects/plan.md)\n"
    assert not (vault / "projects" / "daily").exists()


def test_a_notebook_moved_into_the_folders_own_notebook_goes_to_the_top(cli: Cli, vault: Path) -> None:
    """The root's notebook (``notes``) stands for the top: a notebook at the top already said
    "moved" for a move that changed nothing."""
    v = ("--vault", str(vault))
    (vault / "top.md").write_text("# Top\n")
    cli.ok("notebook", "create", "weekly", "--parent", "daily", *v)
    said = cli.ok("notebook", "move", "daily", "--parent", "notes", *v).out
    assert said == 'notebook "daily" is at the top level already\n'
    assert cli.ok("notebook", "move", "weekly", "--parent", "notes", *v).out.startswith("moved notebook")
    assert (vault / "weekly").is_dir() and not (vault / "daily" / "weekly").exists()


def test_a_note_or_notebook_named_as_gitignore_ignores_is_refused(cli: Cli, vault: Path) -> None:
    """``create "scratch pad"`` made ``scratch pad.md``: ignored by git, never followed by noted (a
    fresh profile on the folder did not see it)."""
    v = ("--vault", str(vault))
    (vault / ".gitignore").write_text("scratch*\n")
    cli.ok("create", "Loose", *v)
    for args in (
        ("create", "scratch pad"),
        ("notebook", "create", "scratch"),
        ("notebook", "rename", "daily", "scratch days"),
        ("edit", "Loose", "--title", "scratch day"),
    ):
        refused = cli(*args, *v)
        assert refused.code == ExitCode.BAD_INPUT, args
        assert ".gitignore ignores" in refused.err and refused.err.count("\n") == 1, args
    assert sorted(p.name for p in vault.rglob("scratch*")) == []
    assert [p.name for p in vault.rglob("Loose.md")] == ["Loose.md"]
    cli.ok("create", "notes pad", *v)  # a name .gitignore leaves: made
    assert [p.name for p in vault.rglob("notes pad.md")] == ["notes pad.md"]


def test_an_import_into_the_folder_writes_a_creation_time_only_when_the_file_had_one(
    cli: Cli, vault: Path, tmp_path: Path
) -> None:
    """Every imported file without one got ``created: '<the source file's time>'`` front matter."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "plain.md").write_text("# Plain\n\nNo front matter.\n")
    (source / "dated.md").write_text("---\ncreated: 2024-03-01T10:00:00Z\n---\n\n# Dated\n")
    cli.ok("import", str(source), "--vault", str(vault))
    (plain,) = vault.rglob("Plain.md")  # (named by its title)
    (dated,) = vault.rglob("Dated.md")
    assert plain.read_text() == "# Plain\n\nNo front matter.\n"
    assert "created: '2024-03-01T10:00:00Z'" in dated.read_text()


def test_an_import_refused_by_the_folder_names_the_file(cli: Cli, vault: Path, tmp_path: Path) -> None:
    """The body starts with front matter the folder cannot read, and the file sets tags: the
    refusal ("cannot set "tags" there") did not say which of the files it was."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "fine.md").write_text("# Fine\n")
    (source / "odd.md").write_text("---\ntags: [z]\n---\n---\ntitle: [oops\n---\nbody\n")
    refused = cli("import", str(source), "--vault", str(vault))
    assert refused.code == ExitCode.BAD_INPUT and refused.err.count("\n") == 1, refused.err
    assert refused.err.startswith("noted: odd.md: this note's front matter") and '"tags"' in refused.err
    assert not list(vault.rglob("Fine.md"))  # (the refused slice wrote nothing)


def test_a_profile_set_up_for_a_folder_is_not_given_a_notebook_of_its_own_by_a_command_without_vault(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--vault`` is for the run, so ``noted --vault DIR init`` saves no backend: a later ``noted
    notes`` without it made ``notes.db`` with the welcome notes beside ``vault.db``, a second store
    the person never asked for, and listed those instead of the folder's notes."""
    profile = tmp_path / "profile"
    cli = Cli(profile, capsys, init=False)
    cli.ok("init", "--vault", str(vault))
    before = sorted(p.name for p in profile.iterdir())
    for args in (("notes",), ("init",)):
        refused = cli(*args)
        assert (refused.code, len(refused.err.splitlines())) == (ExitCode.BAD_INPUT, 1), refused.err
        assert "Markdown folder" in refused.err and "--vault" in refused.err
    assert sorted(p.name for p in profile.iterdir()) == before  # no notes.db: nothing written
    assert "Monday" in cli.ok("notes", "--vault", str(vault)).out


@pytest.mark.parametrize("command", [("init",), ("notes",)])
def test_a_folder_is_not_given_a_record_in_a_profile_holding_a_notebook_of_its_own(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    """``noted --vault DIR init`` on a profile holding ``notes.db`` said "a notebook is already at
    P" (exit 0) and made ``vault.db`` beside it, as did any command with ``--vault`` there: a
    second store in one profile, and a mistyped ``--profile`` quietly began a folder's record
    without its history. Refused in one line saying what to do, writing nothing."""
    profile = tmp_path / "profile"
    cli = Cli(profile, capsys, init=False)
    cli.ok("init")
    before = sorted(p.name for p in profile.rglob("*"))
    refused = cli(*command, "--vault", str(vault))
    assert (refused.code, len(refused.err.splitlines())) == (ExitCode.BAD_INPUT, 1), refused.err
    assert "its own notebook" in refused.err and f"--vault {vault} init" in refused.err
    assert sorted(p.name for p in profile.rglob("*")) == before  # no vault.db: nothing written
    assert "Start here" in cli.ok("notes").out  # the notebook is as it was
