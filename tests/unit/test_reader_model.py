"""The reader model without Textual: what it shows, in which order, for each race it settles.

Each test drives ``ReaderModel`` through the events the viewer and the workspace feed it (asks,
reads coming back in any order, the page hidden, another screen on top, the editor in the way)
and checks the effects it returns, the same values they carry out. No Pilot and no threads: the
model is plain state.
"""

from __future__ import annotations

from collections.abc import Sequence

from noted.markdown import outline
from noted.models import Note
from noted.ui.data import NoteView
from noted.ui.reader_model import (
    EMPTY,
    GONE,
    KEPT,
    Announce,
    Answer,
    Ask,
    Blank,
    Copy,
    Draw,
    Edit,
    Fetch,
    FetchAhead,
    Focus,
    MakeWay,
    Park,
    ReaderModel,
    Reading,
    Surface,
)

SHOWN = Surface(drawable=True)
HIDDEN = Surface(drawable=False)
COVERED = Surface(drawable=True, covered=True)


def copy(note_id: str, drawn: str | None = None) -> Copy[str]:
    body = f"# {note_id}\n\ntext\n\n## part\n\nmore\n"
    note = Note(note_id, "f", note_id, body, 1, 1, 1, 1)
    return Copy(NoteView(note, "Notebook", (), (), (), outline(body), body), drawn)


def fetch_of(effects: Sequence[object]) -> Fetch:
    fetches = [effect for effect in effects if isinstance(effect, Fetch)]
    assert len(fetches) == 1, effects
    return fetches[0]


def test_a_note_not_read_ahead_is_fetched_then_drawn_announced_and_its_ticket_answered() -> None:
    model: ReaderModel[str] = ReaderModel()
    effects = model.open("a", "1.1", SHOWN, read_ahead=True, ticket=7)
    assert effects == [Fetch("a", "1.1", False, 0, 1)]  # nothing read ahead: read it
    assert model.wanted == "a" and model.view is None
    a = copy("a", "drawn a")
    # In order: the page first, then Shown, then the waiting screen may close.
    assert model.read(fetch_of(effects), a, SHOWN) == [Draw(a, "1.1", False), Announce("a", "1.1"), Answer(7)]
    assert model.view is a.view
    assert model.has_ahead("a")  # kept: moving back onto it needs no thread


def test_only_the_last_request_is_shown_and_the_replaced_one_is_answered_at_once() -> None:
    model: ReaderModel[str] = ReaderModel()
    first = fetch_of(model.open("a", None, SHOWN, ticket=1))
    second = model.open("b", None, SHOWN, ticket=2)
    # Not vacuous: the first ticket is answered by the second request, before any read is back.
    assert second[0] == Answer(1)
    assert model.read(first, copy("a"), SHOWN) == []  # the answer to a question no longer asked
    b = copy("b")
    assert model.read(fetch_of(second), b, SHOWN) == [Draw(b, None, False), Announce("b", None), Answer(2)]


def test_a_note_gone_meanwhile_blanks_the_reader_and_answers() -> None:
    model: ReaderModel[str] = ReaderModel()
    fetch = fetch_of(model.open("a", None, SHOWN, ticket=3))
    assert model.read(fetch, None, SHOWN) == [Answer(3), Blank(GONE)]
    assert model.wanted is None and model.view is None
    assert model.reload() == []  # nothing open: nothing to read again


def test_a_copy_read_ahead_is_drawn_at_once_until_something_changes() -> None:
    model: ReaderModel[str] = ReaderModel()
    assert model.read_ahead(["a", "b"]) == [FetchAhead(("a", "b"), 0)]
    a, b = copy("a"), copy("b")
    model.read_ahead_done((a, b), 0)
    assert model.read_ahead(["a", "b", "c"]) == [FetchAhead(("c",), 0)]  # only what it lacks
    assert model.open("b", None, SHOWN, read_ahead=True) == [Draw(b, None, False), Announce("b", None)]
    # A fresh read is asked for when the caller wants one (the note is to be edited).
    assert isinstance(model.open("a", None, SHOWN)[0], Fetch)
    model.forget()
    assert not model.has_ahead("a") and model.generation == 1
    assert isinstance(model.open("a", None, SHOWN, read_ahead=True)[0], Fetch)


