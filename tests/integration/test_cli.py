"""The ``noted`` command line, run in-process against a real profile (and once as a real process)."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import Cli, env_with_src, run_noted
from tests.support.polling import scaled

from noted.cli import build_parser, parser_and_commands
from noted.markdown import outline, outline_lines
from noted.models import ACTOR_IMPORT, NoteDraft


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


def note_id(cli: Cli, title: str) -> str:
    notes = [n for n in cli.json("notes") + cli.json("notes", "--trash") if n["title"] == title]
    assert len(notes) == 1, notes
    return str(notes[0]["id"])


def assert_refused(cli: Cli, args: list[str], code: int, fragment: str) -> None:
    """The command fails with one line on stderr naming the problem, and writes nothing."""
    before = cli.cursor()
    result = cli(*args)
    assert result.code == code, (result.out, result.err)
    assert result.err.count("\n") == 1 and result.err.startswith("noted: "), result.err
    assert fragment in result.err, result.err
    assert cli.cursor() == before


# The welcome notebook ----------------------------------------------------------------------------
def test_first_run_creates_the_welcome_notebook(cli: Cli) -> None:
    summary = cli.json()
    assert summary["profile"] == str(cli.profile.resolve())
    paths = {nb["path"]: nb for nb in summary["notebooks"]}
    assert set(paths) == {"Welcome", "Welcome/Guides"}
    assert paths["Welcome"]["total_note_count"] == 5
    assert summary["recent"][0]["title"] == "Start here"
    assert summary["tag_count"] >= 2
    todos = cli.json("notes", "--todo")
    assert len(todos) == 1 and todos[0]["todo_due"] > 0
    start = cli.json("show", "Start here")
    assert {"welcome", "howto"} <= set(start["tags"])
    assert "## Search" in start["body"] and "notebook:" in start["body"]
    # The outline note has nested headings, so its outline goes three levels deep.
    assert any(
        line.startswith("1.2.2\t")
        for line in cli.ok("show", "Reading a long note by its outline", "--outline").out.splitlines()
    )
    history = cli.json("history", "Start here")
    assert [r["actor"] for r in history] == [ACTOR_IMPORT]
    # A second run must not add a second Welcome notebook.
    assert len(cli.json("notebooks")) == 2


def test_plain_noted_prints_a_summary(cli: Cli) -> None:
    out = cli.ok().out
    assert str(cli.profile.resolve()) in out
    assert "Welcome (2, 5 with sub-notebooks)" in out and "  Guides (3)" in out
    assert "Start here" in out and "noted --help" in out


def test_welcome_links_point_at_welcome_notes(cli: Cli) -> None:
    body = cli.json("show", "Start here")["body"]
    ids = {n["id"] for n in cli.json("notes")}
    linked = {part[:32] for part in body.split("(:/")[1:]}
    assert len(linked) == 3 and linked <= ids


# Notebooks and tags ----------------------------------------------------------------------------------
def test_notebook_create_rename_move_trash_restore(cli: Cli) -> None:
    projects = cli.ok("notebook", "create", "Projects").out.strip()
    assert len(projects) == 32
    sub = cli.json("notebook", "create", "Garden", "--parent", "Projects")
    assert sub["parent_id"] == projects and sub["path"] == "Projects/Garden"
    cli.ok("notebook", "rename", "Projects/Garden", "Allotment")
    cli.ok("notebook", "move", "Allotment", "--parent", "Welcome/Guides")
    tree = {nb["path"]: nb for nb in cli.json("notebooks")}
    assert "Welcome/Guides/Allotment" in tree and tree["Welcome/Guides/Allotment"]["depth"] == 2
    cli.ok("notebook", "move", sub["id"][:6], "--top")
    assert "Allotment" in {nb["path"] for nb in cli.json("notebooks")}

    cli.ok("create", "Seeds", "--notebook", "Allotment")
    cli.ok("notebook", "trash", "Allotment")
    assert "Allotment" not in {nb["title"] for nb in cli.json("notebooks")}
    assert [nb["title"] for nb in cli.json("notebooks", "--trash")] == ["Allotment"]
    assert "Seeds" in {n["title"] for n in cli.json("notes", "--trash")}
    cli.ok("notebook", "restore", "Allotment")
    assert cli.json("notebooks", "--trash") == []
    assert cli.json("notes", "--notebook", "Allotment")[0]["title"] == "Seeds"


def test_notebooks_text_and_json_shapes(cli: Cli) -> None:
    lines = cli.ok("notebooks").out.splitlines()
    assert lines[0].endswith("Welcome (2, 5 with sub-notebooks)")
    assert lines[1].endswith("    Guides (3)")
    entry = cli.json("notebooks")[1]
    assert set(entry) >= {"id", "title", "parent_id", "path", "depth", "note_count", "total_note_count"}
    assert entry["note_count"] == 3 and entry["depth"] == 1


def test_a_notebook_moved_where_it_is_says_so_and_writes_nothing(cli: Cli) -> None:
    """It said "moved notebook" for a move that changed nothing (the notebook there already)."""
    cli.ok("notebooks")
    before = cli.json("notebooks")
    assert (
        cli.ok("notebook", "move", "Welcome", "--top").out
        == 'notebook "Welcome" is at the top level already\n'
    )
    said = cli.ok("notebook", "move", "Guides", "--parent", "Welcome").out
    assert said == 'notebook "Guides" is in "Welcome" already\n'
    assert cli.ok("notebook", "rename", "Guides", "Guides").out == 'notebook "Guides" is named so already\n'
    assert cli.json("notebooks") == before  # not written: the times are the same
    assert cli.ok("notebook", "move", "Guides", "--top").out.startswith('moved notebook "Guides"')


def test_a_note_moved_where_it_is_says_so_and_writes_nothing(cli: Cli) -> None:
    """It said "moved" for a note in that notebook already."""
    shown = cli.json("show", "Start here")
    said = cli.ok("move", "Start here", shown["notebook"]).out
    assert said == f'"Start here" is in {shown["notebook"]} already\n'
    assert cli.json("show", "Start here")["updated_time"] == shown["updated_time"]


def test_notebook_move_needs_a_destination(cli: Cli) -> None:
    cli.ok("notebooks")
    with pytest.raises(SystemExit) as exc:
        cli("notebook", "move", "Guides")
    assert exc.value.code == 2


def test_tags_lists_counts(cli: Cli) -> None:
    tags = {t["title"]: t["note_count"] for t in cli.json("tags")}
    assert tags["welcome"] == 4 and tags["mcp"] == 1
    assert "welcome (4)" in cli.ok("tags").out


# Notes -------------------------------------------------------------------------------------------------
def test_notes_filters_and_sorting(cli: Cli) -> None:
    cli.ok("create", "Zebra", "--notebook", "Guides", "--tag", "animals")
    cli.ok("create", "Aardvark", "--notebook", "Guides", "--tag", "animals", "--todo")
    guides = [n["title"] for n in cli.json("notes", "--notebook", "Guides", "--sort", "title")]
    assert guides[0] == "Aardvark" and guides[-1] == "Zebra" and len(guides) == 5
    assert [n["title"] for n in cli.json("notes", "--tag", "animals", "--sort", "title")] == [
        "Aardvark",
        "Zebra",
    ]
    assert {n["title"] for n in cli.json("notes", "--todo")} == {"Aardvark", "Try noted for a week"}
    assert len(cli.json("notes", "--limit", "2")) == 2
    assert cli.json("notes")[0]["title"] == "Aardvark"  # newest first
    cli.ok("trash", "Zebra")
    assert [n["title"] for n in cli.json("notes", "--trash")] == ["Zebra"]
    line = cli.ok("notes", "--todo").out.splitlines()[0]
    assert "[ ] Aardvark" in line and "· Welcome/Guides" in line


def test_notes_unknown_tag_is_an_error(cli: Cli) -> None:
    cli.ok("notes")
    assert_refused(cli, ["notes", "--tag", "nope"], 1, 'no tag "nope"')


def test_show_prints_header_and_body(cli: Cli) -> None:
    out = cli.ok("show", "Try noted for a week").out
    assert out.startswith("# Try noted for a week\n")
    assert "notebook: Welcome\n" in out and "tags:     welcome" in out and "to-do:    open, due " in out
    assert "- [ ] Create a notebook" in out
    note = cli.json("show", "Try noted for a week")
    assert set(note) >= {
        "id",
        "title",
        "notebook",
        "tags",
        "body",
        "is_todo",
        "todo_due",
        "base_updated_time",
    }
    assert note["is_todo"] is True and note["notebook"] == "Welcome"


def test_show_outline_and_sections(cli: Cli) -> None:
    title = "Reading a long note by its outline"
    body = cli.json("show", title)["body"]
    assert cli.ok("show", title, "--outline").out.splitlines() == outline_lines(outline(body))
    listed = cli.json("show", title, "--outline")["outline"]
    assert [s["path"] for s in listed][:4] == ["0", "1", "1.1", "1.1.1"]
    section = cli.ok("show", title, "--section", "1.2").out
    assert section.startswith("## While there") and "### Food" in section and "# Afterwards" not in section
    by_heading = cli.json("show", title, "--section", "food")["section"]
    assert by_heading["path"] == "1.2.2" and "sardines" in by_heading["text"]


def test_show_section_errors(cli: Cli) -> None:
    note = cli.ok("create", "Twice", "--body", "# A\n## Notes\nx\n# B\n## Notes\ny\n").out.strip()
    result = cli("show", note, "--section", "Notes")
    assert result.code == 2 and "1.1" in result.err and "2.1" in result.err and result.err.count("\n") == 1
    assert cli("show", note, "--section", "9.9").code == 1
    assert cli.ok("show", note, "--section", "2.1").out == "## Notes\ny\n"


def test_create_with_every_option(cli: Cli, tmp_path: Path) -> None:
    body_file = tmp_path / "body.md"
    body_file.write_text("# From a file\n", encoding="utf-8")
    created = cli.json(
        "create",
        "Plan",
        "--notebook",
        "Guides",
        "--body-file",
        str(body_file),
        "--due",
        "2030-01-31T09:30",
        "--tag",
        "a",
        "--tag",
        "b",
        "--source-url",
        "https://example.org/x",
    )
    due = int(dt.datetime(2030, 1, 31, 9, 30).timestamp() * 1000)
    assert created["is_todo"] is True and created["todo_due"] == due
    assert created["tags"] == ["a", "b"] and created["source_url"] == "https://example.org/x"
    assert created["body"] == "# From a file\n" and created["notebook"] == "Welcome/Guides"
    plain = cli.ok("create", "Inline", "--body", "hello").out.strip()
    shown = cli.json("show", plain)
    assert shown["body"] == "hello" and shown["notebook"] == "Inbox"  # the default notebook


def test_create_reads_standard_input(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    cli.ok("notes")
    monkeypatch.setattr(sys, "stdin", io.StringIO("piped body\n"))
    new = cli.ok("create", "Piped", "-").out.strip()
    assert cli.json("show", new)["body"] == "piped body\n"
    # The "-" after an option: argparse took the title and the optional "-" at once, and said
    # "unrecognized arguments: -" though the help shows `title [{-}]`.
    monkeypatch.setattr(sys, "stdin", io.StringIO("after options\n"))
    later = cli.ok("create", "Later", "--tag", "x", "-").out.strip()
    assert (cli.json("show", later)["body"], cli.json("show", later)["tags"]) == ("after options\n", ["x"])


def test_create_refuses_bad_input(cli: Cli, tmp_path: Path) -> None:
    cli.ok("notes")
    assert_refused(cli, ["create", "X", "--due", "tomorrow"], 2, 'bad --due "tomorrow"')
    assert_refused(cli, ["create", "X", "--body-file", str(tmp_path / "missing.md")], 2, "cannot read")
    assert_refused(cli, ["create", "X", "--body", "a", "--body-file", "f"], 2, "give the body once")
    assert_refused(cli, ["create", "X", "--notebook", "Nowhere"], 1, 'no notebook with id or title "Nowhere"')
    (tmp_path / "latin1.md").write_bytes(b"caf\xe9")
    assert_refused(cli, ["create", "X", "--body-file", str(tmp_path / "latin1.md")], 2, "is not valid UTF-8")


def test_edit_with_options(cli: Cli, tmp_path: Path) -> None:
    note = cli.ok("create", "Draft", "--body", "middle").out.strip()
    cli.ok("edit", note, "--append", "end")
    cli.ok("edit", note, "--prepend", "start")
    assert cli.json("show", note)["body"] == "start\nmiddle\nend\n"
    cli.ok("edit", note, "--title", "Final")
    replacement = tmp_path / "new.md"
    replacement.write_text("replaced\n", encoding="utf-8")
    edited = cli.json("edit", "Final", "--body-file", str(replacement))
    assert edited["title"] == "Final" and edited["body"] == "replaced\n"
    assert_refused(cli, ["edit", note, "--body-file", str(replacement), "--append", "x"], 2, "--body-file")


def test_move_tag_complete_trash_restore(cli: Cli) -> None:
    note = cli.ok("create", "Chores", "--todo").out.strip()
    assert cli.json("move", note, "Guides")["notebook"] == "Welcome/Guides"
    assert cli.json("tag", note, "home", "weekly")["tags"] == ["home", "weekly"]
    assert cli.json("tag", note, "home", "--remove")["tags"] == ["weekly"]
    assert cli.json("complete", note)["todo_completed"] > 0
    assert cli.json("complete", note, "--undo")["todo_completed"] == 0
    assert_refused(cli, ["complete", "Start here"], 2, "not a to-do")
    assert "to the trash" in cli.ok("trash", note).out
    assert cli.json("show", note)["deleted_time"] > 0
    restored = cli.json("restore", "Chores")
    assert restored["deleted_time"] == 0 and restored["notebook"] == "Welcome/Guides"


def test_empty_trash_needs_confirmation(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    cli.ok("trash", "Start here")
    # pytest's stdin is not a terminal: without --yes the command refuses and deletes nothing.
    assert_refused(cli, ["empty-trash"], 2, "without --yes")

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Tty("n\n"))
    assert cli("empty-trash").code == 1
    assert len(cli.json("notes", "--trash")) == 1
    monkeypatch.setattr(sys, "stdin", Tty("y\n"))
    assert "deleted 1 note for good" in cli.ok("empty-trash").out
    assert cli.json("notes", "--trash") == []
    assert cli.json("empty-trash", "--yes") == {"deleted": 0, "stayed": 0, "held_notebooks": []}
    cli.ok("notebook", "create", "Old")
    cli.ok("create", "Kept", "--notebook", "Old")
    cli.ok("notebook", "trash", "Old")
    assert "deleted 1 note and 1 notebook for good" in cli.ok("empty-trash", "--yes").out  # not "1 note"
    # An empty trash is said to be empty, not asked about ("Delete the 0 notes?").
    monkeypatch.setattr(sys, "stdin", Tty(""))
    assert "the trash is empty already" in cli.ok("empty-trash").out


def test_empty_trash_says_which_notes_of_a_markdown_folder_stayed_and_why(cli: Cli, tmp_path: Path) -> None:
    """It kept a trashed file changed outside noted, but erased its note and said "deleted 1 note"."""
    root = tmp_path / "folder"
    root.mkdir()
    v = ("--vault", str(root))
    for title in ("Edited", "Untouched"):
        cli.ok("create", title, "--body", "first words", *v)
        cli.ok("trash", title, *v)
    (root / ".trash" / "Inbox" / "Edited.md").write_text("words of my own\n")
    said = cli.ok("empty-trash", "--yes", *v).out
    assert said.strip() == (
        "deleted 1 note for good; 1 note stayed in the trash: its file changed or moved there outside "
        "noted (restore it, or delete the file yourself)"
    )
    assert [n["title"] for n in cli.json("notes", "--trash", *v)] == ["Edited"]
    assert cli.json("empty-trash", "--yes", *v) == {"deleted": 0, "stayed": 1, "held_notebooks": []}
    cli.ok("restore", "Edited", *v)
    assert "words of my own" in cli.ok("show", "Edited", *v).out


def test_empty_trash_erases_only_what_the_question_named(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    cli.ok("trash", "Start here")
    first = cli.json("notes", "--trash")[0]["id"]
    other = cli.json("notes")[0]["id"]

    class Answer(io.StringIO):
        """Says yes, after another process has trashed a second note while the question was shown."""

        def isatty(self) -> bool:
            return True

        # typeshed's StringIO inherits both _IOBase.readline (bytes) and TextIOBase's (str).
        def readline(self, size: int | None = -1, /) -> str:  # type: ignore[override]
            cli.ok("trash", other)
            return "y\n"

    monkeypatch.setattr(sys, "stdin", Answer())
    result = cli("empty-trash")
    assert result.code == 1 and "changed meanwhile, so nothing was deleted" in result.out
    # Not vacuous: emptying regardless would have erased the second note, never named.
    assert {n["id"] for n in cli.json("notes", "--trash")} == {first, other}
    monkeypatch.setattr(sys, "stdin", type("Tty", (io.StringIO,), {"isatty": lambda self: True})("y\n"))
    assert "deleted 2 notes for good" in cli.ok("empty-trash").out
    assert cli.json("notes", "--trash") == []


def test_history_lists_shows_and_restores(cli: Cli) -> None:
    note = note_id(cli, "Start here")
    original = cli.json("show", note)["body"]
    cli.ok("edit", note, "--append", "my line")
    revisions = cli.json("history", note)
    assert [r["actor"] for r in revisions] == ["user", ACTOR_IMPORT]
    assert set(revisions[0]) >= {"id", "time", "actor", "edits", "title"}
    lines = cli.ok("history", note).out.splitlines()
    assert "user" in lines[0] and "1 edit" in lines[0] and ACTOR_IMPORT in lines[1]
    old = revisions[1]["id"]
    assert cli.json("history", note, "--show", str(old))["body"] == original
    assert cli.json("history", note, "--restore", str(old))["body"] == original
    other = note_id(cli, "Try noted for a week")
    assert_refused(cli, ["history", other, "--show", str(old)], 1, f"no revision {old}")
    # A note in the trash is restored before it is changed, as `noted edit` asks (same line, same code).
    cli.ok("trash", note)
    assert_refused(cli, ["edit", note, "--append", "x"], 1, '"Start here" is in the trash; restore it first')
    assert_refused(
        cli, ["history", note, "--restore", str(old)], 1, '"Start here" is in the trash; restore it first'
    )
    assert cli.json("show", note)["deleted_time"] != 0


def test_search_text_and_json(cli: Cli) -> None:
    found = cli.json("search", "sardines", "--mode", "keyword")
    assert found["total"] == 1
    hit = found["hits"][0]
    assert hit["title"] == "Reading a long note by its outline" and hit["notebook"] == "Guides"
    assert hit["section"] == "1.2.2" and hit["section_heading"] == "Food" and "sardines" in hit["snippet"]
    out = cli.ok("search", "sardines", "--mode", "keyword").out
    assert "§ 1.2.2 Food" in out and "Reading a long note" in out
    assert cli.json("search", "tag:welcome", "--limit", "2", "--mode", "keyword")["total"] == 4
    assert len(cli.json("search", "tag:welcome", "--limit", "2", "--mode", "keyword")["hits"]) == 2
    assert_refused(cli, ["search", "notebok:x"], 2, 'unknown filter "notebok:"; did you mean notebook:?')


def test_search_takes_a_query_that_starts_with_a_dash_and_one_of_several_words(cli: Cli) -> None:
    # "-tag:welcome" was taken for an unknown option, and then "the query is missing".
    every = cli.json("search", "-tag:nosuch", "--mode", "keyword")["total"]
    assert every == cli.json("search", "-tag:nosuch", "--mode", "keyword", "--limit", "1")["total"] > 0
    assert cli.json("search", "-tag:welcome", "--mode", "keyword")["total"] == every - 4
    words = cli.json("search", "sardines", "-tag:nosuch", "Food", "--mode", "keyword")
    assert words["query"] == "sardines -tag:nosuch Food" and [h["title"] for h in words["hits"]] == [
        "Reading a long note by its outline"
    ]
    assert cli.json("search", "sardines", "-tag:welcome", "--mode", "keyword")["total"] == 0
    mistyped = cli("search", "sardines", "--limt", "5")  # a mistyped option is still refused
    assert mistyped.code == 2 and "search has no option --limt" in mistyped.err
    # A word that starts with -h was read as -h with a value: "ignored explicit argument 'ome'".
    assert cli.json("search", "sardines", "-home", "--mode", "keyword")["query"] == "sardines -home"
    for asked in (["search", "-h"], ["search", "sardines", "-h"], ["search", "--help"]):
        with pytest.raises(SystemExit) as exc:
            cli(*asked)
        assert exc.value.code == 0, asked


# Naming notes and notebooks ------------------------------------------------------------------------------
def test_ids_prefixes_and_titles_resolve(cli: Cli) -> None:
    full = note_id(cli, "Start here")
    for ref in (full, full[:4], full[:10].upper(), "Start here", "start HERE"):
        assert cli.json("show", ref)["id"] == full


def test_ambiguous_references_list_the_candidates(cli: Cli) -> None:
    cli.ok("notes")
    store = cli.store()
    try:
        folder = next(f.id for f in store.list_folders() if f.title == "Welcome")
        store.create_note(NoteDraft("One", parent_id=folder, id="abcd1" + "0" * 27), actor="user")
        store.create_note(NoteDraft("Two", parent_id=folder, id="abcd2" + "0" * 27), actor="user")
        store.create_note(NoteDraft("Same", parent_id=folder), actor="user")
        store.create_note(NoteDraft("Same", parent_id=folder), actor="user")
    finally:
        store.close()
    assert_refused(cli, ["trash", "abcd"], 2, '"abcd" matches 2 notes: abcd1000 "One", abcd2000 "Two"')
    assert cli.json("show", "abcd1")["title"] == "One"
    assert_refused(cli, ["trash", "Same"], 2, '"Same" matches 2 notes')
    cli.ok("notebook", "create", "Guides")
    assert_refused(cli, ["notes", "--notebook", "Guides"], 2, '"Welcome/Guides"')
    assert len(cli.json("notes", "--notebook", "Welcome/Guides")) == 3


@pytest.mark.parametrize(
    "args",
    [
        ["show", "nothing-like-it"],
        ["trash", "0123456789abcdef0123456789abcdef"],
        ["move", "ffffffff", "Welcome"],
        ["tag", "No such note", "x"],
        ["edit", "No such note", "--append", "x"],
        ["restore", "No such note"],
        ["history", "No such note"],
        ["complete", "No such note"],
    ],
)
def test_unknown_note_changes_nothing(cli: Cli, args: list[str]) -> None:
    cli.ok("notes")
    assert_refused(cli, args, 1, f'no note with id or title "{args[1]}"')


def test_an_empty_value_is_refused_not_taken_for_no_option(cli: Cli) -> None:
    """``--notebook "$NB"`` with NB unset put the note in Inbox (and listed every note), ``--tag ""``
    was dropped, ``--section ""`` printed the whole note: each now says what is missing."""
    cli.ok("notes")
    assert_refused(cli, ["create", "X", "--notebook", ""], 2, "no notebook given")
    assert_refused(cli, ["create", "X", "--tag", "work", "--tag", " "], 2, "a tag needs a name")
    assert_refused(cli, ["tag", "Start here", "work", ""], 2, "a tag needs a name")
    assert_refused(cli, ["notes", "--notebook", ""], 2, "no notebook given")
    assert_refused(cli, ["notes", "--tag", ""], 2, "--tag is empty")
    assert_refused(cli, ["show", "Start here", "--section", ""], 2, "--section is empty")
    assert_refused(cli, ["create", "X", "--due", ""], 2, 'bad --due ""')
    assert_refused(cli, ["notebook", "create", "X", "--parent", ""], 2, "no notebook given")
    assert_refused(cli, ["chats", "--note", ""], 2, "no note given")
    assert_refused(cli, ["show", " "], 2, "no note given")
    assert_refused(cli, ["notebook", "rename", "", "X"], 2, "no notebook given")
    assert_refused(cli, ["chats", "--delete", ""], 2, "give a conversation id")
    assert_refused(cli, ["chats", "--search", " "], 2, "the search is empty")
    assert_refused(cli, ["changes", "--actor", ""], 2, "--actor is empty")
    assert_refused(cli, ["changes", "--since", ""], 2, 'bad date ""')
    assert_refused(cli, ["edit", "Start here", "--body-file", ""], 2, "the file name is empty")
    assert_refused(cli, ["mcp", "serve", "--host", ""], 2, "--host is empty")
    assert_refused(cli, ["mcp", "token", "--path", ""], 2, "--path is empty")
    assert not (cli.profile / "mcp-token").exists()


def test_unknown_notebook_changes_nothing(cli: Cli) -> None:
    cli.ok("notes")
    assert_refused(cli, ["move", "Start here", "Atlantis"], 1, 'no notebook with id or title "Atlantis"')
    assert_refused(cli, ["notebook", "trash", "Atlantis"], 1, "Atlantis")


# Every subcommand has help; a real process -------------------------------------------------------------
COMMANDS = sorted(parser_and_commands()[1])


def test_the_command_table_holds_every_command_and_action() -> None:
    # Not vacuous: the nested actions are there too, and the table names a parser for each one.
    assert {("create",), ("notebook",), ("notebook", "create"), ("config", "set"), ("mcp", "serve")} <= set(
        COMMANDS
    )
    assert len(COMMANDS) >= 40


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_subcommand_has_help(command: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args([*command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert f"usage: noted {' '.join(command)}" in out and "--joplin" in out


def test_real_process_lists_and_fails_cleanly(cli: Cli) -> None:
    cli.ok("notes")  # the profile is made in-process; one real process is enough to check the exits
    listed = run_noted(cli.profile, "--json", "notes", "--limit", "1")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)[0]["title"] == "Start here"
    missing = run_noted(cli.profile, "show", "no-such-note")
    assert missing.returncode == 1
    assert missing.stderr == 'noted: no note with id or title "no-such-note"\n'
    assert missing.stdout == ""


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_real_process_asks_on_a_terminal(cli: Cli) -> None:
    cli.ok("trash", "Start here")
    leader, follower = os.openpty()
    try:
        os.write(leader, b"y\n")
        done = subprocess.run(
            [sys.executable, "-m", "noted", "--profile", str(cli.profile), "empty-trash"],
            stdin=follower,
            capture_output=True,
            text=True,
            env=env_with_src(),
            timeout=scaled(300),
            check=False,
        )
    finally:
        os.close(leader)
        os.close(follower)
    assert done.returncode == 0, done.stderr
    assert (
        "Delete 1 note in the trash for good? There is no undo." in done.stdout
        and "deleted 1 note for good" in done.stdout
    )
    assert cli.json("notes", "--trash") == []


def test_text_before_the_first_heading_is_called_top(cli: Cli) -> None:
    # It printed "§ 0" and an empty outline heading, which mean nothing to a person; the path
    # "0" stays in JSON (scripts key on it) and "top" also names the section to show.
    note = cli.ok("create", "Zebra facts", "--body", "quagga stripes first\n\n# Later\nmore\n").out.strip()
    out = cli.ok("search", "quagga", "--mode", "keyword").out
    assert "§ top" in out and "§ 0" not in out
    assert cli.json("search", "quagga", "--mode", "keyword")["hits"][0]["section"] == "0"
    assert cli.ok("show", note, "--outline").out.splitlines()[0].split("\t") == ["0", "22", "(top)"]
    assert cli.ok("show", note, "--section", "top").out.strip().startswith("quagga stripes first")
