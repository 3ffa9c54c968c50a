"""Two machines for tests: two Joplin profiles, "laptop" and "server", kept in step by Joplin's sync.

Each profile serves its own Data API on a loopback port, and both sync to one filesystem target
(Joplin's sync target 2, a shared folder) in the test's temporary folder. ``sync()`` runs
``joplin sync`` on a profile beside its running server, as a person (or cron) would on each
machine. noted never writes the target: only Joplin does.

Joplin Server is not used: it is not published on the npm registry (``@joplin/server`` is a
private package of Joplin's repository, shipped as a Docker image), so it cannot be installed
here. The filesystem target runs the same synchroniser, conflicts included.

Each ``joplin`` command takes seconds (the app starts each time), so a test module shares one
pair (``pair`` below) and each test works in its own notebooks.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.support.joplin import SCRIPT, JoplinServer, _cache_binary, free_port, unavailable_reason

from noted.cli import main

FILESYSTEM_TARGET = 2
"""Joplin's sync target number for a folder on disk."""


@dataclass
class Machine:
    """One "machine": a Joplin profile with its Data API, and a noted profile on it."""

    name: str
    joplin: JoplinServer
    noted_profile: Path

    def sync(self) -> str:
        """``joplin sync`` on this profile; its last line (Joplin's summary)."""
        out = self.joplin.cli("sync").strip().splitlines()
        return out[-1] if out else ""

    @property
    def sync_command(self) -> str:
        """What this machine's ``joplin.syncCommand`` would be: ``joplin sync`` on its profile."""
        binary = _cache_binary()
        cli_dir = binary.parents[2] if binary else ""
        return shlex.join(
            ["env", f"JOPLIN_CLI_DIR={cli_dir}", "bash", str(SCRIPT), "cli", str(self.joplin.profile), "sync"]
        )

    @contextlib.contextmanager
    def _env(self) -> Iterator[None]:
        """noted's Joplin address and token for this machine, for one in-process call."""
        wanted = {
            "NOTED_JOPLIN_URL": self.joplin.url,
            "NOTED_JOPLIN_TOKEN": self.joplin.token,
            "NOTED_AI_EMBEDDING_PROVIDER": "fake",
            "NOTED_JOPLIN_SYNC_COMMAND": self.sync_command,
        }
        saved = {k: os.environ.get(k) for k in wanted}
        os.environ.update(wanted)
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    def noted(self, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
        """``noted --joplin ARGS`` on this machine, in this process: exit code, stdout, stderr."""
        with self._env():
            if not (self.noted_profile / "joplin-sidecar.db").exists():  # made once, as a person does
                assert main(["init", "--joplin", "--profile", str(self.noted_profile)]) == 0
            capsys.readouterr()
            code = main([*args, "--joplin", "--profile", str(self.noted_profile)])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    def noted_json(self, capsys: pytest.CaptureFixture[str], *args: str) -> Any:
        """``noted --joplin ARGS --json``, which must succeed; its parsed output."""
        code, out, err = self.noted(capsys, *args, "--json")
        assert code == 0, err
        return json.loads(out)


@dataclass
class Pair:
    """The laptop and the server, syncing through one folder."""

    laptop: Machine
    server: Machine
    target: Path

    def sync(self, first: Machine) -> None:
        """Sync ``first`` then the other: what one makes reaches the other (its own changes go up too)."""
        second = self.server if first is self.laptop else self.laptop
        first.sync()
        second.sync()

    def stop(self) -> None:
        for machine in (self.laptop, self.server):
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                machine.joplin.stop()


def _configure(profile: Path, target: Path) -> None:
    """Point a new Joplin profile at the shared folder (its settings file, read when it starts)."""
    profile.mkdir(parents=True, exist_ok=True)
    settings = {"sync.target": FILESYSTEM_TARGET, "sync.2.path": str(target)}
    (profile / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def start_pair(root: Path) -> Pair:
    """Start the two profiles under ``root`` (skipping the test when Joplin cannot run here)."""
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    target = root / "sync-target"
    target.mkdir(parents=True, exist_ok=True)
    machines: list[Machine] = []
    for name in ("laptop", "server"):
        _configure(root / f"joplin-{name}", target)
        server = JoplinServer(root / f"joplin-{name}", free_port())
        try:
            server.start()
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            for started in machines:
                started.joplin.stop()
            pytest.skip(f"Joplin did not start: {exc}")
        machines.append(Machine(name, server, root / f"noted-{name}"))
    return Pair(machines[0], machines[1], target)


@contextlib.contextmanager
def running_pair(root: Path) -> Iterator[Pair]:
    """Two syncing machines for the length of the ``with`` block."""
    pair = start_pair(root)
    try:
        yield pair
    finally:
        pair.stop()
