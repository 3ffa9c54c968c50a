"""``noted index --watch`` on Joplin keeps watching while Joplin restarts, and indexes what comes after.

Before, the first read that found Joplin off ended the watch with exit 16, so an index kept up to
date by ``--watch`` (a service beside a Joplin server) stopped at Joplin's first restart. A Joplin
of the test's own is stopped and started again; the fake embedder stands in for the model.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from tests.support.cli import env_with_src
from tests.support.joplin import JoplinServer, own_server, wait_until


def _indexed(env: dict[str, str], profile: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), "--joplin", "index", "status", "--json"],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    return int(json.loads(done.stdout)["notes"]) if done.returncode == 0 else -1


def _made(joplin: JoplinServer, profile: Path) -> tuple[dict[str, str], list[str]]:
    """A noted profile on ``joplin`` (``noted init``): the environment and the command to run it."""
    env = env_with_src(
        NOTED_JOPLIN_TOKEN=joplin.token, NOTED_JOPLIN_URL=joplin.url, NOTED_AI_EMBEDDING_PROVIDER="fake"
    )
    command = [sys.executable, "-m", "noted", "--profile", str(profile), "--joplin"]
    assert subprocess.run([*command, "init"], env=env, capture_output=True, check=False).returncode == 0
    return env, command


@contextlib.contextmanager
def _watching(command: list[str], env: dict[str, str]) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """``noted index --watch`` running, with the lines it says on stderr as they come; Ctrl+C at the end."""
    watch = subprocess.Popen(
        [*command, "index", "--watch"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    said: list[str] = []
    assert watch.stderr is not None
    threading.Thread(target=lambda: said.extend(watch.stderr or ()), daemon=True).start()
    try:
        yield watch, said
    finally:
        watch.send_signal(signal.SIGINT)
        watch.wait(timeout=60)


def test_index_watch_waits_for_joplin_through_a_restart(tmp_path: Path) -> None:
    with own_server(tmp_path / "joplin") as joplin:
        _watch_through_a_restart(joplin, tmp_path / "profile")


def _watch_through_a_restart(joplin: JoplinServer, profile: Path) -> None:
    folder = joplin.api("POST", "/folders", {"title": "Watched"})["id"]
    joplin.api("POST", "/notes", {"title": "Before", "body": "first words", "parent_id": folder})
    env, command = _made(joplin, profile)
    with _watching(command, env) as (watch, said):
        wait_until(lambda: _indexed(env, profile) == 1, what="the first note indexed")
        joplin.stop()
        _waits_then_follows(joplin, (watch, said), (env, profile), folder, indexed=2)


def test_index_watch_started_while_joplin_is_off_waits_for_it(tmp_path: Path) -> None:
    """Before, the start's first read found Joplin off and the command exited 16, though the same
    outage once watching is waited for. Not vacuous: the command starts only after Joplin stopped,
    and the note it must index is made only once Joplin is back."""
    with own_server(tmp_path / "joplin") as joplin:
        folder = joplin.api("POST", "/folders", {"title": "Watched"})["id"]
        profile = tmp_path / "profile"
        env, command = _made(joplin, profile)
        joplin.stop()
        with _watching(command, env) as (watch, said):
            _waits_then_follows(joplin, (watch, said), (env, profile), folder, indexed=1)
            assert sum("waiting for it" in line for line in said) == 1, said  # said once


def _waits_then_follows(
    joplin: JoplinServer,
    watching: tuple[subprocess.Popen[str], list[str]],
    where: tuple[dict[str, str], Path],
    folder: str,
    *,
    indexed: int,
) -> None:
    """With Joplin off, the watch says it waits and keeps running; Joplin started again, a note made
    then gets indexed (``indexed`` notes in all) and the watch says Joplin answers again."""
    (watch, said), (env, profile) = watching, where
    wait_until(lambda: any("waiting for it" in line for line in said), what="the watch waiting")
    assert watch.poll() is None, said
    joplin.start()
    joplin.api("POST", "/notes", {"title": "After", "body": "later words", "parent_id": folder})
    wait_until(lambda: _indexed(env, profile) == indexed, what="the note made once Joplin is back indexed")
    assert any("can be read again" in line for line in said), said


def test_index_watch_with_a_token_joplin_refuses_exits_16_at_once(tmp_path: Path) -> None:
    """A refused token is no outage: waiting cannot mend it. Before, ``--watch`` waited for ever,
    saying "Joplin refused the API token; waiting for it"; now it exits 16 with that line and its hint."""
    with own_server(tmp_path / "joplin") as joplin:
        env, command = _made(joplin, tmp_path / "profile")
        env["NOTED_JOPLIN_TOKEN"] = "0" * len(joplin.token)
        try:
            done = subprocess.run(
                [*command, "index", "--watch"],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise AssertionError(f"--watch kept waiting on a refused token: {exc.stderr!r}") from None
    assert done.returncode == 16, done.stderr
    assert "Joplin refused the API token" in done.stderr and "waiting" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
