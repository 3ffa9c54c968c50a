"""End to end at 80×24: the real app in tmux counts the changes an AI app made, F3 lists them, Enter
shows the diff and ``a`` accepts one, ``r`` reverts the other; the store says what each key did."""

from __future__ import annotations

from pathlib import Path

from tests.integration.test_ui_tmux import pytestmark, start_terminal  # noqa: F401 (skip without tmux)
from tests.integration.ui_support import Fixture, build_profile

from noted.models import NotePatch, mcp_actor
from noted.ops.review import Review
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.review import SqliteReview

BOT = mcp_actor("claude")


def _store(fixture: Fixture) -> SqliteStore:
    return SqliteStore.open(fixture.root / "notes.db", fixture.root / "resources")


def test_f3_lists_what_an_ai_app_changed_and_a_and_r_review_it(tmp_path: Path) -> None:
    fixture: Fixture = build_profile(tmp_path / "profile")
    store = _store(fixture)
    try:
        Review(store, SqliteReview(store.db)).refresh()  # as a running app has: read up to here
        ideas_body = store.get_note(fixture.ideas).body
        store.update_note(fixture.ideas, NotePatch(append="\nA model's idea."), actor=BOT)
        store.tag_note(fixture.groceries, ["shopping"], actor=BOT)
    finally:
        store.close()
    with start_terminal(fixture, tmp_path, width=80, height=24) as terminal:
        terminal.wait_for(lambda s: "2 changes to review" in s)  # the status bar
        terminal.keys("F3")
        terminal.wait_for(
            lambda s: "Changes to review · 2" in s and "tagged shopping" in s and "+2 −0 lines" in s
        )
        screen = terminal.wait_for(lambda s: "f1 Help" in s.splitlines()[-1])
        lines = screen.splitlines()
        assert "a Accept" in lines[-1] and "e Edit" not in lines[-1]  # the view's keys, not the reader's
        assert "2 changes to review" in lines[-2]  # the frame ends above the status line
        terminal.keys("Down", "Enter")  # the ideas' change, past the groceries' heading
        lines = terminal.wait_for(lambda s: "+A model's idea." in s and "esc Back" in s).splitlines()
        assert "Changes to review" not in "".join(
            lines
        )  # the diff has the list's place, titled with the change
        assert "Ideas" in lines[2] and "2 changes to review" in lines[-2]
        terminal.keys("a")
        terminal.wait_for(lambda s: "Changes to review · 1" in s)
        terminal.keys("Up", "r")  # the groceries' tag, under its heading
        terminal.wait_for(
            lambda s: "Nothing to review" in s and "AI apps change in your notes shows here" in s
        )
        terminal.keys("Escape")
        terminal.wait_for(lambda s: "to review" not in s.splitlines()[-2])
        terminal.keys("C-q")
        terminal.wait_closed()
    store = _store(fixture)
    try:
        assert store.get_note(fixture.ideas).body == ideas_body + "\nA model's idea."  # accepted: kept
        assert store.note_tag_titles([fixture.groceries]) == {}  # reverted
        assert SqliteReview(store.db).count() == 0
    finally:
        store.close()
