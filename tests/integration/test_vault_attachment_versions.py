"""A Markdown folder's attachment that is the person's file: a model's delete and a later restore
never delete it, lose it, or leave a copy in the profile that no note links.

The folder is real (under real ``git``), the model's calls go through the real tool registry, and
the restore through the real CLI.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.cli import Cli
from tests.support.tools_env import ACTOR, MANAGE_TOOLS, WRITE_TOOLS, Env, make_env
from tests.support.vaults import by_title, git

from noted.cli.exits import ExitCode
from noted.errors import NotedError, NotFoundError
from noted.models import NotePatch
from noted.store.vault import VaultStore

MINE = b"the person's own file\n"
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
