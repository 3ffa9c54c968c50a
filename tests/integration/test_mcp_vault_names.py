"""A Markdown folder's names, as an AI app sees them over MCP: a file with no extension that a note
links is its attachment, and a note file ``.gitignore`` ignores is no note a link leads to.

The folder is real, the app is the MCP SDK's client over HTTP, limited to "Work" by its token, and
the main token (no scope) sees what the folder holds, so each answer can be checked against it.
"""

from __future__ import annotations

import base64
from pathlib import Path

from tests.integration.test_mcp_vault_scope import Folder, _clients, _ok, _refused, folder
from tests.support.vaults import by_title

__all__ = ["folder"]  # the fixture
MAKEFILE = b"all:\n\techo built\n"


async def test_a_file_with_no_extension_that_a_note_links_is_its_attachment(
    folder: Folder, tmp_path: Path
) -> None:
    work = folder.root / "Work"
    (work / "Makefile").write_bytes(MAKEFILE)
    (work / "LICENSE").write_text("MIT\n")  # beside it, linked by nothing
    (work / ".env").write_text("TOKEN=1\n")  # a hidden file: never an attachment
    (work / "Plans.md").write_text("# Plans\n\nplans text\n")
    (work / "Build.md").write_text(
        "# Build\n\nRun [the build](Makefile), see [[Plans]], [[.env]] and [[Unwritten]].\n"
    )
    folder.store.follower.scan()
    build = by_title(folder.store, "Build")
    async with _clients(folder, tmp_path) as (scoped, everything):
        for client in (scoped, everything):
            listed = await _ok(client, "list_attachments", note_id=build)
            # Before: none, as a link to a name with no extension was taken for a link to a note.
            assert [a["filename"] for a in listed["attachments"]] == ["Makefile"]
            read = await _ok(client, "read_attachment", id=listed["attachments"][0]["id"])
            assert base64.b64decode(read["content_base64"]) == MAKEFILE
            links = await _ok(client, "note_links", id=build)
            assert links["outgoing"][1]["title"] == "Plans"  # a note's name stays a link to it
        plans = by_title(folder.store, "Plans")
        listed = await _ok(everything, "list_attachments", note_id=plans)
        assert listed["attachments"] == []  # LICENSE, linked by nothing, is nobody's
    assert (work / "Makefile").read_bytes() == MAKEFILE  # linked where it is, never rewritten


async def test_a_note_file_gitignore_ignores_is_no_note_a_link_leads_to(
    folder: Folder, tmp_path: Path
) -> None:
    work = folder.root / "Work"
    (work / "hidden.md").write_text("# Hidden\n\nignored words\n")
    (work / "Links.md").write_text("# Links\n\nSee [[hidden]], [h](hidden.md) and [[nowhere]].\n")
    folder.store.follower.scan()
    assert by_title(folder.store, "Hidden")  # followed, until .gitignore ignores it
    (folder.root / ".gitignore").write_text("hidden.md\n")
    folder.store.follower.apply([".gitignore"])
    links_note = by_title(folder.store, "Links")
    async with _clients(folder, tmp_path) as (scoped, everything):
        for client in (scoped, everything):
            links = await _ok(client, "note_links", id=links_note)
            # Before: the first two led to "Hidden", a note of a file noted does not follow. Now
            # they lead nowhere, in the words of a link to no file at all ("nowhere").
            assert [(link["note_id"], link["broken"]) for link in links["outgoing"]] == [
                (None, 'no note "hidden"'),
                (None, 'no note "hidden.md"'),
                (None, 'no note "nowhere"'),
            ]
            found = await _ok(client, "search_notes", query="ignored")
            assert found["results"] == [], found
    assert (work / "hidden.md").read_text() == "# Hidden\n\nignored words\n"  # left as it was


async def test_a_notebook_title_of_dots_alone_is_refused_with_the_reason(
    folder: Folder, tmp_path: Path
) -> None:
    """``create_note(notebook_title="..")`` was told "a notebook needs a title", which it had given:
    the folder's name for it was looked up as "" first. Now it hears what ``create_notebook`` says,
    and nothing is made."""
    before = sorted(p.name for p in folder.root.iterdir())
    async with _clients(folder, tmp_path) as (_, everything):
        told = await _refused(everything, "create_note", title="n", notebook_title="..")
        made = await _refused(everything, "create_notebook", title="..")
    assert told == made and 'cannot take the name ".."' in told
    assert sorted(p.name for p in folder.root.iterdir()) == before
