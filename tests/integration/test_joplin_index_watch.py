"""``noted index --watch`` on Joplin keeps watching while Joplin restarts, and indexes what comes after.

Before, the first read that found Joplin off ended the watch with exit 16, so an index kept up to
date by ``--watch`` (a service beside a Joplin server) stopped at Joplin's first restart. A Joplin
of the test's own is stopped and started again; the fake embedder stands in for the model.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

from tests.support.cli import env_with_src
from tests.support.joplin import JoplinServer, own_server, wait_until


def _indexed(env: dict[str, str], profile: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), "--joplin", "index", "status", "--json"],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    return int(json.loads(done.stdout)["notes"]) if done.returncode == 0 else -1


def test_index_watch_waits_for_joplin_through_a_restart(tmp_path: Path) -> None:
    with own_server(tmp_path / "joplin") as joplin:
        _watch_through_a_restart(joplin, tmp_path / "profile")


def _watch_through_a_restart(joplin: JoplinServer, profile: Path) -> None:
    folder = joplin.api("POST", "/folders", {"title": "Watched"})["id"]
    joplin.api("POST", "/notes", {"title": "Before", "body": "first words", "parent_id": folder})
    env = env_with_src(
        NOTED_JOPLIN_TOKEN=joplin.token, NOTED_JOPLIN_URL=joplin.url, NOTED_AI_EMBEDDING_PROVIDER="fake"
    )
    command = [sys.executable, "-m", "noted", "--profile", str(profile), "--joplin"]
    assert subprocess.run([*command, "init"], env=env, capture_output=True, check=False).returncode == 0
    watch = subprocess.Popen(
        [*command, "index", "--watch"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    said: list[str] = []
    assert watch.stderr is not None
    reader = threading.Thread(target=lambda: said.extend(watch.stderr or ()), daemon=True)
    reader.start()
    try:
        wait_until(lambda: _indexed(env, profile) == 1, what="the first note indexed")
        joplin.stop()
        wait_until(lambda: any("waiting for it" in line for line in said), what="the watch waiting")
        assert watch.poll() is None, said
        joplin.start()
        joplin.api("POST", "/notes", {"title": "After", "body": "later words", "parent_id": folder})
        wait_until(lambda: _indexed(env, profile) == 2, what="the note made after the restart indexed")
        assert any("can be read again" in line for line in said), said
    finally:
        watch.send_signal(signal.SIGINT)
        watch.wait(timeout=60)
