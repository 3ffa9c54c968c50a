"""``noted ask`` tells a person what the assistant did in words, not in tool names.

A real ``noted ask`` child, the real openai SDK, a loopback server.
"""

from __future__ import annotations

from pathlib import Path

from tests.integration.test_cli_ask import (  # noqa: F401 (fixtures)
    ask,
    profile,
    text_reply,
    tool_reply,
    wire,
)
from tests.support.wire_server import WireServer, openai_chunk, openai_stream, openai_tool_piece


def test_tool_calls_are_told_in_words_on_stderr(profile: Path, wire: WireServer) -> None:  # noqa: F811
    # Before: "· search_notes "milk"", "Allow update_note?" and "update_note: refused: …".
    two_calls = openai_stream(
        [
            openai_chunk(tool_calls=[openai_tool_piece(0, id="s", name="search_notes", arguments='{"query": "milk"}')]),
            openai_chunk(tool_calls=[openai_tool_piece(1, id="u", name="update_note", arguments="{")]),
            openai_chunk(tool_calls=[openai_tool_piece(1, arguments='"id": "00000000000000000000000000000000"}')]),
            openai_chunk(finish_reason="tool_calls"),
        ]
    )  # fmt: skip
    wire.push(two_calls, text_reply("Nothing changed."))
    done = ask(profile, wire, "--note", "Shopping", "Find milk", NOTED_AI_TOOL_UPDATE_NOTE_ENABLED="1")

    assert done.returncode == 0, done.stderr  # the update names no note: refused, never asked
    lines = done.stderr.splitlines()
    assert '· searched for "milk"' in lines, lines
    # One that did not run is said as it was asked ("update", not "updated"), with why.
    assert '· update note "00000000000000000000000000000000"' in lines, lines
    assert '  error: no note with id "00000000000000000000000000000000"' in lines, lines
    # Not vacuous: both calls ran and were reported; neither line names a tool.
    assert "search_notes" not in done.stderr and "update_note" not in done.stderr, lines


def test_a_write_asked_about_is_put_in_words(profile: Path, wire: WireServer) -> None:  # noqa: F811
    arguments = {"title": "Packing", "notebook_title": "Trips"}
    wire.push(tool_reply("w", "create_note", arguments), text_reply("Alright."))
    done = ask(profile, wire, "Make a packing list", NOTED_AI_TOOL_CREATE_NOTE_ENABLED="1")

    assert done.returncode == 4, done.stderr
    assert 'Allow: create note "Packing" notebook_title="Trips"?' in done.stderr, done.stderr
    assert '· create note "Packing"' in done.stderr and "create_note" not in done.stderr, done.stderr
    # Why, to the person: it was "The person declined this change; … Do not try it again unless
    # they ask.", the words meant for the model (which it still gets).
    assert "\n  refused: not approved, so nothing was written\n" in done.stderr, done.stderr
