"""The run's shared Joplin as the tests handle it (``tests.support.joplin``): when they restart it,
its log must still say what happened before.
"""

from __future__ import annotations

import pytest
from tests.support.joplin import JoplinServer, shared_server

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


def test_a_restarted_joplin_keeps_the_log_of_its_run_before(joplin: JoplinServer) -> None:
    joplin.api("GET", "/folders", params={"fields": "id", "limit": 1})
    before = (joplin.profile / "server.log").read_text(encoding="utf-8")
    assert "Request: GET /folders" in before  # not vacuous: the log names the requests

    joplin.stop()
    joplin.start()

    kept = [p.read_text(encoding="utf-8") for p in joplin.profile.glob("server.*.log")]
    assert any(text.startswith(before) for text in kept)
    assert joplin.answers()
