"""What an idle app costs a running Joplin, and how soon it shows a change made in Joplin.

    python3 tests/bench/bench_joplin_idle.py [--idle 120] [--changes 10] [--src OTHER/src]

Starts a real Joplin (the terminal app of ``.ci/joplin-setup``) on a free port, puts a notebook
of five notes in it, and opens the real app on it (``noted --joplin``, indexer on, 120×40) in a
tmux server of its own. Once the notes show and the indexer's first scan is over (it reads every
note once, when its model has loaded), nobody touches the app for ``--idle`` seconds: the Data
API requests Joplin logged meanwhile (its ``log-clipper.txt`` has a line per request, as its
``server.log`` does) give requests per minute and, with the growth of those files, log bytes per
hour; the requests that are not ``/events`` are listed. Then, ``--changes`` times, a note's
title is changed through Joplin's API (as Joplin's own app or another program would), at a
random moment 3 to 6 s after the last (so a slowed poll is slowed), and the time until the app's
screen shows the new title is taken: median and longest. Then, as often, a new word is written
in a note's body and a process of its own on the profile (following the feed, as the MCP server
does) keyword-searches for it until it is found.

``--src`` runs another checkout's code (``/work/main/src``) to compare. Needs tmux.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import secrets
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

if TYPE_CHECKING:
    from tests.support.joplin import JoplinServer

SOCKET = f"bench-joplin-idle-{os.getpid()}"
LOGS = ("log-clipper.txt", "server.log")


def _tmux(*args: str) -> str:
    done = subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=False)
    return done.stdout


def _screen() -> str:
    return _tmux("capture-pane", "-p", "-t", "bench")


def _wait_screen(text: str, timeout: float) -> float:
    """Seconds until ``text`` is on the screen (polled every 20 ms)."""
    start = time.perf_counter()
    while text not in _screen():
        if time.perf_counter() - start > timeout:
            raise SystemExit(f"the app never showed {text!r}; its screen:\n{_screen()}")
        time.sleep(0.02)
    return time.perf_counter() - start


def _others(profile: Path) -> list[str]:
    """The requests Joplin logged that are not a poll of ``/events``: method and path."""
    path = profile / "log-clipper.txt"
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines() if path.is_file() else []
    asked = [line.split("Request: ", 1)[1] for line in lines if "Request: " in line]
    return [re.sub(r"[0-9a-f]{32}", "ID", a.split("?")[0]) for a in asked if " /events" not in a]


def _indexed(noted: Path) -> bool:
    """Whether the indexer's first scan of the notes is over (it reads every note once, when its
    model has loaded, which may take half a minute): it then sets its cursor."""
    from noted.indexer.vectors import META_CURSOR
    from noted.store.joplin.sidecar import SIDECAR_NAME

    try:
        with sqlite3.connect(f"file:{noted / SIDECAR_NAME}?mode=ro", uri=True) as database:
            row = database.execute("SELECT value FROM meta WHERE key = ?", (META_CURSOR,)).fetchone()
    except sqlite3.Error:
        return False
    return row is not None and row[0] is not None


def _settle(joplin: Path, noted: Path, quiet: float = 5.0, timeout: float = 180.0) -> None:
    """Wait until the first index is made and Joplin was then asked nothing but ``/events`` for
    ``quiet`` seconds: the app's first reads and the indexer's first scan are not idle requests."""
    start = last_change = time.perf_counter()
    seen = len(_others(joplin))
    while time.perf_counter() - start < timeout:
        time.sleep(0.5)
        now = len(_others(joplin))
        if now != seen:
            seen, last_change = now, time.perf_counter()
        if _indexed(noted) and time.perf_counter() - last_change >= quiet:
            return


def _log_size(profile: Path) -> tuple[int, int]:
    """Request lines and bytes of Joplin's request logs."""
    lines = size = 0
    for name in LOGS:
        path = profile / name
        if path.is_file():
            data = path.read_bytes()
            lines += data.count(b"Request: ") if name == "log-clipper.txt" else 0
            size += len(data)
    return lines, size