def test_reads_begun_before_a_change_are_not_kept() -> None:
    model: ReaderModel[str] = ReaderModel()
    assert model.read_ahead(["a"]) == [FetchAhead(("a",), 0)]
    fetch = fetch_of(model.open("b", None, SHOWN))
    model.forget()  # a note changed while both reads were out
    model.read_ahead_done((copy("a"),), 0)  # under the generation the read began in
    b = copy("b")
    assert model.read(fetch, b, SHOWN)[0] == Draw(b, None, False)  # shown: it is the one asked for
    assert not model.has_ahead("a") and not model.has_ahead("b")  # but neither is kept as fresh


def test_at_most_sixteen_notes_are_kept_and_the_oldest_go_first() -> None:
    model: ReaderModel[str] = ReaderModel()
    model.read_ahead_done(tuple(copy(f"n{i}") for i in range(KEPT + 2)), 0)
    assert not model.has_ahead("n0") and not model.has_ahead("n1")
    assert all(model.has_ahead(f"n{i}") for i in range(2, KEPT + 2))


def test_a_note_for_a_hidden_page_is_parked_until_the_page_has_a_width() -> None:
    model: ReaderModel[str] = ReaderModel()
    fetch = fetch_of(model.open("a", "1.1", HIDDEN, ticket=4))
    a = copy("a")
    assert model.read(fetch, a, HIDDEN) == [Park(), Answer(4)]
    assert model.parked and model.view is a.view  # its actions are offered already
    assert model.settle(HIDDEN) == []  # still no width: keep waiting
    # The page's size settles a frame after: scroll to the section again then.
    assert model.settle(SHOWN) == [Draw(a, "1.1", False), Announce("a", "1.1")]
    assert not model.parked and model.settle(SHOWN) == []


def test_a_parked_note_never_follows_the_one_asked_for_after_it() -> None:
    model: ReaderModel[str] = ReaderModel()
    model.read_ahead_done((copy("a"), copy("b")), 0)
    assert model.open("a", None, HIDDEN, read_ahead=True) == [Park()]
    model.open("b", None, HIDDEN, read_ahead=True)
    assert [type(e) for e in model.settle(SHOWN)] == [Draw, Announce]  # b, the one wanted
    model.open("a", None, HIDDEN, read_ahead=True)
    b = copy("b")
    model.read_ahead_done((b,), 0)
    model.open("b", "1", SHOWN, read_ahead=True)  # drawn at once: a, still parked, is dropped
    assert not model.parked and model.settle(SHOWN) == []
    model.open("a", None, HIDDEN, read_ahead=True)
    model.clear()
    assert model.settle(SHOWN) == []


def test_under_another_screen_shown_waits_until_it_closes() -> None:
    model: ReaderModel[str] = ReaderModel()
    fetch = fetch_of(model.open("a", "2", COVERED, ticket=5))
    a = copy("a")
    # Drawn under the search screen, which closes on the answer; Shown once the workspace is on top.
    assert model.read(fetch, a, COVERED) == [Draw(a, "2", False), Answer(5)]
    assert model.uncovered() == [Announce("a", "2")]
    assert model.uncovered() == []  # said once
    fetch = fetch_of(model.open("b", None, COVERED))
    model.read(fetch, copy("b"), COVERED)
    model.clear()
    assert model.uncovered() == []  # nothing on screen to announce any more


def test_reload_keeps_the_reading_position_and_releases_a_waiting_screen() -> None:
    model: ReaderModel[str] = ReaderModel()
    model.open("a", None, SHOWN, ticket=6)
    effects = model.reload()
    assert effects == [Answer(6), Fetch("a", None, True, 0, 2)]
    a = copy("a")
    assert model.read(fetch_of(effects), a, SHOWN) == [Draw(a, None, True), Announce("a", None)]
    assert model.clear() == [Blank(EMPTY)]


# The note-open flow: the editor in the way, the focus, an edit asked before the note is shown ----
EDITING_A = Surface(drawable=False, editing=True, edited="a")


def test_a_note_asked_for_while_another_is_edited_waits_for_the_editor_to_make_way() -> None:
    model: ReaderModel[str] = ReaderModel()
    # The search screen waiting on ticket 3 closes at once: the editor may have to ask about its text.
    assert model.ask(Ask("b", ticket=3), EDITING_A) == [Answer(3), MakeWay()]
    assert model.wanted is None  # nothing is read before the editor has saved
    effects = model.made_way(True, SHOWN)
    assert effects == [Fetch("b", None, False, 0, 1), Reading(), Focus()]  # the ticket was answered already
    assert model.made_way(True, SHOWN) == []  # one ask, carried out once


