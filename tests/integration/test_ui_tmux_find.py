"""End to end in tmux: ``/`` in the note list filters it, ``/`` in the note finds, ``n``/``N`` step.

The keys after ``/`` are sent at once, as a person types them: they must land in the field that
``/`` opens, not in the pane it came from (``typeahead``).
"""

from __future__ import annotations

from tests.integration.test_ui_tmux import Terminal, fixture, pytestmark, terminal  # noqa: F401


def test_slash_filters_the_list_then_finds_in_the_note_and_n_steps(terminal: Terminal) -> None:  # noqa: F811
    terminal.wait_for(lambda s: "Release plan" in s and "Groceries" in s and "All notes · 4" in s)

    terminal.keys("/")
    terminal.type("groc")  # at once: held until the field has the focus
    screen = terminal.wait_for("All notes · 1 of 4 · filter: groc")
    assert "Release plan" not in screen.split("\n", 3)[1]  # the list's first row is Groceries now
    terminal.keys("Escape")
    terminal.wait_for(lambda s: "All notes · 4 · by updated" in s and "Release plan" in s)

    terminal.keys("g", "Enter")  # open the newest note; the focus goes to it
    terminal.wait_for(lambda s: "1.2 Nice to have" in s and "Plans for the spring release." in s)
    terminal.keys("/")
    terminal.type("week")
    terminal.wait_for("find: week · 1/42")
    terminal.keys("Enter", "n")
    terminal.wait_for("find: week · 2/42")
    terminal.keys("N", "N")
    terminal.wait_for("find: week · 42/42 · from the bottom")
    terminal.keys("Escape")
    terminal.wait_for(lambda s: "find: week" not in s and "Release plan" in s)
