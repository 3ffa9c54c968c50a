"""A Markdown folder's attachment that is the person's file: a model's delete and a later restore
never delete it, lose it, or leave a copy in the profile that no note links.

The folder is real (under real ``git``), the model's calls go through the real tool registry (or the
real MCP client), the person's through the real app, and the restore through the real CLI.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
from tests.integration.mcp_support import MODES, http_client, text_of
from tests.integration.ui_support import until
from tests.support.cli import Cli
from tests.support.tools_env import ACTOR, MANAGE_TOOLS, WRITE_TOOLS, Env, make_env
from tests.support.vaults import by_title, git
from textual.message import Message
from textual.notifications import Notify

from noted.cli.exits import ExitCode
from noted.errors import NotedError, NotFoundError
from noted.mcp.deps import McpDeps
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.models import NotePatch
from noted.profile import Profile
from noted.services import Services
from noted.settings import Settings, env_names
from noted.store.vault import VaultStore
from noted.tools import all_tools
from noted.ui.app import NotedApp
from noted.ui.dialogs.confirm import Confirm
from noted.ui.messages import OpenNote
from noted.ui.widgets.note_viewer import NoteViewer
from noted.ui.widgets.outline import LinkList

MINE = b"the person's own file\n"
DELETE_AND_ATTACH = ("delete_attachment", "attach_file")
LINKED = "# Trip\n\n[a](img/a.txt)\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "img").mkdir(parents=True)
    (root / "img" / "a.txt").write_bytes(MINE)
    (root / "Trip.md").write_text(LINKED)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


@pytest.fixture
def env(vault: Path, tmp_path: Path) -> Iterator[Env]:
    store = VaultStore.open(vault, tmp_path / "p")
    try:
        yield make_env(store, tmp_path, enabled=(*WRITE_TOOLS, *MANAGE_TOOLS))
    finally:
        store.close()


def _profile_copies(tmp_path: Path) -> list[str]:
    folder = tmp_path / "p" / "vault-resources"
    return sorted(os.listdir(folder)) if folder.is_dir() else []


def _vault(env: Env) -> VaultStore:
    assert isinstance(env.store, VaultStore)
    return env.store


def _attachment(env: Env) -> tuple[str, str]:
    trip = by_title(_vault(env), "Trip")
    [res] = env.store.list_resources(note_id=trip)
    return trip, res.id


async def test_a_models_delete_of_a_linked_file_it_did_not_write_is_refused_and_changes_nothing(
    env: Env, vault: Path
) -> None:
    trip, res_id = _attachment(env)
    refused = await env.error("delete_attachment", id=res_id)
    # Before: "deleted: true", while the file stayed and the next write of the note took it back
    # under a new id, so a restore of the old one made a copy no note links.
    message = refused.message or ""
    assert "img/a.txt" in message and 'the note "Trip" links it' in message, message
    assert (vault / "img" / "a.txt").read_bytes() == MINE
    assert [r.id for r in env.store.list_resources(note_id=trip)] == [res_id]
    assert env.store.resource_versions(res_id) == []


async def test_a_restore_onto_the_same_file_adopted_again_says_so_and_adds_no_copy(
    env: Env, vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = env.store
    trip, res_id = _attachment(env)
    store.update_note(trip, NotePatch(body="# Trip\n\nNo link.\n"), actor=ACTOR)
    done = await env.ok("delete_attachment", id=res_id)  # no note links it: it leaves noted
    assert done["deleted"] is True and (vault / "img" / "a.txt").read_bytes() == MINE
    store.update_note(trip, NotePatch(body=LINKED), actor="user")  # linked again: a new attachment
    [again] = store.list_resources(note_id=trip)
    assert again.id != res_id
    [kept] = store.resource_versions(res_id)
    store.close()

    cli = Cli(tmp_path / "p", capsys)
    result = cli("history", res_id, "--restore", str(kept.id), "--vault", str(vault))
    assert result.code == ExitCode.REFUSED and result.err.count("\n") == 1, result
    assert "img/a.txt" in result.err and again.id in result.err, result.err
    assert _profile_copies(tmp_path) == []  # before: vault-resources/<old id>.txt, linked by nothing
    reopened = VaultStore.open(vault, tmp_path / "p")
    try:
        with pytest.raises(NotFoundError):
            reopened.get_resource(res_id)
        assert [r.id for r in reopened.list_resources(note_id=trip)] == [again.id]
    finally:
        reopened.close()
    assert (vault / "img" / "a.txt").read_bytes() == MINE


async def test_a_restore_onto_a_path_holding_another_file_says_where_the_bytes_are(
    env: Env, vault: Path, tmp_path: Path
) -> None:
    store = _vault(env)
    trip, res_id = _attachment(env)
    store.update_note(trip, NotePatch(body="# Trip\n\nNo link.\n"), actor=ACTOR)
    await env.ok("delete_attachment", id=res_id)
    (vault / "img" / "a.txt").write_bytes(b"another file\n")
    [kept] = store.resource_versions(res_id)
    with pytest.raises(NotedError) as raised:
        store.restore_resource_version(res_id, kept.id, actor="user")
    message = str(raised.value)
    assert "img/a.txt" in message and str(store.mirror.resources.versions.file(kept.id)) in message
    assert _profile_copies(tmp_path) == [] and store.resource_versions(res_id) == [kept]
    assert (vault / "img" / "a.txt").read_bytes() == b"another file\n"


async def test_a_restore_onto_the_same_file_no_attachment_holds_links_it_again(env: Env, vault: Path) -> None:
    store = env.store
    trip, res_id = _attachment(env)
    store.update_note(trip, NotePatch(body="# Trip\n\nNo link.\n"), actor=ACTOR)
    await env.ok("delete_attachment", id=res_id)
    [kept] = store.resource_versions(res_id)
    back = store.restore_resource_version(res_id, kept.id, actor="user")
    assert back.id == res_id and store.resource_path(res_id) == vault / "img" / "a.txt"
    assert store.read_resource(res_id) == MINE


KEPT = (
    "its file img/a.txt stays in the notes folder: noted did not write it, and noted deletes only the "
    "files it wrote"
)


async def test_a_models_delete_of_a_file_it_did_not_write_says_over_mcp_that_the_file_stays(
    vault: Path, tmp_path: Path
) -> None:
    """The delete went through, the file stayed (rightly), and the model was told only
    ``deleted: true``: it told the person the file was gone. Through the real SDK client, whose
    check of the result against the advertised output schema is part of the test."""
    switch = {env_names(t.setting_key)[0]: "1" for t in all_tools() if t.name in DELETE_AND_ATTACH}
    profile = Profile(tmp_path / "p").ensure()
    settings = Settings.load(profile, environ={"NOTED_SEARCH_INDEXER_ENABLED": "false", **switch})
    services = Services.open(profile, welcome=False, settings=settings, vault=str(vault))
    try:
        store = services.store
        trip = by_title(cast(VaultStore, store), "Trip")
        [mine] = store.list_resources(note_id=trip)
        store.update_note(trip, NotePatch(body="# Trip\n\nNo link.\n"), actor=ACTOR)
        server = HttpServer(NotedMcp(McpDeps.of(services), poll_seconds=0.2), HttpOptions(port=0))
        await server.start()
        try:
            async with http_client(str(server.url), MODES[0]) as client:
                done = await client.call_tool("delete_attachment", {"id": mine.id})
                assert not done.is_error, text_of(done)
                assert done.structured_content is not None
                assert (done.structured_content["deleted"], done.structured_content["file_kept"]) == (
                    True,
                    KEPT,
                )
                assert (vault / "img" / "a.txt").read_bytes() == MINE
                # A file noted wrote goes with its attachment, and nothing is said of it.
                content = base64.b64encode(b"noted's own\n").decode()
                args = {"note_id": trip, "filename": "n.txt", "mime": "text/plain", "content_base64": content}
                made = await client.call_tool("attach_file", args)
                assert made.structured_content is not None, text_of(made)
                path = store.resource_path(made.structured_content["id"])
                assert path.is_relative_to(vault) and path.exists()
                gone = await client.call_tool("delete_attachment", {"id": made.structured_content["id"]})
                assert gone.structured_content is not None, text_of(gone)
                assert gone.structured_content["file_kept"] is None and not path.exists()
        finally:
            await server.stop()
    finally:
        services.close()


async def test_the_persons_delete_in_the_app_says_the_file_stays_and_why(vault: Path, tmp_path: Path) -> None:
    """The app said 'Deleted "a.txt" and its link' while the file stayed in the folder."""
    profile = Profile(tmp_path / "p").ensure()
    settings = Settings.load(
        profile, environ={"NOTED_SEARCH_INDEXER_ENABLED": "false", "NOTED_AI_ENABLED": "false"}
    )
    services = Services.open(profile, welcome=False, settings=settings, vault=str(vault))
    app = NotedApp(services, background=False)
    seen: list[Message] = []
    try:
        async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
            trip = by_title(cast(VaultStore, services.store), "Trip")
            [mine] = services.store.list_resources(note_id=trip)
            viewer = app.workspace.query_one(NoteViewer)
            app.post_message(OpenNote(trip))
            await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == trip)
            await pilot.press("a")
            links = viewer.query_one(LinkList)
            await until(pilot, lambda: links.has_focus)
            links.highlighted = links.get_option_index(f"r{mine.id}")
            await pilot.press("d")
            await until(pilot, lambda: isinstance(app.screen, Confirm))
            await pilot.press("y")
            await until(
                pilot, lambda: any(KEPT in m.notification.message for m in seen if isinstance(m, Notify))
            )
            said = [m.notification.message for m in seen if isinstance(m, Notify)]
            assert not any(s.startswith("Deleted") for s in said), said
    finally:
        services.close()
    assert (vault / "img" / "a.txt").read_bytes() == MINE
    assert "a.txt" not in (vault / "Trip.md").read_text()
