"""The pure parts of ``/``: the list filter's matching and restoring, the page find's matches and paint."""

from __future__ import annotations

import re

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from noted.models import NoteMeta
from noted.ui.data import PAGE_SIZE, NoteRow
from noted.ui.widgets.list_filter import Before, ListFilter
from noted.ui.widgets.page_find import CURRENT, HIT, Hit, PageFind, find_hits, highlight


def row(title: str, n: int = 0) -> NoteRow:
    meta = NoteMeta(id=f"id{n}", title=title, parent_id="f", created_time=0, updated_time=0,
                    user_created_time=0, user_updated_time=0)  # fmt: skip
    return NoteRow(meta, ())


def test_the_filter_wants_every_word_anywhere_in_the_title_whatever_the_case() -> None:
    rows = tuple(
        row(title, n) for n, title in enumerate(["Release plan", "Plan the release", "Groceries", ""])
    )
    found = ListFilter()
    found.begin(Before(rows, False, 4, "id2"))
    assert [r.meta.title for r in found.match("PLAN rel")] == ["Release plan", "Plan the release"]
    assert found.count() == "2 of 4" and found.narrowing
    assert found.match("  ") == list(rows) and not found.narrowing  # no words: every note


def test_the_filter_counts_the_notes_read_once_it_has_them_all_and_says_when_it_stopped_short() -> None:
    found = ListFilter()
    found.begin(Before((row("Log 1", 1),), True, None, None))
    found.match("log")
    assert found.count() == "1 of 1+"  # only the page loaded so far, and more follow
    found.set_pool(tuple(row(f"Log {n}", n) for n in range(300)), cut=True)
    found.match("log 2")
    with_2 = sum("2" in str(n) for n in range(300))
    assert found.count() == f"{with_2} of 300+"  # the source has more notes than the pool holds


def test_clearing_puts_back_the_list_and_the_cursor_or_the_note_chosen_once_kept() -> None:
    pool = tuple(row(f"Log {n}", n) for n in range(1000))
    found = ListFilter()
    found.begin(Before(pool[:PAGE_SIZE], True, 1000, "id3"))
    found.set_pool(pool, cut=False)
    found.match("log 450")
    back = found.end("id450")
    assert back.note == "id3" and len(back.rows) == PAGE_SIZE and back.has_more  # not kept: as before
    assert not found.active
    found.begin(Before(pool[:PAGE_SIZE], True, 1000, "id3"))
    found.set_pool(pool, cut=False)
    found.match("log 450")
    found.kept = True
    back = found.end("id450")
    # Kept: the note chosen through it stays under the cursor, loaded with a page after it.
    assert back.note == "id450" and len(back.rows) == 450 + PAGE_SIZE and back.has_more


def test_case_counts_only_with_a_capital_and_columns_are_cells() -> None:
    lines = ["a Needle and a needle", "日本 needle", "nothing"]
    assert find_hits(lines, "needle") == [Hit(0, 2, 8), Hit(0, 15, 21), Hit(1, 5, 11)]  # 日本 is 4 cells
    assert find_hits(lines, "Needle") == [Hit(0, 2, 8)]
    assert find_hits(lines, "") == []


def test_highlight_paints_the_matches_and_marks_the_current_one() -> None:
    strip = Strip([Segment("a needle, a needle.", Style(color="red"))])
    first, second = Hit(0, 2, 8), Hit(0, 12, 18)
    painted = highlight(strip, [first, second], second)
    runs = [(s.text, bool(s.style and s.style.reverse), bool(s.style and s.style.underline)) for s in painted]
    assert runs == [("a ", False, False), ("needle", True, False), (", a ", False, False),
                    ("needle", True, True), (".", False, False)]  # fmt: skip
    assert painted.cell_length == strip.cell_length and HIT.reverse and CURRENT.bold


def test_n_and_shift_n_go_round_the_ends_and_say_so() -> None:
    find = PageFind("x", origin=5)
    find.search(["x", "", "x", "", "", "", "x x"], from_row=5)
    assert find.status() == "find: x · 3/4"  # the first at or after the row the view was at
    find.step(True)
    find.step(True)
    assert find.status() == "find: x · 1/4 · from the top"
    find.step(False)
    assert find.status() == "find: x · 4/4 · from the bottom"
    find.search(["y"], 0)
    assert find.status() == "find: x · no match" and find.step(True) is None


def test_a_find_by_pattern_marks_every_word_it_holds_and_names_itself_by_its_label() -> None:
    lines = ["Needle two, and a néedle three", "nothing", "needles four"]
    pattern = re.compile(r"\b(?:needle|three)", re.IGNORECASE)
    assert find_hits(lines, "ignored", pattern) == [Hit(0, 0, 6), Hit(0, 25, 30), Hit(2, 0, 6)]
    find = PageFind("needle three", 1, pattern)
    find.search(lines, 1)
    assert find.hit == Hit(2, 0, 6) and find.status() == "find: needle three · 3/3"
