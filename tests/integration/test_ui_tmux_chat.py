"""End to end in tmux: a block of code pasted into the chat as a terminal pastes it (bracketed paste)
keeps its lines, and Enter sends them all to the model (a loopback server speaking OpenAI's wire).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.integration.test_ui_tmux import fixture, start_terminal  # noqa: F401 (a fixture)
from tests.integration.ui_support import Fixture
from tests.support.wire_server import WireServer, openai_chunk, openai_stream

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

CODE = "def total(xs):\n    return sum(xs)\n\nprint(total([1, 2]))"


def test_a_bracketed_paste_keeps_its_lines_and_enter_sends_them_all(
    fixture: Fixture,  # noqa: F811
    tmp_path: Path,
) -> None:
    with WireServer() as wire:
        wire.push(openai_stream([openai_chunk(content="Looks fine."), openai_chunk(finish_reason="stop")]))
        with start_terminal(
            fixture, tmp_path, NOTED_AI_ENABLED="true", NOTED_AI_PROVIDER="openai",
            NOTED_AI_MODEL="test-model", NOTED_AI_BASEURL=wire.base_url + "/v1",
        ) as terminal:  # fmt: skip
            terminal.wait_for("Release plan")
            terminal.keys("C-t")
            terminal.wait_for("Ask about")
            terminal.type("Check this:")
            terminal.wait_for("Check this:")
            terminal.keys("C-j")  # a new line, typed (the line feed a terminal sends for Ctrl+J)
            terminal.type("Code:")
            terminal.wait_for(lambda s: "Code:" in s and "Check this:Code:" not in s)
            terminal.keys("C-j")
            (tmp_path / "paste.txt").write_text(CODE, encoding="utf-8")
            terminal.tmux("load-buffer", "-b", "code", str(tmp_path / "paste.txt"))
            # -p: wrapped in the bracketed-paste markers the app asked for, as a terminal pastes.
            terminal.tmux("paste-buffer", "-p", "-b", "code", "-t", terminal.session)
            # Before (a one-line box), the paste arrived as one line: "def total(xs): return sum…".
            terminal.wait_for(lambda s: "    return sum(xs)" in s and "print(total([1, 2]))" in s)
            terminal.keys("Enter")
            terminal.wait_for("Looks fine.")
            assert len(wire.requests) == 1
            messages = wire.requests[0].body["messages"]
            said = [m["content"] for m in messages if m["role"] == "user"]
            assert said[0] == "Check this:\nCode:\n" + CODE  # every line, the indent and the empty one too
            terminal.keys("C-q")
