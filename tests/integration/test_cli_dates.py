"""Times in front matter that no calendar has, or that noted cannot keep, on import and on a Markdown folder.

Before: PyYAML raises ``ValueError`` (not ``YAMLError``) for ``created: 2024-02-30``, so every command
on a Markdown folder holding such a file exited 70, and so did ``noted import``. A time out of range
(``99999999999999999999``, ``253402300800000`` ms: the year 10000, ``0001-01-01``: year 0 in the
Americas) was stored as it came and broke every command that showed it afterwards, export included.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.cli import Cli
from tests.support.faults import EXIT, state

from noted.store.transfer.common import iso_utc, to_ms

EARLIEST_MS = -62135424000000  # 0001-01-03T00:00:00Z
LATEST_MS = 253402214399999  # 9999-12-30T23:59:59.999Z

BAD_TIMES = {
    "impossible-day": "created: 2024-02-30",
    "hour-25": "created: 2024-05-01T25:00:00Z",
    "year-0": "created: 0000-01-01",
    "huge-int": "created: 99999999999999999999",
    "year-10000-ms": "updated: 253402300800000",
    "first-day": "due: 0001-01-01",
    "completed-too-early": "todo_completed: 0001-01-01",
}
FOLDER_ONLY = {"done-too-early": "done: 0001-01-01"}  # the tester's case; import reads todo_completed


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


@pytest.mark.parametrize("line", [*BAD_TIMES.values(), *FOLDER_ONLY.values()], ids=[*BAD_TIMES, *FOLDER_ONLY])
def test_a_markdown_folder_reads_the_note_without_the_bad_time_and_says_so(
    cli: Cli, tmp_path: Path, line: str
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text(f"---\ntitle: Kept title\ntags: [kept]\ntodo: true\n{line}\n---\nhi there\n")
    v = ("--vault", str(root))
    (listed,) = cli.json("notes", *v)
    # Only the bad time is ignored: the title and tags of the same front matter are still read.
    assert listed["title"] == "Kept title" and cli.json("tags", *v)[0]["title"] == "kept"
    assert "hi there" in cli.ok("show", "Kept title", *v).out
    assert cli.json("search", "there", *v)["hits"][0]["title"] == "Kept title"
    cli.ok("export", str(tmp_path / "out"), *v)
    status = cli.json("vault", "status", *v)
    key = line.partition(":")[0]
    if key == "updated":  # a folder's note takes its update time from the file, never this key
        assert status["times_ignored"] == []
        return
    (ignored,) = status["times_ignored"]
    assert ignored["path"] == "a.md" and ignored["problem"].startswith(f'line 5: "{key}": ')
    assert status["front_matter_unread"] == []
    shown = cli.ok("vault", "status", *v).out
    assert "1 time in front matter that noted ignores" in shown and "  a.md: line 5: " in shown


@pytest.mark.parametrize("line", BAD_TIMES.values(), ids=BAD_TIMES.keys())
def test_import_refuses_the_file_naming_it_and_the_line(cli: Cli, tmp_path: Path, line: str) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "good.md").write_text("fine\n")
    (folder / "a.md").write_text(f"---\ntitle: T\n{line}\n---\nhi\n")
    cli.ok("notes")
    before = state(cli.profile)
    result = cli("import", str(folder))
    assert result.code == EXIT["bad input"], result
    assert result.err.count("\n") == 1, result.err
    assert f'a.md: line 3: bad value for "{line.partition(":")[0]}"' in result.err
    assert state(cli.profile) == before  # good.md was not imported either


def test_the_edges_of_the_range_are_kept_and_shown(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not vacuous: the first and last times noted keeps are imported, listed, shown and exported."""
    assert to_ms(EARLIEST_MS) == EARLIEST_MS and to_ms(LATEST_MS) == LATEST_MS
    for outside in (EARLIEST_MS - 1, LATEST_MS + 1):
        with pytest.raises(ValueError, match="out of range"):
            to_ms(outside)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "first.md").write_text(f"---\ncreated: {EARLIEST_MS}\nupdated: {LATEST_MS}\n---\nfirst\n")
    (folder / "last.md").write_text(f"---\ncreated: {iso_utc(LATEST_MS)}\n---\nlast\n")
    cli.ok("import", str(folder))
    # Local time probes a day back, and historic zones are hours off: the edges hold in all of them.
    for zone in ("Etc/UTC", "Africa/Abidjan", "Pacific/Kiritimati", "Etc/GMT+12"):
        with local_zone(monkeypatch, zone):
            assert "first" in cli.ok("show", "first").out and "last" in cli.ok("show", "last").out
            cli.ok("notes")
    cli.ok("export", str(tmp_path / "out"))


