"""Every tool has words of its own (``noted.ops.tool_words``): a tool added without them would
show its name in the chat, ``noted ask`` and the Changes view."""

from __future__ import annotations

from noted.ops.tool_words import known, tool_words
from noted.tools import all_tools


def test_every_tool_has_words_and_none_is_its_name() -> None:
    names = [tool.name for tool in all_tools()]
    assert len(names) > 30  # not vacuous: the whole table, editor tools included
    assert "editor_append" in names and "search_notes" in names
    for name in names:
        words = tool_words(name)
        assert known(name), name
        assert "_" not in words.to_do and "_" not in words.done, (name, words)
    assert tool_words("made_up_tool").done == "made_up_tool"  # a name the model made up, as sent
