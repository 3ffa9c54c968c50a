"""A note found only by its title is never overwritten by an import, in any field.

Importing profile A's export into a fresh profile B matched B's own welcome to-do by title and
took the file's due date ("1 updated"): the body was guarded against that, the other fields were
not. Real CLI, real SQLite, real Markdown folder, real Joplin.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli
from tests.support.joplin import shared_server


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "b", capsys)


@pytest.fixture(params=["sqlite", "vault", "joplin"])
def where(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[str, ...]:
    """The options that put profile B's notes on each backend: its own, a Markdown folder, a Joplin."""
    if request.param == "vault":
        (tmp_path / "vault").mkdir()
        return ("--vault", str(tmp_path / "vault"))
    if request.param == "joplin":
        joplin = shared_server(tmp_path_factory.getbasetemp())
        joplin.wipe()
        monkeypatch.setenv("NOTED_JOPLIN_TOKEN", joplin.token)
        monkeypatch.setenv("NOTED_JOPLIN_URL", joplin.url)
        return ("--joplin",)
    return ()


def todo(cli: Cli, *v: str) -> dict[str, object]:
    (found,) = [n for n in cli.json("notes", *v) if n["title"] == "Try noted for a week"]
    note: dict[str, object] = cli.json("show", str(found["id"]), *v)
    return note


def test_another_profiles_export_leaves_the_welcome_todo_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cli: Cli
) -> None:
    """Both fresh profiles hold a welcome to-do of that title, due a week after each was made: B's
    kept A's due date. Not vacuous: B's is made first, so the due dates differ."""
    a = Cli(tmp_path / "a", capsys)
    a.ok("notes")
    before = todo(cli)
    export = tmp_path / "x"
    a.ok("export", str(export))
    theirs = todo(a)
    assert theirs["todo_due"] != before["todo_due"]
    report = cli.json("import", str(export))
    assert (report["notes_created"], report["notes_updated"]) == (1, 0)  # A's to-do, as its own note
    assert cli.json("show", str(before["id"])) == before
    assert cli.json("show", str(theirs["id"]))["todo_due"] == theirs["todo_due"]


def test_a_file_matched_by_title_that_changes_only_a_due_date_is_a_conflict_copy(
    cli: Cli, tmp_path: Path, where: tuple[str, ...]
) -> None:
    """A file with no id, of a note made in noted (no import on record): its text is the note's,
    its due date is not. That date replaced the note's; now the note keeps it and the file's
    text goes beside it as a conflict copy, as for a text that differs."""
    source = tmp_path / "src"
    source.mkdir()
    cli.ok("notebook", "create", "src", *where)
    made = cli.json(
        "create", "Call Ana", "--notebook", "src", "--todo", "--due", "2030-01-31", "--body", "hi", *where
    )
    (source / "Call Ana.md").write_text("---\nis_todo: true\ntodo_due: '2031-05-01T00:00:00.000Z'\n---\nhi")
    report = cli.json("import", str(source), *where)
    assert (report["notes_updated"], report["conflict_copies"]) == (0, 1)
    assert cli.json("show", made["id"], *where)["todo_due"] == made["todo_due"]


def linked(cli: Cli, note: str, *where: str) -> list[str]:
    """The ids of the notes the note ``note`` (a title or an id) links, as noted reads its links
    on that backend."""
    return [str(link["note_id"]) for link in cli.json("links", note, *where)["outgoing"]]


def test_links_to_a_file_matched_by_title_that_became_a_note_of_its_own_lead_to_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cli: Cli, where: tuple[str, ...]
) -> None:
    """A's "Call Ana" is due another day than B's: it comes in as a note of its own, under its id.
    Its links from A's "Agenda" (a file written before it) and "Zed" (after it) led to B's "Call
    Ana": they were made ids at the scan, where the file was still taken for B's note. Not
    vacuous: B's note has the title and notebook the links' file has."""
    a = Cli(tmp_path / "a", capsys)
    a.ok("notebook", "create", "W")
    ana = a.json("create", "Call Ana", "--notebook", "W", "--todo", "--due", "2030-01-31", "--body", "hi")
    for title in ("Agenda", "Zed"):
        a.ok("create", title, "--notebook", "W", "--body", f"see [Call Ana](:/{ana['id']})")
    export = tmp_path / "x"
    a.ok("export", str(export))
    cli.ok("notebook", "create", "W", *where)
    own = cli.json(
        "create", "Call Ana", "--notebook", "W", "--todo", "--due", "2031-05-01", "--body", "hi", *where
    )
    cli.ok("import", str(export), *where)
    assert cli.json("show", ana["id"], *where)["todo_due"] == ana["todo_due"]
    assert cli.json("show", own["id"], *where)["todo_due"] == own["todo_due"]
    assert (linked(cli, "Agenda", *where), linked(cli, "Zed", *where)) == ([ana["id"]], [ana["id"]])


def test_a_file_linking_a_title_match_that_became_a_note_of_its_own_is_one_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cli: Cli, where: tuple[str, ...]
) -> None:
    """B's "Agenda" says what A's says, but links B's "Call Ana", and A's links A's, which comes
    in as a note of its own: A's "Agenda" is not B's then, and comes in too. Not vacuous: read
    with its link to B's "Call Ana" (as the guess had it), A's "Agenda" is B's; settled once, in
    the files' order, it stayed B's ("Agenda" comes before "Call Ana") and A's link was lost."""
    a = Cli(tmp_path / "a", capsys)
    notes = {}
    for who, v, due in ((a, (), "2030-01-31"), (cli, where, "2031-05-01")):
        who.ok("notebook", "create", "W", *v)
        ana = who.json("create", "Call Ana", "--notebook", "W", "--todo", "--due", due, "--body", "hi", *v)
        body = f"see [Call Ana](:/{ana['id']})"
        notes[who] = (ana["id"], who.json("create", "Agenda", "--notebook", "W", "--body", body, *v)["id"])
    export = tmp_path / "x"
    a.ok("export", str(export))
    cli.ok("import", str(export), *where)
    (theirs_ana, theirs), (own_ana, own) = notes[a], notes[cli]
    assert (linked(cli, theirs, *where), linked(cli, own, *where)) == ([theirs_ana], [own_ana])