@contextlib.contextmanager
def local_zone(monkeypatch: pytest.MonkeyPatch, zone: str) -> Iterator[None]:
    with monkeypatch.context() as patch:
        patch.setenv("TZ", zone)
        time.tzset()
        try:
            yield
        finally:
            patch.undo()
            time.tzset()


def test_an_export_of_years_before_1000_imports_back(
    cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Export wrote ``created: 5-01-01T00:00:00.000Z`` (``strftime("%Y")`` on Linux), which its own
    import refuses: the whole export could not be imported."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "old.md").write_text(
        "---\ncreated: 0005-01-01T00:00:00Z\nupdated: 0999-12-31T23:59:59.999Z\n"
        "is_todo: true\ntodo_due: 0012-03-04T05:06:07.089Z\n---\nold\n"
    )
    cli.ok("import", str(folder))
    before = cli.json("show", "old")
    cli.ok("export", str(tmp_path / "out"))
    text = (tmp_path / "out" / "in" / "old.md").read_text()
    assert "created: '0005-01-01T00:00:00.000Z'" in text and "todo_due: '0012-03-04T05:06:07.089Z'" in text
    other = Cli(tmp_path / "other", capsys)
    other.ok("import", str(tmp_path / "out"))
    after = other.json("show", "old")
    fields = ("id", "created_time", "updated_time", "todo_due")
    assert [after[f] for f in fields] == [before[f] for f in fields]


def test_a_markdown_folder_keeps_a_due_time_before_1000(cli: Cli, tmp_path: Path) -> None:
    """The Markdown folder wrote ``due: 12-03-04T05:06:00Z``, which it read back as no time."""
    root = tmp_path / "notes"
    root.mkdir()
    v = ("--vault", str(root))
    created = cli.json("create", "Old", "--due", "0012-03-04T05:06", *v)
    assert "due: '0012-03-04T" in (root / "Inbox" / "Old.md").read_text()
    assert cli.json("show", "Old", *v)["todo_due"] == created["todo_due"] != 0


def test_a_due_date_out_of_range_is_refused_and_its_edges_kept(cli: Cli) -> None:
    """``noted create T --due 0001-01-01`` exited 70 (``timestamp()`` of a local year 1), and
    ``--due 9999-12-31`` stored a time that is the year 10000 east of Greenwich."""
    cli.ok("notes")
    before = state(cli.profile)
    for day in ("0001-01-01", "0001-01-02", "9999-12-31"):
        result = cli("create", "T", "--due", day)
        assert result.code == EXIT["bad input"] and result.err.count("\n") == 1, result
        assert f'bad --due: "{day}" is out of range' in result.err
    assert state(cli.profile) == before
    for day in ("0001-01-03", "9999-12-30"):
        cli.ok("create", f"T {day}", "--due", day)
        assert f"due {day} 00:00" in cli.ok("show", f"T {day}").out  # the year in four digits too


def test_a_time_out_of_range_that_a_profile_already_holds_is_shown_at_the_edge(
    cli: Cli, tmp_path: Path
) -> None:
    """Noted refuses such times now, but a Joplin note (its Data API takes any number) or a profile
    written before that rule may hold them: ``notes``, ``search`` and ``export`` exited 70."""
    note_id = cli.json("create", "Far off", "--body", "distant words")["id"]
    with cli.store().db.write() as conn:  # as an older noted stored it
        conn.execute(
            "UPDATE notes SET user_updated_time = ?, user_created_time = ?, is_todo = 1, todo_due = ? "
            "WHERE id = ?",
            (LATEST_MS + 86_400_000, EARLIEST_MS - 86_400_000 * 400, 99999999999999999, note_id),
        )
    assert "Far off" in cli.ok("notes").out
    shown = cli.ok("show", note_id).out
    assert "created:  0001-01-0" in shown and "due 9999-12-3" in shown  # the edge, in local time
    assert cli.json("search", "distant")["hits"][0]["id"] == note_id
    assert "Far off" in cli.ok("search", "distant").out
    cli.ok("export", str(tmp_path / "out"))
    text = (tmp_path / "out" / "Inbox" / "Far off.md").read_text()
    assert f"updated: '{iso_utc(LATEST_MS)}'" in text and f"created: '{iso_utc(EARLIEST_MS)}'" in text
    assert cli.json("show", note_id)["todo_due"] == 99999999999999999  # shown at the edge, kept as stored