def test_a_conflict_in_the_editor_drops_the_ask_and_keeps_the_editor() -> None:
    model: ReaderModel[str] = ReaderModel()
    assert model.ask(Ask("b", focus=False), EDITING_A) == [MakeWay()]
    assert model.made_way(False, EDITING_A) == []  # the list's cursor moved: the focus stays there
    assert model.wanted is None and model.request == 0
    # Enter on another note: the focus it asked for goes to the editor (``Focus`` while editing),
    # so the person's text is put in front of them, not left out of reach behind the list.
    assert model.ask(Ask("b"), EDITING_A) == [MakeWay()]
    assert model.made_way(False, EDITING_A) == [Reading(), Focus()]
    assert model.wanted is None and model.request == 0


def test_asking_for_the_note_being_edited_goes_to_the_editor_but_a_section_opens_it() -> None:
    model: ReaderModel[str] = ReaderModel()
    assert model.ask(Ask("a", ticket=4), EDITING_A) == [Answer(4), Reading(), Focus()]
    assert model.ask(Ask("a", focus=False), EDITING_A) == []  # the list's cursor on it: nothing to do
    assert model.request == 0  # not read again: the editor keeps the person's text
    # From the search screen: the focus moves once it has closed.
    covered = Surface(drawable=False, covered=True, editing=True, edited="a")
    assert model.ask(Ask("a", ticket=5), covered) == [Answer(5), Reading()]
    assert model.uncovered() == [Focus(later=True)]
    # Not vacuous: the same note at a section is a real request, so the editor makes way.
    assert model.ask(Ask("a", "1.1"), EDITING_A) == [MakeWay()]


def test_an_edit_asked_before_the_note_is_read_starts_once_it_is_shown() -> None:
    model: ReaderModel[str] = ReaderModel()
    a = copy("a")
    model.read_ahead_done((a,), 0)
    effects = model.ask(Ask("a", edit=True), SHOWN)
    # Read afresh (what is edited must be the stored text, not a copy read ahead), then edited.
    assert effects == [Fetch("a", None, False, 0, 1), Reading(), Focus()]
    assert model.shown("b") == []  # another note's Shown does not start it
    model.read(fetch_of(effects), a, SHOWN)
    assert model.shown("a") == [Edit(a.view)]
    assert model.shown("a") == []  # once
    # The note on the page already: edited at once.
    assert model.ask(Ask("a", edit=True, focus=False), SHOWN) == [Edit(a.view)]


def test_the_focus_moves_to_the_page_only_when_it_is_not_there_and_after_a_covering_screen() -> None:
    model: ReaderModel[str] = ReaderModel()
    a = copy("a")
    model.read_ahead_done((a,), 0)
    focused = Surface(drawable=True, focused=True)
    assert model.ask(Ask("a"), focused) == [Draw(a, None, False), Announce("a", None), Reading()]
    assert model.ask(Ask("a", ticket=2), SHOWN) == [Answer(2), Reading(), Focus()]  # shown: only the focus
    assert model.ask(Ask("a", focus=False), SHOWN) == []
    # Under the search screen: the note is drawn now, the focus moves once the screen has closed.
    effects = model.ask(Ask("a", "2"), COVERED)
    assert Focus() not in effects and Reading() in effects
    assert model.uncovered() == [Announce("a", "2"), Focus(later=True)]
    assert model.uncovered() == []


def test_a_copy_drawn_only_in_part_is_kept_undrawn_never_half_drawn() -> None:
    model: ReaderModel[str] = ReaderModel(whole=lambda drawn: not drawn.startswith("opening"))
    fetch = fetch_of(model.open("a", None, SHOWN))
    half = copy("a", "opening of a")
    assert model.read(fetch, half, SHOWN)[0] == Draw(half, None, False)  # shown as drawn, once
    model.open("b", None, SHOWN)
    # Not vacuous: the copy read is the one kept, and it held the opening's drawing.
    again = model.open("a", None, SHOWN, read_ahead=True)
    assert again[0] == Draw(Copy(half.view), None, False)
    whole = copy("c", "all of c")
    model.read(fetch_of(model.open("c", None, SHOWN)), whole, SHOWN)
    model.open("b", None, SHOWN)
    assert model.open("c", None, SHOWN, read_ahead=True)[0] == Draw(whole, None, False)
