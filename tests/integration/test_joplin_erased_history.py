"""A note erased in Joplin itself (its app's trash emptied, a script): noted still keeps the
revisions it recorded, so its history lists them and a restore brings the note back."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from tests.support.joplin import JoplinServer, shared_server
from tests.support.tools_env import make_env

from noted.cli import main
from noted.models import ACTOR_USER, NoteDraft, NotePatch
from noted.ops.erased import is_current
from noted.ops.notes import restore_revision
from noted.store.joplin import JoplinStore
from noted.tools.scope import Scope

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


def _erased_note(joplin: JoplinServer, profile: Path, title: str = "Plan") -> tuple[str, str]:
    """A note saved twice by noted (the second time as ``title``), then erased through Joplin's
    API; its id and notebook."""
    store = JoplinStore.open(profile, url=joplin.url, token=joplin.token)
    try:
        folder = store.create_folder(f"Erased {secrets.token_hex(3)}", actor=ACTOR_USER)
        note = store.create_note(NoteDraft("Plan", "first text\n", folder.id), actor=ACTOR_USER)
        store.update_note(note.id, NotePatch(title=title, body="second text\n"), actor=ACTOR_USER)
    finally:
        store.close()
    joplin.api("DELETE", f"/notes/{note.id}", params={"permanent": "1"})
    return note.id, folder.id


def _cli_profile(joplin: JoplinServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A profile on this Joplin for ``noted`` run in this process."""
    profile = tmp_path / "noted"
    monkeypatch.setenv("NOTED_JOPLIN_TOKEN", joplin.token)
    monkeypatch.setenv("NOTED_JOPLIN_URL", joplin.url)
    monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "fake")
    assert main(["init", "--joplin", "--profile", str(profile)]) == 0
    return profile


