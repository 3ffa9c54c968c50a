"""A real Joplin for tests: the terminal app's Data API, started once per test run by the shared script.

The script (``../shared/scripts/joplin-server`` beside the repository; ``NOTED_JOPLIN_SCRIPT``
names another) installs the Joplin terminal app once into a cache folder and starts it on
loopback. Installing takes minutes (``.ci/joplin-setup`` does it before the tests in CI), so the
tests never install: without the script or the installed app they are skipped, saying why.

Every Joplin command-line call takes several seconds (the app starts each time), so tests call
it sparingly, to check the end state through Joplin's own eyes. The server is shared by all the
tests of a run; each test makes its own notebooks and looks only at them.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import secrets
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.support.polling import DEFAULT_TIMEOUT, scaled, wait_for

from noted.store.joplin import JoplinStore
from noted.store.joplin.client import JoplinClient
from noted.store.joplin.sidecar import SIDECAR_NAME, Sidecar
from noted.store.joplin.store import CACHE_FOLDER

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(os.environ.get("NOTED_JOPLIN_SCRIPT") or REPO.parent / "shared" / "scripts" / "joplin-server")
_ENV = dict(os.environ)
"""The environment as the run started: tests swap HOME, and the app's cache folder hangs on it."""
_RUN_TIMEOUT = 600


def _cache_binary() -> Path | None:
    """Where the script installs the ``joplin`` command (mirrors the script's own rule)."""
    try:
        match = re.search(r"^version=(\S+)", SCRIPT.read_text(encoding="utf-8"), re.MULTILINE)
    except OSError:
        return None
    if match is None:
        return None
    cache = _ENV.get("XDG_CACHE_HOME") or str(Path(_ENV.get("HOME", "~")).expanduser() / ".cache")
    folder = Path(_ENV.get("JOPLIN_CLI_DIR") or Path(cache) / f"joplin-cli-{match.group(1)}")
    return folder / "node_modules" / ".bin" / "joplin"


