"""A noted killed (SIGKILL, nothing run on the way out) between the commit of an attachment's new
row and the file step that follows it (the rename of its new bytes into ``resources/``, their write
into a Markdown folder, the removal of a file noted wrote) leaves the whole change, row and file,
once noted opens the profile again; a step that fails after its commit is taken again at close.

Not vacuous: before the steps were owed in the transaction, the row said the new file while the old
one stayed, and the sweep removed the aside holding the model's bytes (the first test read the old
bytes under the new name); the Markdown folder kept the old file, or the one a delete had removed.
The child kills itself at the step's own call, after the commit, so there is no race to lose.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tests.support.cli import env_with_src

from noted.models import NotePatch
from noted.ops.attachments import add_from_path
from noted.store.sqlite import SqliteStore
from noted.store.vault import VaultStore

KILL_AT_SWAP = """
import os, pathlib, signal, sys
from noted.store.sqlite import SqliteStore

root, batch = pathlib.Path(sys.argv[1]), sys.argv[2] == "batch"
store = SqliteStore.open(root / "notes.db", root / "resources")
real_replace = os.replace

def replace(src, dst):
    if str(src).endswith(".partial") and pathlib.Path(dst).parent.name == "resources":
        os.kill(os.getpid(), signal.SIGKILL)  # the row committed, its file not yet in place
    real_replace(src, dst)

os.replace = replace
res = store.list_resources()[0]
if batch:
    with store.batch():  # the chat's approved writes
        store.replace_resource(res.id, b"the model's bytes", filename="b.png", actor="assistant:c1")
else:
    store.replace_resource(res.id, b"the model's bytes", filename="b.png", actor="assistant:c1")
"""


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()} if folder.exists() else set()


def _run(code: str, *args: str) -> None:
    killed = subprocess.run([sys.executable, "-c", code, *args], env=env_with_src(), check=False)
    assert killed.returncode == -9


@pytest.mark.parametrize("batch", ["batch", "alone"])
def test_a_kill_after_a_replace_commits_leaves_the_new_file_with_its_row(tmp_path: Path, batch: str) -> None:
    root = tmp_path / "p"
    store = SqliteStore.open(root / "notes.db", root / "resources")
    res = store.add_resource(b"old bytes", filename="a.txt", mime="text/plain", actor="user")
    store.close()
    _run(KILL_AT_SWAP, str(root), batch)
    store = SqliteStore.open(root / "notes.db", root / "resources")  # takes the step the kill left
    try:
        assert store.get_resource(res.id).filename == "b.png"
        assert store.read_resource(res.id) == b"the model's bytes"
        assert _files(store.resources_dir) == {f"{res.id}.png"}  # the old file and the aside gone
        [version] = store.resource_versions(res.id)
        assert store.versions.read(version.id) == b"old bytes"  # the old bytes kept
        with store.db.read() as conn:
            assert conn.execute("SELECT count(*) FROM file_steps").fetchone()[0] == 0
    finally:
        store.close()


def test_a_step_that_fails_after_the_commit_is_taken_again_at_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "p"
    store = SqliteStore.open(root / "notes.db", root / "resources")
    res = store.add_resource(b"old bytes", filename="a.txt", mime="text/plain", actor="user")
    real_replace = os.replace
    failed: list[object] = []

    def replace(src: object, dst: object) -> None:
        if str(src).endswith(".partial") and not failed:
            failed.append(src)
            raise OSError("the disk hiccuped")
        real_replace(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", replace)
    with store.batch():
        store.replace_resource(res.id, b"new bytes", actor="assistant:c1")
    assert failed  # the step failed after the commit: only logged, then
    store.close()  # ... taken again here
    store = SqliteStore.open(root / "notes.db", root / "resources")
    try:
        assert store.read_resource(res.id) == b"new bytes"
        assert _files(store.resources_dir) == {f"{res.id}.txt"}
    finally:
        store.close()


VAULT_KILL = """
import os, pathlib, signal, sys
from noted.store.vault import VaultStore
from noted.store.vault.files import Vault

