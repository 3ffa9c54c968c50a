"""The sequences the copy keys send: Textual's OSC 52, and the tmux passthrough around it."""

from __future__ import annotations

import base64

from noted.ui.clipboard import line_count, osc52, tmux_passthrough


def test_osc52_is_what_textual_writes() -> None:
    sequence = osc52("héllo\n")
    assert sequence == "\x1b]52;c;" + base64.b64encode("héllo\n".encode()).decode() + "\a"


def test_tmux_passthrough_doubles_every_escape_inside() -> None:
    # tmux ends the passthrough at the first lone ESC: the one opening OSC 52 must be doubled.
    wrapped = tmux_passthrough(osc52("x"))
    assert wrapped == "\x1bPtmux;\x1b\x1b]52;c;eA==\a\x1b\\"


def test_line_count_counts_lines_as_a_person_does() -> None:
    assert [line_count(t) for t in ("", "one", "one\n", "one\ntwo", "a\n\nb\n")] == [0, 1, 1, 2, 3]
