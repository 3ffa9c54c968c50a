"""An attachment replaced twice in one batch (the chat's approved writes, ``call_together``).

A batch is one change: on the embedded store and the Markdown folder it is one transaction, and
the in-between bytes were never committed nor readable by anyone (the new file goes in only when
the batch commits). So the history keeps the attachment as it was before the batch, and the batch's
result is the attachment: no version of the in-between state. On Joplin, which has no transactions,
each replace is written at once and the in-between bytes were there for anyone to read: they are
kept too. Either way every version holds the bytes it describes, and each can be put back.

Not vacuous: before, the second replace kept a version labelled with the in-between file (its size,
its name) that held the original bytes: restoring it gave the original bytes under a wrong size.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, open_backend
from tests.support.tools_env import Env, make_env

from noted.models import ACTOR_USER, NoteDraft, NotePatch, ToolStatus
from noted.ops.attachments import attach_to_note
from noted.ops.batch_capture import capture
from noted.store.joplin import JoplinStore
from noted.store.vault import VaultStore


@pytest.fixture(params=BACKENDS)
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield make_env(store, tmp_path, enabled=("replace_attachment", "delete_attachment"))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


async def test_every_version_of_an_attachment_replaced_twice_in_a_batch_is_what_it_says(env: Env) -> None:
    store = env.store
    home = store.create_folder("Home", actor=ACTOR_USER)
    note = store.create_note(NoteDraft("N", "n\n", parent_id=home.id), actor=ACTOR_USER)
    file = attach_to_note(
        store, note, b"old", filename="a.txt", mime="text/plain", title="", actor=ACTOR_USER
    )
    calls = [
        ("replace_attachment", {"id": file.id, "content_base64": _b64(b"middle")}),
        ("replace_attachment", {"id": file.id, "content_base64": _b64(b"newest!!"), "filename": "b.txt"}),
    ]
    results = await env.registry.call_together(calls, env.ctx, capture(store, files=[file.id]))
    assert [r.status for r in results] == [ToolStatus.OK] * 2
    assert store.read_resource(file.id) == b"newest!!"

    kept = []
    for version in store.resource_versions(file.id):
        restored = store.restore_resource_version(file.id, version.id, actor=ACTOR_USER)
        data = store.read_resource(file.id)
        assert (len(data), restored.filename) == (version.resource.size, version.resource.filename), version
        kept.append(data)
    wanted = [b"middle", b"old"] if isinstance(store, JoplinStore) else [b"old"]
    assert kept == wanted


async def test_a_batch_that_puts_the_first_bytes_back_ends_with_them(env: Env) -> None:
    """Reads inside the batch get the bytes it wrote: a replace back to the attachment's first
    bytes is a change from the batch's in-between ones, not "nothing to do" (before, the second
    replace read the old file, not yet swapped, saw its own bytes and wrote nothing: the batch
    ended with the in-between bytes)."""
    store = env.store
    home = store.create_folder("Home", actor=ACTOR_USER)
    note = store.create_note(NoteDraft("N", "n\n", parent_id=home.id), actor=ACTOR_USER)
    file = attach_to_note(
        store, note, b"abc", filename="a.txt", mime="text/plain", title="", actor=ACTOR_USER
    )
    calls = [
        ("replace_attachment", {"id": file.id, "content_base64": _b64(b"xyz")}),
        ("replace_attachment", {"id": file.id, "content_base64": _b64(b"abc")}),
    ]
    results = await env.registry.call_together(calls, env.ctx, capture(store, files=[file.id]))
    assert [r.status for r in results] == [ToolStatus.OK] * 2
    assert store.read_resource(file.id) == b"abc"


async def test_an_attachment_replaced_then_deleted_in_a_batch_keeps_true_versions_and_no_file(
    env: Env,
) -> None:
    """The delete keeps the bytes the batch's replace wrote, under their own name and size, and the
    Markdown folder's file goes. Before, the deleted version held the old bytes under the new size,
    and the folder's file stayed (taken for one another program changed), holding the new bytes."""
    store = env.store
    home = store.create_folder("Home", actor=ACTOR_USER)
    note = store.create_note(NoteDraft("N", "n\n", parent_id=home.id), actor=ACTOR_USER)
    file = attach_to_note(
        store, note, b"old", filename="a.txt", mime="text/plain", title="", actor=ACTOR_USER
    )
    store.update_note(note.id, NotePatch(body="n\n"), actor=ACTOR_USER)  # no note links it now
    calls = [
        ("replace_attachment", {"id": file.id, "content_base64": _b64(b"middle")}),
        ("delete_attachment", {"id": file.id}),
    ]
    results = await env.registry.call_together(calls, env.ctx, capture(store, files=[file.id]))
    assert [r.status for r in results] == [ToolStatus.OK] * 2
    if isinstance(store, VaultStore):
        assert not [p for p in store.vault.root.rglob("a*.txt")]
    kept = []
    for version in store.resource_versions(file.id):
        restored = store.restore_resource_version(file.id, version.id, actor=ACTOR_USER)
        data = store.read_resource(file.id)
        assert (len(data), restored.filename) == (version.resource.size, version.resource.filename), version
        kept.append(data)
    assert kept == [b"middle", b"old"]
