"""Shared fixtures: an isolated profile per test, a guard that fails any real network call, and a
bound on each test's time so that a hang fails one test instead of stopping the run."""

from __future__ import annotations

import gc
import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from tests.integration.ui_support import Fixture, build_profile, use_utc
from tests.support.polling import scaled

from noted.store.sqlite import SqliteStore
from noted.ui import patches

# Hypothesis's own clocks (a 200 ms deadline per example, the "too slow" check on generating data)
# are timing assertions: on a loaded machine they fail a property that holds. The properties are
# what the tests check; a hang is still caught by the timeout below.
settings.register_profile("noted", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("noted")

HANG_SECONDS = 300.0
"""A test still running after this long (stretched by ``NOTED_TEST_TIMEOUT_SCALE``) is stuck:
pytest-timeout fails it with every thread's stack. The slowest test takes 15 s on a quiet machine."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores, at most four. Most tests wait on a subprocess,
    a terminal or a server, so a third worker on two cores fills time the other two spend waiting
    (6 min 20 s with two workers, 5 min 14 s with three, the same CPU time)."""
    return min(4, (os.cpu_count() or 1) + 1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(scaled(HANG_SECONDS)))


GC_PASSES = 5
"""As many full collections as pytest runs at its end to find what was never raised."""


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Collect the session's garbage before a worker says it is done, and freeze what lives on.

    A worker says so as its session finishes (xdist's ``workerfinished``); pytest then runs
    ``GC_PASSES`` full collections over the whole heap. Once every worker has said so, xdist ends
    their gateways, and a gateway still busy 5 s later sends its own process SIGINT. On a loaded
    machine those collections took longer: the ``KeyboardInterrupt`` landed in Hypothesis's gc
    callback and pytest printed ``PytestUnraisableExceptionWarning``. Here the same collections run
    while the worker is not done yet (what they free still reaches pytest's hook), and pytest's
    own then walk only what is made after the freeze."""
    for _ in range(GC_PASSES):
        gc.collect()
    gc.freeze()


def _is_local(address: Any) -> bool:
    if isinstance(address, tuple) and address:
        host = address[0]
    else:
        return True  # Unix sockets and the like
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never reach a real model or the internet: only loopback connections are allowed."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def connect(self: socket.socket, address: Any) -> Any:
        if not _is_local(address):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> Any:
        if not _is_local(address):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)


@pytest.fixture(autouse=True)
def _textual_patches() -> Iterator[None]:
    """Each test runs noted's widgets with the Textual patches on, as the app does, whatever ran
    before it in the process; a test that turns them off gets them back after."""
    patches.install()
    yield
    patches.install()


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real user's profile or config."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    for name in list(os.environ):
        if name.startswith("NOTED_") or name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "EDITOR", "VISUAL"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NOTED_PROFILE", str(home / "profile"))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    """An empty embedded store in a fresh folder."""
    s = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    yield s
    s.close()


@pytest.fixture
def fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Fixture:
    """The terminal app's sample profile (four notes, fixed times), shown in UTC."""
    monkeypatch.setenv("TZ", "UTC")
    use_utc()
    return build_profile(tmp_path / "profile")
