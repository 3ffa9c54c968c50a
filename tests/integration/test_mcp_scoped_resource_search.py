"""The ``resource:`` search filter of a client limited to some notebooks weighs only the
attachments it sees: one a note outside links, or a Markdown folder's file in a hidden notebook's
folder, is as one that is not there, for ``resource:`` and ``-resource:`` alike.

A Work note and a Secret note both link one file (a client of Work could write that link itself,
so such a file is hidden from it). ``search_notes {"query": "resource:text/plain"}`` answered the
Work note: a text file exists that the client may not see. The client is the MCP SDK's client
over HTTP with a token limited to Work, on every backend (a real Joplin too). Not vacuous: the
main token finds the Work note by the same filter, and a file of Work's own is found in the scope.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.integration.mcp_support import scoped_and_main, text_of
from tests.support.backends import BACKENDS, LocalStore, open_backend
from tests.support.vaults import by_title

from noted.mcp.deps import McpDeps
from noted.models import NoteDraft, NotePatch
from noted.profile import Profile
from noted.search.joplin import keyword_search_for
from noted.settings import Settings
from noted.store.protocol import Store
from noted.store.vault import VaultStore
from noted.tools import build_registry


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as opened:
        yield opened


def _clients(
    store: LocalStore, work: str, tmp_path: Path
) -> AbstractAsyncContextManager[tuple[Client, Client]]:
    """A client limited to notebook ``work``, and one with the main token (no scope)."""
    settings = Settings.load(tmp_path / "config.toml")
    deps = McpDeps(store, keyword_search_for(store), settings, build_registry(settings))
    return scoped_and_main(deps, tmp_path, [work])


async def _found(client: Client, query: str, tool: str = "search_notes") -> list[str]:
    """The titles ``tool`` answers ``query`` with, sorted."""
    result = await client.call_tool(tool, {"query": query})
    assert not result.is_error, text_of(result)
    content: dict[str, Any] = result.structured_content or {}
    return sorted(hit["title"] for hit in content["results"])


def _link(store: Store, note_id: str, data: bytes, name: str) -> str:
    """A text file attached by the person, linked from the note; its id."""
    resource = store.add_resource(data, filename=name, mime="text/plain", actor="user")
    store.update_note(note_id, NotePatch(append=f"\n[{name}](:/{resource.id})\n"), actor="user")
    return resource.id


async def test_resource_filters_in_a_scope_weigh_only_the_attachments_it_sees(
    store: LocalStore, tmp_path: Path
) -> None:
    work = store.create_folder("Work", actor="user")
    secret = store.create_folder("Secret", actor="user")
    plan = store.create_note(NoteDraft("Work plan", "work text\n", work.id), actor="user").id
    secret_plan = store.create_note(NoteDraft("Secret plan", "secret text\n", secret.id), actor="user").id
    store.create_note(NoteDraft("Work notes", "more work\n", work.id), actor="user")
    payroll = _link(store, secret_plan, b"TOP SECRET PAYROLL\n", "payroll.txt")
    store.update_note(plan, NotePatch(append=f"\n[p](:/{payroll})\n"), actor="user")
    own = store.create_note(NoteDraft("Work diagram", "diagram\n", work.id), actor="user").id
    _link(store, own, b"a file of Work's own\n", "diagram.txt")
    async with _clients(store, work.id, tmp_path) as (scoped, everything):
        seen = await _found(scoped, "resource:text/plain")
        unseen = await _found(scoped, "-resource:text/plain")
        worded = await _found(scoped, "plan resource:text/*")
        both = await _found(scoped, "plan resource:text/*", "find_notes")  # words and meaning
        whole = await _found(everything, "resource:text/plain")
        whole_both = await _found(everything, "plan resource:text/*", "find_notes")
    assert seen == ["Work diagram"]
    assert unseen == ["Work notes", "Work plan"]
    assert worded == []  # "plan" is in Work plan's title, its only file hidden
    assert both == []
    assert whole == ["Secret plan", "Work diagram", "Work plan"]  # not vacuous: it links one
    assert whole_both == ["Secret plan", "Work plan"]


async def test_a_file_in_a_hidden_notebooks_folder_is_not_weighed_by_resource_filters(tmp_path: Path) -> None:
    """The Markdown folder's rule: Secret's keys.txt, linked by the Work note alone, is still
    hidden from a client of Work, since it lies in Secret's folder."""
    root = tmp_path / "vault"
    files = {
        "Work/Work plan.md": "# Work plan\n\n[k](../Secret/keys.txt)\n",
        "Work/Work diagram.md": "# Work diagram\n\n[d](diagram.txt)\n",
        "Work/diagram.txt": "a file of Work's own\n",
        "Secret/keys.txt": "SECRET\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    store = VaultStore.open(root, Profile(tmp_path / "p").ensure().root)
    try:
        work = store.get_note(by_title(store, "Work plan")).parent_id
        async with _clients(store, work, tmp_path) as (scoped, everything):
            seen = await _found(scoped, "resource:text/plain")
            unseen = await _found(scoped, "-resource:text/plain")
            whole = await _found(everything, "resource:text/plain")
    finally:
        store.close()
    assert seen == ["Work diagram"]
    assert unseen == ["Work plan"]
    assert whole == ["Work diagram", "Work plan"]  # not vacuous: the note links the file
