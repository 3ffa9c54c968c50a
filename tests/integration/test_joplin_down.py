"""A Joplin that is off (nothing listens on its loopback port): a command that needs it says so
in one line, what is wrong and what to do, with the backend's exit code, and writes nothing.

It used to say so only after its reads had retried for ten seconds. How soon is no assertion
here (no timing in a normal test): the client's attempts are counted instead, in
``tests/unit/test_joplin_client.py``. Not vacuous: the port is checked to refuse connections.
"""

from __future__ import annotations

import socket
from pathlib import Path

import apsw
import pytest
from tests.support.cli import Cli
from tests.support.joplin import free_port

from noted.cli.exits import ExitCode
from noted.store.joplin.sidecar import SIDECAR_NAME


def test_a_command_on_a_joplin_that_is_off_says_so_in_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with (
        pytest.raises(ConnectionRefusedError),
        socket.create_connection(("127.0.0.1", int(url.rsplit(":")[-1]))),
    ):
        pass
    monkeypatch.setenv("NOTED_JOPLIN_TOKEN", "token-joplin-down")
    monkeypatch.setenv("NOTED_JOPLIN_URL", url)
    cli = Cli(tmp_path / "profile", capsys, init=False)
    assert cli("--joplin", "init").code == 0
    for command in (["create", "Hello"], ["notes"]):
        result = cli("--joplin", *command)
        assert result.code == ExitCode.BACKEND, result.err
        assert result.out == ""
        [line] = result.err.splitlines()
        assert f"Joplin is not reachable at {url}" in line and "start Joplin" in line
    sidecar = apsw.Connection(str(tmp_path / "profile" / SIDECAR_NAME), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        for table in ("joplin_writes", "joplin_feed", "joplin_half_done"):
            assert sidecar.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0  # noqa: S608
    finally:
        sidecar.close()
