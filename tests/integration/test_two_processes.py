"""Two real processes writing to one profile at once never lose a write.

This is the TUI plus an MCP server started by an AI app: separate processes, one database file.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.polling import scaled

from noted.models import NoteDraft
from noted.store.sqlite import SqliteStore

_WORKER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from noted.errors import ConflictError
    from noted.models import NoteDraft, NotePatch
    from noted.store.sqlite import SqliteStore

    root, note_id, folder_id, name, count = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    store = SqliteStore.open(root / "notes.db", root / "resources")
    print("ready", flush=True)
    while not (root / "go").exists():
        time.sleep(0.005)
    conflicts = 0
    for i in range(count):
        # Read-modify-write with the time it was based on; a refusal means: read again.
        while True:
            note = store.get_note(note_id)
            patch = NotePatch(body=note.body.rstrip("\\n") + f"\\n{name}-rmw-{i}\\n")
            try:
                store.update_note(note_id, patch, actor=f"mcp:{name}", base_updated_time=note.updated_time)
                break
            except ConflictError:
                conflicts += 1
        store.update_note(note_id, NotePatch(append=f"{name}-append-{i}"), actor=f"mcp:{name}")
        store.create_note(NoteDraft(f"{name} {i}", parent_id=folder_id), actor=f"mcp:{name}")
    store.close()
    print(conflicts)
    """
)


def test_two_processes_never_lose_a_write(tmp_path: Path) -> None:
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    folder = store.create_folder("Shared", actor="user")
    note = store.create_note(NoteDraft("Log", "", parent_id=folder.id), actor="user")
    count = 60
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(tmp_path), note.id, folder.id, name, str(count)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    for proc in procs:  # both have opened the database before they start together
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n", proc.communicate()[1]
    (tmp_path / "go").touch()
    outputs = [p.communicate(timeout=scaled(300)) for p in procs]
    for proc, (_out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err

    body = store.get_note(note.id).body
    lines = body.split("\n")
    for name in ("a", "b"):
        for i in range(count):
            assert f"{name}-rmw-{i}" in lines, f"lost {name}-rmw-{i}"
            assert f"{name}-append-{i}" in lines, f"lost {name}-append-{i}"
    assert len([n for n in store.list_notes(folder_id=folder.id) if n.title != "Log"]) == 2 * count
    # Every write is in the change feed once, with the right actor, in commit order.
    changes = store.changes_since(0, limit=100_000).changes
    ids = [c.id for c in changes]
    assert ids == sorted(ids)
    by_actor = {a: sum(1 for c in changes if c.actor == a) for a in ("mcp:a", "mcp:b")}
    assert by_actor == {"mcp:a": 3 * count, "mcp:b": 3 * count}
    store.close()
