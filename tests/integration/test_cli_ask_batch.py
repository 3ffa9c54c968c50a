"""``noted ask`` with a round of several writes: one question (``--yes`` answers it for all), one
``batch_applied`` event, every write done. Through the real CLI child and the OpenAI SDK against a
loopback wire server, as ``test_cli_ask`` does. Not vacuous: ``--stream`` fails on an event it does
not know, and the notes are read back from the store.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.test_cli_ask import ask, profile, text_reply, wire  # noqa: F401 (fixtures)
from tests.support.wire_server import StreamReply, WireServer, openai_chunk, openai_stream, openai_tool_piece

from noted.store.sqlite import SqliteStore


def _two_calls() -> StreamReply:
    chunks = []
    for index, title in enumerate(("Packing", "Tickets")):
        raw = json.dumps({"title": title, "notebook_title": "Trips"})
        chunks.append(
            openai_chunk(
                tool_calls=[openai_tool_piece(index, id=f"w{index}", name="create_note", arguments=raw)]
            )
        )
    return openai_stream([*chunks, openai_chunk(finish_reason="tool_calls")])


def test_one_question_for_the_rounds_writes_and_one_batch_event(profile: Path, wire: WireServer) -> None:  # noqa: F811
    wire.push(_two_calls(), text_reply("Made both."))
    done = ask(profile, wire, "--yes", "--stream", "Plan the trip", NOTED_AI_TOOL_CREATE_NOTE_ENABLED="1")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    types = [e["type"] for e in events]
    assert types.count("approval") == 1 and types.count("batch_applied") == 1, types
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        assert {"Packing", "Tickets"} <= {n.title for n in store.list_notes()}
    finally:
        store.close()
