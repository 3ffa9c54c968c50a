"""The run's shared Joplin as the tests handle it (``tests.support.joplin``): what they do to it must
not stop it, and when they restart it its log must still say what happened before.

In CI a worker's Joplin stopped mid-run and 16 later tests failed with "Joplin is not reachable".
Joplin records each change after it has answered (``ItemChange.add``, not awaited) in a transaction
it gives up after 20 s of ``SQLITE_BUSY``; a test writing into Joplin's database meanwhile could
deadlock with it, and the unhandled rejection ended Joplin. Against a real Joplin, a note update
through the Data API then the old helper's write, in a loop, ended Joplin at the 147th round with
``SQLITE_BUSY: database is locked: DELETE FROM item_changes`` from ``ItemChange.add``.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from tests.support.joplin import JoplinServer, shared_server
from tests.support.polling import scaled, wait_for

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


def _wrote(database: sqlite3.Connection, sql: str, *params: str) -> bool:
    """Whether ``database`` wrote; False when refused (Joplin retries then, keeping its read lock)."""
    try:
        database.execute(sql, params)
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc)
        return False
    return True


def test_a_test_writing_into_joplins_database_never_deadlocks_joplins_own_transaction(
    joplin: JoplinServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = joplin.api("POST", "/folders", {"title": "Written under"})
    secret, other = (
        joplin.api("POST", "/notes", {"title": title, "body": "plan", "parent_id": folder["id"]})["id"]
        for title in ("Secret", "Other")
    )
    # A copy of Joplin's database (its real schema), so Joplin's own transactions stay out of the way.
    copy = JoplinServer(tmp_path / "profile", port=0)
    copy.profile.mkdir()
    path = copy.profile / "database.sqlite"
    with closing(sqlite3.connect(joplin.profile / "database.sqlite", timeout=scaled(30))) as source:
        with closing(sqlite3.connect(path)) as target:
            source.backup(target)
    # Joplin's transaction as it records a change: it has read, it will write. (Holding the read
    # lock, SQLite refuses its write at once while another holds the write lock: no busy wait.)
    joplins = sqlite3.connect(path, timeout=scaled(30), isolation_level=None)
    joplins.execute("BEGIN")
    joplins.execute("SELECT count(*) FROM notes").fetchall()
    asked = threading.Event()  # the helper asked for the lock (to commit, or to begin)
    connect = sqlite3.connect

    def traced(sql: str) -> None:
        if sql.startswith(("COMMIT", "BEGIN EXCLUSIVE")):
            asked.set()

    def watched(at: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        database: sqlite3.Connection = connect(at, *args, **kwargs)
        if Path(at) == path:
            database.set_trace_callback(traced)
        return database

    monkeypatch.setattr(sqlite3, "connect", watched)
    helper = threading.Thread(target=copy.as_if_encrypted, args=(secret,))
    helper.start()
    try:
        assert asked.wait(scaled(60))
        # Before: the helper held the write lock, waiting for this read lock: nothing could write.
        write = "UPDATE notes SET title = title WHERE id = ?"
        wait_for(lambda: _wrote(joplins, write, other), what="Joplin's write to go through", timeout=10)
        joplins.execute("COMMIT")
    finally:
        joplins.close()
        helper.join(scaled(60))
    assert not helper.is_alive()
    with closing(connect(path)) as database:
        row = database.execute("SELECT title, encryption_applied FROM notes WHERE id = ?", (secret,))
        assert row.fetchone() == ("", 1)


def test_a_restarted_joplin_keeps_the_log_of_its_run_before(joplin: JoplinServer) -> None:
    joplin.api("GET", "/folders", params={"fields": "id", "limit": 1})
    before = (joplin.profile / "server.log").read_text(encoding="utf-8")
    assert "Request: GET /folders" in before  # not vacuous: the log names the requests

    joplin.stop()
    joplin.start()

    kept = [p.read_text(encoding="utf-8") for p in joplin.profile.glob("server.*.log")]
    assert any(text.startswith(before) for text in kept)
    assert joplin.answers()