def unavailable_reason() -> str | None:
    """Why a real Joplin cannot run here, or None when it can."""
    if not SCRIPT.is_file():
        return (
            f"the Joplin test script is missing ({SCRIPT}); the shared folder must sit beside the repository"
        )
    binary = _cache_binary()
    if binary is None or not os.access(binary, os.X_OK):
        return f"the Joplin terminal app is not installed (expected {binary}); run .ci/joplin-setup once"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class JoplinServer:
    """One running Joplin: its profile folder, port and API token."""

    profile: Path
    port: int
    token: str = field(default_factory=lambda: secrets.token_hex(16))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _script(self, *args: str, timeout: float = _RUN_TIMEOUT) -> str:
        done = subprocess.run(
            ["bash", str(SCRIPT), *args],
            env=_ENV,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"joplin-server {args[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
        return done.stdout

    def start(self) -> None:
        """Start the server on its port; tries three times, as the port freed by a ``stop`` can be
        held for a moment by another test's connection (Joplin then exits at once).

        The script's start empties ``server.log``: the last run's is kept as ``server.N.log`` first,
        so a restart (``revive``, a test that stops and starts Joplin) loses no log.
        """
        for attempt in range(3):
            log = self.profile / "server.log"
            if log.is_file():
                log.replace(self.profile / f"server.{len(list(self.profile.glob('server.*.log'))) + 1}.log")
            try:
                self._script("start", str(self.profile), str(self.port), self.token)
                break
            except RuntimeError:
                if attempt == 2:
                    raise
                self._script("stop", str(self.profile))
                time.sleep(2)
        self._reap_when_gone()

    def _reap_when_gone(self) -> None:
        """Stop the server once the test process that started it ends, however it ends.

        ``stop`` runs at a fixture's teardown or at exit, but a worker killed by a timeout's
        SIGTERM or by kill -9 runs neither, and its Joplin (a Node process of ~150 MB) would
        outlive the run and slow the next one. A small watcher waits for either to go.
        """
        pid_file = self.profile / "server.pid"
        if not pid_file.is_file():
            return
        # Kills only once the test process is gone: a server that ended first (a test's stop) may
        # have had its pid given to another process since.
        watch = 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; kill -0 "$1" 2>/dev/null || kill "$2" 2>/dev/null'
        subprocess.Popen(  # noqa: S603 - fixed arguments
            ["bash", "-c", watch, "reaper", str(os.getpid()), pid_file.read_text().strip()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def stop(self) -> None:
        """Stop the server and wait until its port no longer answers."""
        self._script("stop", str(self.profile))
        wait_for(
            lambda: not self.answers(), what="the Joplin server's port to close", timeout=30, interval=0.1
        )

    def revive(self) -> None:
        """Start this server again after it stopped by itself, keeping its log and saying so.

        The run's Joplin is shared by every later test of its worker: one crash (its log names the
        cause) would otherwise fail them all with "not reachable" and hide which test it was.
        """
        log = self.profile / "server.log"
        said = log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.is_file() else "(no log)"
        self._script("stop", str(self.profile))
        self.port = free_port()  # its own port may have been taken meanwhile
        self.start()
        warnings.warn(
            f"the shared Joplin had stopped; started it again. Its log ended:\n{said}", stacklevel=2
        )

    def answers(self) -> bool:
        try:
            return httpx.get(f"{self.url}/ping", timeout=1.0).status_code == 200
        except httpx.HTTPError:
            return False

    def cli(self, *args: str) -> str:
        """A Joplin command on this profile (``ls -f json /``, ``cat -v ID``…), its output."""
        return self._script("cli", str(self.profile), *args)

    def cat(self, note_id: str) -> dict[str, str]:
        """``joplin cat -v ID``: the note as Joplin has it, its title under ``title``, body under ``body``."""
        lines = self.cli("cat", "-v", note_id).splitlines()
        props: dict[str, str] = {"title": lines[0] if lines else ""}
        start = next((i for i, line in enumerate(lines) if line.startswith(f"id: {note_id}")), len(lines))
        props["body"] = "\n".join(lines[2:start]).strip()
        for line in lines[start:]:
            key, _, value = line.partition(": ")
            props[key] = value
        return props

    def notebooks(self) -> list[dict[str, Any]]:
        """``joplin ls -f json /``: the notebooks Joplin lists (trashed ones are not)."""
        return list(json.loads(self.cli("ls", "-f", "json", "/")))

    def api(
        self, method: str, path: str, body: dict[str, Any] | None = None, params: dict[str, Any] | None = None
    ) -> Any:
        """A request to the Data API made outside noted (as Joplin's own app would change a note)."""
        query = {**(params or {}), "token": self.token}
        answer = httpx.request(method, f"{self.url}{path}", params=query, json=body, timeout=scaled(120))
        answer.raise_for_status()
        return answer.json() if answer.content else None

    def _edit_database(self, edit: Callable[[sqlite3.Connection], object]) -> None:
        """Change Joplin's own database in one transaction while it runs, never holding a lock
        while waiting for Joplin.

        Joplin records each change after it has answered (``ItemChange.add``, not awaited) in a
        transaction that takes the read lock, then the write lock, and is given up after 20 s of
        refusals. A write that took the write lock and then waited for Joplin's read lock to commit
        (``sqlite3``'s 30 s) deadlocked with it: Joplin gave up first, the rejection went unhandled
        and ended Joplin, and every later Joplin test of the worker found it "not reachable". So
        the lock is taken whole (``BEGIN EXCLUSIVE``, which holds nothing when refused) or not at
        all, and asked again a moment later: Joplin's transaction, never blocked, ends meanwhile.
        """
        database = sqlite3.connect(self.profile / "database.sqlite", timeout=0, isolation_level=None)
        try:
            wait_for(lambda: _began(database), what="Joplin's database to be free", timeout=60, interval=0.05)
            try:
                edit(database)
            except BaseException:
                database.execute("ROLLBACK")
                raise
            database.execute("COMMIT")
        finally:
            database.close()

    def as_if_encrypted(self, note_id: str) -> None:
        """Make a note what Joplin holds for one that came by sync end-to-end encrypted and that it
        could not decrypt (no master password here): empty title and body, ``encryption_applied``.

        The terminal app's ``e2ee enable`` does not turn encryption on without its keychain, so the
        state is written into Joplin's own database, where its Data API reads it at each request.
        """
        self._edit_database(
            lambda database: database.execute(
                "UPDATE notes SET title = '', body = '', encryption_applied = 1, "
                "encryption_cipher_text = 'JED01000022' WHERE id = ?",
                (note_id,),
            )
        )

    def as_if_conflict(self, copy_id: str, original_id: str) -> None:
        """Make a note what Joplin's sync leaves of a note changed on two machines: the conflict
        copy of ``original_id`` (the Data API does not set ``is_conflict``; a real one needs two
        machines and a sync, ``tests.support.joplin_sync``)."""
        self._edit_database(
            lambda database: database.execute(
                "UPDATE notes SET is_conflict = 1, conflict_original_id = ? WHERE id = ?",
                (original_id, copy_id),
            )
        )

    def restart_change_log(self, *, gone: Sequence[str] = (), after: int = 0) -> None:
        """Make Joplin as after its "delete local data and re-download": the same notes (but those
        of ``gone``, deleted on another machine meanwhile), with a change log that starts again,
        its next change numbered ``after + 1``.

        Written into Joplin's database, as re-downloading needs a sync target that holds the notes.
        """

        def edit(database: sqlite3.Connection) -> None:
            database.execute("DELETE FROM item_changes")
            database.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'item_changes'", (after,))
            database.executemany("DELETE FROM notes WHERE id = ?", [(i,) for i in gone])

        self._edit_database(edit)

    def wipe(self) -> None:
        """Erase every note, notebook, tag and attachment, so the next store starts empty.

        For backend-neutral tests that expect a new, empty store (``tests.support.backends``).
        """

        def every(kind: str) -> list[str]:
            ids: list[str] = []
            page = 1
            while True:
                params = {"type": kind.rstrip("s"), "query": "*"} if kind == "folders" else {}
                path = "/search" if kind == "folders" else f"/{kind}"
                extra = {"include_deleted": "1", "include_conflicts": "1"} if kind == "notes" else {}
                answer = self.api("GET", path, params={**params, **extra, "fields": "id", "page": page})
                ids += [str(i["id"]) for i in answer["items"]]
                if not answer.get("has_more"):
                    return ids
                page += 1

        for kind in ("notes", "folders", "tags", "resources"):
            for item_id in every(kind):
                try:
                    self.api("DELETE", f"/{kind}/{item_id}", params={"permanent": "1"})
                except httpx.HTTPStatusError as exc:  # a sub-notebook erased with its parent
                    if exc.response.status_code != 404:
                        raise

    def store(
        self, root: Path, *, read_deadline: float = scaled(30), wire: Wire | None = None
    ) -> JoplinStore:
        """A noted store on this Joplin, its sidecar in ``root``; ``wire`` records what it asks."""
        root.mkdir(parents=True, exist_ok=True)
        if wire is None:
            return JoplinStore.open(root, url=self.url, token=self.token, read_deadline=read_deadline)
        client = JoplinClient(self.url, self.token, read_deadline=read_deadline, transport=wire)
        return JoplinStore(client, Sidecar.open(root / SIDECAR_NAME), root / CACHE_FOLDER)


class Wire(httpx.HTTPTransport):
    """The real transport to Joplin, recording each request and the bytes of its answer."""

    def __init__(self) -> None:
        super().__init__(retries=0)
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        """Each request: method, path and query (the token left out)."""
        self.received = 0
        """Bytes of the answers' bodies."""
        self.items: list[int] = []
        """How many items each answer listed (0 for one that is no page of items), as ``requests``."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        answer = super().handle_request(request)
        answer.read()
        query = {k: v for k, v in request.url.params.items() if k != "token"}
        self.requests.append((request.method, request.url.path, query))
        self.received += len(answer.content)
        try:
            listed = answer.json().get("items", [])
        except (ValueError, AttributeError):
            listed = []
        self.items.append(len(listed) if isinstance(listed, list) else 0)
        return answer

    def clear(self) -> None:
        self.requests.clear()
        self.items.clear()
        self.received = 0

    def listed(self, path: str) -> int:
        """How many items the answers to ``GET path`` listed, all pages together."""
        return sum(
            n
            for (method, asked, _), n in zip(self.requests, self.items, strict=True)
            if method == "GET" and asked == path
        )

    def fields(self) -> set[str]:
        """Every field the requests asked Joplin for."""
        return {f for _, _, query in self.requests for f in query.get("fields", "").split(",") if f}


def _began(database: sqlite3.Connection) -> bool:
    """Whether ``BEGIN EXCLUSIVE`` took the whole lock; False (holding nothing) while another holds any."""
    try:
        database.execute("BEGIN EXCLUSIVE")
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc):
            raise
        return False
    return True


_lock = threading.Lock()
_shared: JoplinServer | None = None
_failure: str | None = None
_revived = 0


def shared_server(tmp_root: Path) -> JoplinServer:
    """The run's Joplin, started on first use (under ``tmp_root``) and stopped when the run ends.

    Skips the calling test, saying why, when Joplin cannot run here.
    """
    global _shared, _failure, _revived
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    with _lock:
        if _failure:
            pytest.skip(_failure)
        if _shared is None:
            server = JoplinServer(tmp_root / "joplin-profile", free_port())
            try:
                server.start()
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                _failure = f"Joplin did not start: {exc}"
                pytest.skip(_failure)
            atexit.register(server.stop)
            _shared = server
        elif not _shared.answers():
            _revived += 1
            if _revived > 3:
                pytest.fail("the shared Joplin stopped by itself more than three times; see its server.*.log")
            _shared.revive()
        return _shared


@contextlib.contextmanager
def own_server(profile: Path) -> Iterator[JoplinServer]:
    """A started Joplin of the caller's own, stopped at the end: for a test that stops and starts
    it (the run's shared one must stay up for the other tests). Skips when Joplin cannot run here."""
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    server = JoplinServer(profile, free_port())
    profile.mkdir(parents=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def bench_server(prefix: str) -> Iterator[tuple[JoplinServer, Path]]:
    """For a benchmark: a Joplin of its own in a fresh temporary folder, and that folder; stopped
    at the end. ``SystemExit`` saying why when Joplin cannot run here."""
    reason = unavailable_reason()
    if reason:
        raise SystemExit(f"cannot run: {reason}")
    work = Path(tempfile.mkdtemp(prefix=prefix))
    server = JoplinServer(work / "joplin", free_port())
    server.start()
    try:
        yield server, work
    finally:
        server.stop()


def wait_until(predicate: Any, *, timeout: float = DEFAULT_TIMEOUT, what: str = "condition") -> None:
    """Poll ``predicate`` until it holds; fail the test after ``timeout`` (scaled) seconds."""
    wait_for(predicate, what=what, timeout=timeout, interval=0.05)
