"""``noted sync``'s runner: the command the person set, never a shell, its time kept in the sidecar."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from noted.errors import ConfigError, UnavailableError
from noted.store.joplin.sidecar import Sidecar
from noted.store.joplin.sync_command import last_sync, run_sync


@pytest.fixture
def sidecar(tmp_path: Path) -> Sidecar:
    return Sidecar.open(tmp_path / "sidecar.db")


def test_no_command_says_how_to_set_one_and_records_nothing(sidecar: Sidecar) -> None:
    with pytest.raises(ConfigError, match="joplin.syncCommand"):
        run_sync("  ", sidecar.db)
    assert last_sync(sidecar.db) is None


def test_a_failing_command_is_reported_with_its_last_line(sidecar: Sidecar) -> None:
    script = "import sys; print('Starting'); print('Sync target unreachable'); sys.exit(3)"
    with pytest.raises(UnavailableError, match=r"exit 3\): Sync target unreachable"):
        run_sync(f"{sys.executable} -c {script!r}", sidecar.db)
    with pytest.raises(UnavailableError, match="not installed"):
        run_sync("no-such-joplin-binary sync", sidecar.db)
    assert last_sync(sidecar.db) is None


def test_a_run_keeps_its_summary_and_time(sidecar: Sidecar) -> None:
    # The argument holds a ; that a shell would split on: the command is not run through one.
    run = run_sync(f"{sys.executable} -c 'print(\"Completed: ok; fine\")'", sidecar.db)
    assert run.summary == "Completed: ok; fine"
    assert last_sync(sidecar.db) == run.finished
