"""A noted killed (``os._exit``: no exception, no rollback but SQLite's own) at each step of replacing
or deleting an attachment leaves the old state, or the new one with the old version kept, and never
a version row without its file nor a file no row names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from noted.store.sqlite import SqliteStore

CRASH = """
import os, pathlib, sys
from noted.store.sqlite import SqliteStore

root, step = pathlib.Path(sys.argv[1]), sys.argv[2]
store = SqliteStore.open(root / "notes.db", root / "resources")
res = store.list_resources()[0]
name = f"{res.id}.txt"
real_replace, real_unlink = os.replace, pathlib.Path.unlink

def replace(src, dst):
    if pathlib.Path(dst).name == name:
        if step == "before-swap":
            os._exit(9)
        real_replace(src, dst)
        os._exit(9)  # after the swap, before the row's commit
    real_replace(src, dst)

def unlink(self, missing_ok=False):
    if self.name == name:
        os._exit(9)  # the delete committed, its file not yet removed
    real_unlink(self, missing_ok=missing_ok)

def record(*args, **kwargs):
    os._exit(9)  # inside the delete's transaction, before its commit

os.replace = replace
pathlib.Path.unlink = unlink
if step == "delete-before-commit":
    store.versions.record = record
if step.startswith("delete"):
    store.delete_resource(res.id, actor="assistant:c1")
else:
    store.replace_resource(res.id, b"new bytes", actor="assistant:c1")
"""


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()} if folder.exists() else set()


@pytest.mark.parametrize("step", ["before-swap", "after-swap", "delete-before-commit", "delete-after-commit"])
def test_a_kill_at_any_step_keeps_the_old_version_or_the_old_state(tmp_path: Path, step: str) -> None:
    root = tmp_path / "p"
    store = SqliteStore.open(root / "notes.db", root / "resources")
    res = store.add_resource(b"old bytes", filename="a.txt", mime="text/plain", actor="user")
    store.close()
    killed = subprocess.run([sys.executable, "-c", CRASH, str(root), step], check=False)
    assert killed.returncode == 9
    store = SqliteStore.open(root / "notes.db", root / "resources")  # sweeps a killed writer's files
    try:
        versions = store.resource_versions(res.id)
        kept = _files(store.versions.folder)
        assert kept == {f for f in kept if not store.versions.orphan_file(f)}  # no file without its row
        for version in versions:  # no row without its file
            assert store.versions.read(version.id) == b"old bytes"
        if step == "delete-before-commit":  # the old state
            assert store.read_resource(res.id) == b"old bytes" and versions == [] and kept == set()
        elif step == "delete-after-commit":  # deleted, kept, its file in resources/ swept
            assert [v.deleted for v in versions] == [True] and _files(store.resources_dir) == set()
            assert store.restore_resource_version(res.id, versions[0].id, actor="user").size == 9
            assert store.read_resource(res.id) == b"old bytes"
        else:  # the old bytes are current, or kept as the version
            current = store.read_resource(res.id)
            assert current == b"old bytes" or [v.resource.size for v in versions] == [9]
            assert len(versions) == 1  # committed before the swap: killed after it, nothing is lost
    finally:
        store.close()


BATCH_CRASH = """
import os, pathlib, sys
from noted.store.sqlite import SqliteStore

root = pathlib.Path(sys.argv[1])
store = SqliteStore.open(root / "notes.db", root / "resources")
res = store.list_resources()[0]
with store.batch():  # the chat's approved writes: a replace, then noted is killed before the commit
    store.replace_resource(res.id, b"new bytes", filename="b.png", actor="assistant:c1")
    os._exit(9)
"""


def test_a_kill_inside_a_batch_after_a_replace_keeps_the_old_file(tmp_path: Path) -> None:
    """The batch's transaction is rolled back at the next open, so the row and the version kept
    with it are gone: the old file must still be in its place, not the new one (whose old bytes
    nothing would keep)."""
    root = tmp_path / "p"
    store = SqliteStore.open(root / "notes.db", root / "resources")
    res = store.add_resource(b"old bytes", filename="a.txt", mime="text/plain", actor="user")
    store.close()
    killed = subprocess.run([sys.executable, "-c", BATCH_CRASH, str(root)], check=False)
    assert killed.returncode == 9
    store = SqliteStore.open(root / "notes.db", root / "resources")
    try:
        assert store.get_resource(res.id).filename == "a.txt"
        assert store.read_resource(res.id) == b"old bytes"
        assert store.resource_versions(res.id) == []
        assert _files(store.resources_dir) == {f"{res.id}.txt"}  # the new file and its partial swept
        assert _files(store.versions.folder) == set()
    finally:
        store.close()
