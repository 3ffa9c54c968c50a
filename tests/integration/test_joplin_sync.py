"""noted on two machines: two Joplin profiles kept in step by Joplin's own sync (a shared folder).

Each test is one scenario of issue 21, run through ``noted --joplin`` on each machine as a person
would type it. Joplin is started once for the module (its commands take seconds each).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from tests.support.joplin_sync import Pair, running_pair

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    with running_pair(tmp_path_factory.mktemp("two-machines")) as started:
        yield started


def _word() -> str:
    return "zq" + secrets.token_hex(4)  # no other note of the run has it


def _hit_ids(answer: dict[str, object]) -> list[str]:
    hits = answer["hits"]
    assert isinstance(hits, list)
    return [str(h["id"]) for h in hits]


def test_a_note_made_on_the_laptop_is_found_on_the_server_after_sync(
    pair: Pair, capsys: pytest.CaptureFixture[str]
) -> None:
    laptop, server = pair.laptop, pair.server
    word = _word()
    server.noted_json(capsys, "index")  # the server's index is built and up to date before
    created = laptop.noted_json(
        capsys, "create", f"Harbour {word}", "--body", f"Sailing ships wait for the {word} tide."
    )
    note_id = created["id"]
    # Before the sync the server has nothing: the search below is not vacuous.
    assert _hit_ids(server.noted_json(capsys, "search", word, "--mode", "keyword")) == []

    pair.sync(laptop)

    status = server.noted_json(capsys, "index", "status")
    assert status["behind_by_changes"] >= 1  # the change feed saw the note arrive by sync
    assert _hit_ids(server.noted_json(capsys, "search", word, "--mode", "keyword")) == [note_id]
    indexed = server.noted_json(capsys, "index")  # one indexer pass, following the feed
    assert indexed["looked_at"] >= 1
    assert server.noted_json(capsys, "index", "status")["behind_by_changes"] == 0
    # By meaning: words of the note, one it lacks (keyword search needs them all).
    meaning = server.noted_json(capsys, "search", f"sailing ships {word} dinosaurs", "--mode", "semantic")
    assert _hit_ids(meaning)[0] == note_id
