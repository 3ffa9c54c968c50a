"""A title holding a line break (made in Joplin, or by an older noted: noted refuses one now) stays on
its line, as ``␊``, in every one-line output of the command line and of the app (the tree, the list's
rows, the page's header, the palette); JSON keeps it as it is."""

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


async def test_the_app_shows_such_titles_on_their_line_in_the_tree_list_and_page(tmp_path: Path) -> None:
    from tests.integration.ui_support import build_profile, open_services, ready, until

    from noted.ui.app import NotedApp
    from noted.ui.widgets.note_list import NoteList
    from noted.ui.widgets.note_viewer import NoteViewer
    from noted.ui.widgets.notebook_tree import NotebookTree

    fixture = build_profile(tmp_path / "p")
    profile = Profile(fixture.root)
    store = SqliteStore.open(profile.db_path, profile.resources_dir)
    with store.db.write() as conn:  # as Joplin keeps them
        conn.execute("UPDATE notes SET title = ? WHERE id = ?", ("Release\nplan", fixture.release))
        conn.execute("UPDATE folders SET title = ? WHERE id = ?", ("Home\nand garden", fixture.home))
    store.close()
    services = open_services(fixture.root)
    try:
        app = NotedApp(services, background=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            notes = app.workspace.query_one(NoteList)
            rows = [str(notes.get_option_at_index(i).prompt) for i in range(notes.option_count)]
            # Not vacuous: before, the row of "Release\nplan" took three lines, not two.
            assert [row.count("\n") for row in rows] == [1, 1, 1, 1], rows
            assert any("Release␊plan" in row for row in rows), rows
            tree = app.workspace.query_one(NotebookTree)
            labels = [str(node.label) for node in tree.root.children]
            assert any(label.startswith("Home␊and garden") for label in labels), labels
            notes.highlighted = next(i for i, row in enumerate(rows) if "Release␊plan" in row)
            viewer = app.workspace.query_one(NoteViewer)
            await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == fixture.release)
            header = str(viewer.query_one("#note-header").render())
            assert "Release␊plan" in header and "Release\nplan" not in header, header
    finally:
        services.close()
