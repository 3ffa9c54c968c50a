"""A title holding a line break (made in Joplin, or by an older noted: noted refuses one now) stays on
its row in every one-line output of the command line, as ``␊``; JSON keeps it as it is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.support.cli import Cli

from noted.models import NoteDraft
from noted.profile import Profile
from noted.store.sqlite import SqliteStore


def test_titles_holding_a_line_break_stay_on_their_row_in_listings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(tmp_path / "p", capsys)
    cli.ok("notes")  # the profile is made
    profile = Profile(tmp_path / "p")
    store = SqliteStore.open(profile.db_path, profile.resources_dir)
    folder = store.create_folder("Plans", actor="user")
    note = store.create_note(NoteDraft("First", "zebra body", folder.id), actor="user")
    store.tag_note(note.id, ["urgent"], actor="user")
    with store.db.write() as conn:  # as Joplin keeps them
        conn.execute("UPDATE notes SET title = ? WHERE id = ?", ("First line\nsecond line", note.id))
        conn.execute("UPDATE folders SET title = ? WHERE id = ?", ("Plans\r\nand more", folder.id))
        conn.execute("UPDATE tags SET title = ? WHERE title = 'urgent'", ("urgent\u2028later",))
    store.close()

    title, notebook = "First line␊second line", "Plans␊and more"
    listed = cli.ok("notes").out.splitlines()
    # Not vacuous: before, the row broke in three and "second line  · Plans" began a line.
    assert all(re.match(r"[0-9a-f]{8}  ", line) for line in listed), listed
    assert f"{title}  · {notebook}" in listed[0]
    found = cli.ok("search", "--mode", "keyword", "zebra").out.splitlines()
    assert found[0].startswith(f"{note.id[:8]}  {title}  · {notebook}  · "), found
    books = cli.ok("notebooks").out.splitlines()
    assert (
        all(re.match(r"[0-9a-f]{8}  ", line) for line in books)
        and f"{folder.id[:8]}  {notebook} (1)" in books
    )
    assert "urgent␊later (1)" in cli.ok("tags").out.splitlines()
    assert cli.ok("show", note.id).out.splitlines()[:3] == [
        f"# {title}",
        f"id:       {note.id}",
        f"notebook: {notebook}",
    ]
    assert cli.json("notes")[0]["title"] == "First line\nsecond line"  # a script gets the title itself
