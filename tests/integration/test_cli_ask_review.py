"""``noted ask --stream`` in review mode (``ai.writes`` review): a write held as a proposal is said
to be held (as ``pN``), not done, in the same words the chat pane's tool line uses.

A real ``noted ask`` child, the real openai SDK, a loopback server.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.test_cli_ask import (  # noqa: F401 (fixtures)
    ask,
    profile,
    text_reply,
    tool_reply,
    wire,
)
from tests.support.wire_server import WireServer

from noted.store.sqlite import SqliteStore


def _shopping(root: Path) -> str:
    store = SqliteStore.open(root / "notes.db", root / "resources")
    try:
        (note,) = [n for n in store.list_notes() if n.title == "Shopping"]
        return note.id
    finally:
        store.close()


def test_stream_says_a_write_held_for_review_is_held_as_its_proposal(profile: Path, wire: WireServer) -> None:  # noqa: F811
    note = _shopping(profile)
    for _ in range(2):
        wire.push(
            tool_reply("u", "update_note", {"id": note, "body": "- oat milk\n"}), text_reply("Proposed.")
        )
    env = {"NOTED_AI_TOOL_UPDATE_NOTE_ENABLED": "1", "NOTED_AI_WRITES": "review"}
    done = ask(profile, wire, "--stream", "Oat milk", **env)

    assert done.returncode == 0, done.stderr
    (result,) = [e for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "tool_result"]
    # Not vacuous: before, the line said only "status": "ok", as for a write that was made.
    assert result["outcome"] == "held" and result["said"] == "held as p1 for your review", result
    texts = ask(profile, wire, "--new", "Oat milk", **env)  # and the text report says it too
    assert "\n  held as p2 for your review" in texts.stderr and "update_note" not in texts.stderr, (
        texts.stderr
    )