def test_noted_history_of_a_note_erased_in_joplin_lists_and_restores_its_revisions(
    joplin: JoplinServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It said "no note or attachment with id …" though noted kept both revisions."""
    profile = _cli_profile(joplin, tmp_path, monkeypatch)
    note_id, folder_id = _erased_note(joplin, profile)
    with pytest.raises(httpx.HTTPStatusError, match="404"):  # not vacuous: Joplin has no such note
        joplin.api("GET", f"/notes/{note_id}", params={"fields": "id"})
    capsys.readouterr()
    args = ["--joplin", "--profile", str(profile)]
    assert main(["history", note_id, *args]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert out.count("Plan") == 2 and "erased" in out and "--restore" in out
    assert main(["--json", "history", note_id, *args]) == 0
    oldest = min(r["id"] for r in json.loads(capsys.readouterr().out))
    assert main(["history", note_id, "--show", str(oldest), *args]) == 0
    assert "first text" in capsys.readouterr().out
    assert main(["history", note_id, "--restore", str(oldest), *args]) == 0, capsys.readouterr().err
    back = joplin.api("GET", f"/notes/{note_id}", params={"fields": "id,title,body,parent_id"})
    assert (back["title"], back["body"], back["parent_id"]) == ("Plan", "first text\n", folder_id)


@contextmanager
def _erased_with_its_notebook(joplin: JoplinServer, tmp_path: Path) -> Iterator[tuple[str, JoplinStore]]:
    """A note erased in Joplin with its notebook (``_erased_note``), and a store that kept its revisions."""
    profile = tmp_path / "noted"
    note_id, folder_id = _erased_note(joplin, profile)
    joplin.api("DELETE", f"/folders/{folder_id}", params={"permanent": "1"})
    store = JoplinStore.open(profile, url=joplin.url, token=joplin.token)
    try:
        yield note_id, store
    finally:
        store.close()


def test_a_restore_of_a_note_erased_with_its_notebook_lands_in_the_inbox(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    with _erased_with_its_notebook(joplin, tmp_path) as (note_id, store):
        revisions = store.note_history(note_id)
        assert [r.body for r in revisions] == ["second text\n", "first text\n"]
        # The app's history refused to restore the newest revision, "the note as it is now".
        assert not is_current(store, note_id, revisions[0].id)
        restored = restore_revision(store, note_id, revisions[0].id, actor=ACTOR_USER)
        assert restored.id == note_id and restored.body == "second text\n"
        inbox = store.get_folder(restored.parent_id)
        assert inbox.title == "Inbox" and not inbox.is_trashed
        after = store.note_history(note_id)
        assert after[0].label == f"restored from rev {revisions[0].id}"
        assert is_current(store, note_id, after[0].id)  # not vacuous: a live note's newest is


def test_an_erased_note_is_named_by_an_id_prefix_or_its_title_and_an_ambiguous_prefix_is_refused(
    joplin: JoplinServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the full id worked: ``noted history 9a9a89cb`` and ``noted history Plan`` said not found."""
    profile = _cli_profile(joplin, tmp_path, monkeypatch)
    title = f"Plan {secrets.token_hex(3)}"  # its newest revision's, which no live note has
    note_id, folder_id = _erased_note(joplin, profile, title)
    args = ["--joplin", "--profile", str(profile)]
    capsys.readouterr()
    for ref in (note_id[:8], title.lower()):
        assert main(["--json", "history", ref, *args]) == 0, (ref, capsys.readouterr().err)
        assert {r["note_id"] for r in json.loads(capsys.readouterr().out)} == {note_id}
    # A live note whose id starts as the erased one's: that prefix names both (not vacuous: the
    # live note alone is found by it).
    twin = note_id[:5] + "0" * 27
    joplin.api("POST", "/notes", {"id": twin, "title": "Twin", "body": "x", "parent_id": folder_id})
    assert main(["history", note_id[:5], *args]) == 2
    err = capsys.readouterr().err
    assert f'{twin[:8]} "Twin"' in err and f'{note_id[:8]} "{title}" (erased)' in err, err
    assert main(["history", twin, *args]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["--json", "history", title, *args]) == 0
    newest = max(r["id"] for r in json.loads(capsys.readouterr().out))
    assert main(["history", note_id[:8], "--restore", str(newest), *args]) == 0, capsys.readouterr().err
    back = joplin.api("GET", f"/notes/{note_id}", params={"fields": "title,body,parent_id"})
    assert back == {"title": title, "body": "second text\n", "parent_id": folder_id, "type_": 1}


async def test_the_chats_history_and_restore_tools_reach_a_note_erased_with_its_notebook(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    """The chat's note_history said "no note with id" for it, as MCP's did (one registry)."""
    with _erased_with_its_notebook(joplin, tmp_path) as (note_id, store):
        env = make_env(store, tmp_path, enabled=("restore_note",))
        listed = await env.registry.call("note_history", {"id": note_id}, env.ctx)
        assert listed.ok and listed.payload is not None, listed.message
        assert (listed.payload["total"], listed.payload["erased"]) == (2, True)
        restored = await env.registry.call("restore_note", {"id": note_id}, env.ctx)
        assert restored.ok and restored.payload is not None, restored.message
        assert restored.payload["notebook"] == "Inbox" and store.get_note(note_id).body == "second text\n"
        again = await env.registry.call("note_history", {"id": note_id}, env.ctx)
        assert again.payload is not None and "erased" not in again.payload  # not vacuous: it is back


async def test_a_scoped_restore_of_a_note_whose_notebook_is_in_the_trash_is_refused(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    """The note would go to the Inbox, maybe outside the client's notebooks: refused, nothing written."""
    profile = tmp_path / "noted"
    note_id, folder_id = _erased_note(joplin, profile)
    joplin.api("DELETE", f"/folders/{folder_id}")  # to Joplin's trash: still in the client's scope
    store = JoplinStore.open(profile, url=joplin.url, token=joplin.token)
    try:
        env = make_env(store, tmp_path, enabled=("restore_note",))
        env.ctx.scope = Scope.of([folder_id])
        listed = await env.registry.call("note_history", {"id": note_id}, env.ctx)
        assert listed.ok and listed.payload is not None, listed.message  # not vacuous: it sees the note
        refused = await env.registry.call("restore_note", {"id": note_id}, env.ctx)
        assert not refused.ok and "restore_notebook" in (refused.message or ""), refused.message
        with pytest.raises(httpx.HTTPStatusError, match="404"):
            joplin.api("GET", f"/notes/{note_id}", params={"fields": "id"})
    finally:
        store.close()