def _search_delays(
    args: argparse.Namespace, profile: Path, server: JoplinServer, api: httpx.Client, notes: list[str]
) -> None:
    """As the app's searches and the MCP server's do: a process of its own on the profile, following
    the feed (``start_watching``), keyword-searches for a word just written in Joplin."""
    from noted.profile import Profile
    from noted.services import Services
    from noted.settings import Settings

    environ = {"NOTED_JOPLIN_TOKEN": server.token, "NOTED_SEARCH_INDEXER_ENABLED": "false"}
    at = Profile(profile)
    services = Services.open(at, backend="joplin", welcome=False, settings=Settings.load(at, environ=environ))
    try:
        services.start_watching()
        services.finder().search("warm", mode="keyword")
        delays = []
        for n in range(args.changes):
            time.sleep(random.uniform(3, 6))
            word = "quokka" + "".join(secrets.choice("abcdefghij") for _ in range(6))
            api.put(f"/notes/{notes[n % len(notes)]}", json={"body": f"a {word} here"})
            start = time.perf_counter()
            while not services.finder().search(word, mode="keyword").hits:
                if time.perf_counter() - start > 30:
                    raise SystemExit(f"keyword search never found {word}")
                time.sleep(0.02)
            delays.append(time.perf_counter() - start)
        print(f"a change made in Joplin is found by keyword search (another process): median "
              f"{statistics.median(delays):.2f} s, longest {max(delays):.2f} s over {len(delays)}")  # fmt: skip
    finally:
        services.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--idle", type=float, default=120.0, help="seconds the app is left alone")
    parser.add_argument("--changes", type=int, default=10, help="changes made in Joplin to time")
    parser.add_argument("--src", type=Path, default=REPO / "src", help="the noted code to run")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))  # this process's noted too (the search's)
    from tests.support.joplin import JoplinServer, free_port

    root = Path(tempfile.mkdtemp(prefix="bench-joplin-idle-"))
    server = JoplinServer(root / "joplin", free_port(), secrets.token_hex(16))
    server.profile.mkdir()
    server.start()
    try:
        api = httpx.Client(base_url=server.url, params={"token": server.token}, timeout=30)
        folder = api.post("/folders", json={"title": "Bench"}).json()["id"]
        notes = [
            api.post(
                "/notes", json={"title": f"Bench note {i}", "body": f"body {i}", "parent_id": folder}
            ).json()["id"]
            for i in range(5)
        ]
        profile = root / "noted"
        env = {**os.environ, "PYTHONPATH": str(args.src.resolve()), "NOTED_JOPLIN_TOKEN": server.token}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "noted",
                "--profile",
                str(profile),
                "config",
                "set",
                "joplin.url",
                server.url,
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        command = (
            f"cd {root} && env PYTHONPATH={args.src.resolve()} NOTED_JOPLIN_TOKEN={server.token} "
            f"{sys.executable} -m noted --profile {profile} --joplin"
        )
        _tmux("new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", command)
        try:
            _wait_screen("Bench note 4", 120)
            _settle(server.profile, profile)
            before_lines, before_size = _log_size(server.profile)
            before_others = len(_others(server.profile))
            time.sleep(args.idle)
            after_lines, after_size = _log_size(server.profile)
            others = Counter(_others(server.profile)[before_others:])
            per_minute = (after_lines - before_lines) * 60 / args.idle
            per_hour = (after_size - before_size) * 3600 / args.idle
            print(f"idle {args.idle:.0f} s: {per_minute:.0f} requests/min, Joplin's logs grow "
                  f"{per_hour / 1e6:.2f} MB/hour ({per_hour * 24 / 1e6:.1f} MB/day); "
                  f"not /events: {dict(others) or 'none'}")  # fmt: skip

            delays = []
            for n in range(args.changes):
                time.sleep(random.uniform(3, 6))
                title = f"Changed {n} {secrets.token_hex(3)}"
                api.put(f"/notes/{notes[n % len(notes)]}", json={"title": title})
                delays.append(_wait_screen(title, 30))
            print(f"a change made in Joplin shows in the app: median {statistics.median(delays):.2f} s, "
                  f"longest {max(delays):.2f} s over {len(delays)}")  # fmt: skip
            _search_delays(args, profile, server, api, notes)
        finally:
            _tmux("kill-server")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
