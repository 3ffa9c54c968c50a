"""The writer stamp noted leaves in a Joplin note's ``user_data`` so other machines know who wrote it."""

from __future__ import annotations

import json

from noted.store.joplin.provenance import stamped, writer_of


def test_the_stamp_names_the_writer_while_the_text_is_the_one_written() -> None:
    data = stamped("", "mcp:claude", "Budget", "Rent: 900", now=1000)
    assert writer_of(data, "Budget", "Rent: 900") == "mcp:claude"
    # Changed afterwards (in Joplin itself, say): the stamp no longer speaks for the text.
    assert writer_of(data, "Budget", "Rent: 950") is None
    assert writer_of(data, "Budget 2", "Rent: 900") is None


def test_the_stamp_keeps_what_plugins_stored_beside_it() -> None:
    plugin = json.dumps({"org.example.plugin": {"colour": {"v": "red", "t": 5, "d": 0}}})
    data = json.loads(stamped(plugin, "user", "T", "B", now=7))
    assert data["org.example.plugin"] == {"colour": {"v": "red", "t": 5, "d": 0}}
    again = stamped(json.dumps(data), "assistant:chat-1", "T", "B2", now=8)
    assert writer_of(again, "T", "B2") == "assistant:chat-1"
    assert json.loads(again)["org.example.plugin"]["colour"]["v"] == "red"


def test_no_stamp_or_a_broken_one_names_nobody() -> None:
    for data in ("", "not json", "[1, 2]", json.dumps({"noted": "x"}), json.dumps({"noted": {"writer": {}}})):
        assert writer_of(data, "T", "B") is None
    assert json.loads(stamped("not json", "user", "T", "B", now=1))["noted"]["writer"]["t"] == 1