root, profile, what = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
store = VaultStore.open(root, profile)
[res] = store.list_resources()
real_write, real_unlink = Vault.write, pathlib.Path.unlink

def write(self, rel, data, **kwargs):
    if rel == "img/photo.png":
        os.kill(os.getpid(), signal.SIGKILL)  # the row committed, the folder's file not yet written
    return real_write(self, rel, data, **kwargs)

def unlink(self, missing_ok=False):
    if self.name == "photo.png":
        os.kill(os.getpid(), signal.SIGKILL)  # the delete committed, its file not yet removed
    real_unlink(self, missing_ok=missing_ok)

Vault.write, pathlib.Path.unlink = write, unlink
with store.batch():
    if what == "replace":
        store.replace_resource(res.id, b"the model's photo", actor="assistant:c1")
    else:
        store.delete_resource(res.id, actor="assistant:c1")
"""


def _vault(tmp_path: Path, photo: bytes) -> tuple[Path, Path, str]:
    root, profile = tmp_path / "notes", tmp_path / "profile"
    (root / "img").mkdir(parents=True)
    (root / "img" / "photo.png").write_bytes(photo)
    (root / "Trip.md").write_text("# Trip\n\n![](img/photo.png)\n")
    store = VaultStore.open(root, profile)
    try:
        [res] = store.list_resources()
    finally:
        store.close()
    return root, profile, res.id


def test_a_kill_after_a_markdown_folder_replace_commits_writes_the_file_at_the_next_open(
    tmp_path: Path,
) -> None:
    root, profile, res_id = _vault(tmp_path, b"old photo")
    _run(textwrap.dedent(VAULT_KILL), str(root), str(profile), "replace")
    assert (root / "img" / "photo.png").read_bytes() == b"old photo"  # the window the kill left
    store = VaultStore.open(root, profile)
    try:
        assert (root / "img" / "photo.png").read_bytes() == b"the model's photo"
        assert store.read_resource(res_id) == b"the model's photo"
        assert store.get_resource(res_id).size == len(b"the model's photo")
        assert [store.mirror.versions.read(v.id) for v in store.resource_versions(res_id)] == [b"old photo"]
        assert _files(profile / "vault-resources") == set()  # the bytes waited there, and went
    finally:
        store.close()


def test_a_file_changed_outside_while_noted_was_down_is_not_overwritten(tmp_path: Path) -> None:
    root, profile, res_id = _vault(tmp_path, b"old photo")
    _run(textwrap.dedent(VAULT_KILL), str(root), str(profile), "replace")
    (root / "img" / "photo.png").write_bytes(b"a photo edited in another program")
    store = VaultStore.open(root, profile)
    try:
        assert (root / "img" / "photo.png").read_bytes() == b"a photo edited in another program"
        kept = [store.mirror.versions.read(v.id) for v in store.resource_versions(res_id)]
        assert kept == [b"the model's photo", b"old photo"]  # nothing lost either
    finally:
        store.close()


def test_a_kill_after_a_markdown_folder_delete_commits_removes_the_file_at_the_next_open(
    tmp_path: Path,
) -> None:
    root, profile = tmp_path / "notes", tmp_path / "profile"
    root.mkdir()
    (root / "Trip.md").write_text("# Trip\n")
    picked = tmp_path / "photo.png"
    picked.write_bytes(b"noted's photo")
    store = VaultStore.open(root, profile)
    try:
        [trip] = store.list_notes()
        res = add_from_path(store, trip.id, str(picked), actor="user")  # written into the folder by noted
        store.update_note(trip.id, NotePatch(body="# Trip\n"), actor="user")  # linked no more: it may go
    finally:
        store.close()
    assert (root / "photo.png").read_bytes() == b"noted's photo"
    _run(textwrap.dedent(VAULT_KILL), str(root), str(profile), "delete")
    assert (root / "photo.png").exists()  # the window the kill left
    store = VaultStore.open(root, profile)
    try:
        assert not (root / "photo.png").exists()
        assert [v.deleted for v in store.resource_versions(res.id)] == [True]
    finally:
        store.close()
