"""A Markdown folder's names, as an AI app sees them over MCP: a file with no extension that a note
links is its attachment, and a note file ``.gitignore`` ignores is no note a link leads to.

The folder is real, the app is the MCP SDK's client over HTTP, limited to "Work" by its token, and
the main token (no scope) sees what the folder holds, so each answer can be checked against it.
"""

from __future__ import annotations

from pathlib import Path

from tests.integration.test_mcp_vault_scope import Folder, _clients, _ok, folder
from tests.support.vaults import by_title

__all__ = ["folder"]  # the fixture


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
