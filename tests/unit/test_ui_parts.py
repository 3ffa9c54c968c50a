"""The parts of the terminal app that run without a screen: queries, tag edits, $EDITOR, status text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.support.polling import scaled

from noted.errors import InvalidInputError, NotedError
from noted.indexer.engine import IndexProgress
from noted.indexer.lease import Lease
from noted.indexer.service import IndexStatus
from noted.models import ACTOR_IMPORT, NoteDraft
from noted.ops.editing import edit_text, editor_command
from noted.ops.trash import TrashContents, trash_contents
from noted.store.protocol import NoteOrder
from noted.store.sqlite import SqliteStore
from noted.ui.data import (
    ALL_NOTES,
    NoteSource,
    SourceKind,
    load_note_view,
    load_page,
    load_tree,
)
from noted.ui.widgets.markdown_theme import markdown_theme
from noted.ui.widgets.note_header import note_header
from noted.ui.widgets.status_bar import format_index
from noted.ui.widgets.triage import parse_tag_edit


def _notes(store: SqliteStore, count: int) -> tuple[str, str]:
    top = store.create_folder("Top", actor=ACTOR_IMPORT)
    inner = store.create_folder("Inner", parent_id=top.id, actor=ACTOR_IMPORT)
    for n in range(count):
        store.create_note(
            NoteDraft(
                title=f"n{n:03}",
                parent_id=inner.id if n % 2 else top.id,
                user_updated_time=1000 + n,
                tags=("t",),
            ),
            actor=ACTOR_IMPORT,
        )
    return top.id, inner.id


def test_pages_cover_every_note_once_and_say_when_more_follow(store: SqliteStore) -> None:
    _notes(store, 25)
    first = load_page(store, ALL_NOTES, NoteOrder.UPDATED, 0, 10)
    last = load_page(store, ALL_NOTES, NoteOrder.UPDATED, 20, 10)
    assert first.has_more and not last.has_more
    assert [r.meta.title for r in first.rows][:2] == ["n024", "n023"]  # newest first
    assert len(last.rows) == 5 and first.rows[0].tags == ("t",)


def test_the_tree_counts_notes_of_sub_notebooks_in_their_parents(store: SqliteStore) -> None:
    top, inner = _notes(store, 10)
    tree = load_tree(store)
    (root,) = tree.roots
    assert (root.folder.id, root.own, root.total) == (top, 5, 10)
    assert root.children[0].folder.id == inner and root.children[0].total == 5
    assert tree.total_notes == 10 and [t.title for t in tree.tags] == ["t"]


def test_a_note_view_lists_links_and_sections(store: SqliteStore) -> None:
    folder = store.create_folder("F", actor=ACTOR_IMPORT)
    target = store.create_note(NoteDraft(title="Target", parent_id=folder.id), actor=ACTOR_IMPORT)
    body = f"# One\n\nsee [it](:/{target.id})\n\n## Two\n"
    note = store.create_note(NoteDraft(title="Source", body=body, parent_id=folder.id), actor=ACTOR_IMPORT)
    view = load_note_view(store, note.id)
    assert [(s.path, s.heading) for s in view.outline.headings] == [("1", "One"), ("1.1", "Two")]
    assert [link.title for link in view.links] == ["Target"] and view.notebook == "F"


def test_a_search_source_lists_the_hits(store: SqliteStore) -> None:
    from noted.search.keyword import KeywordSearch

    _notes(store, 5)
    page = load_page(
        store, NoteSource(SourceKind.SEARCH, "n003"), NoteOrder.UPDATED, keyword=KeywordSearch(store)
    )
    assert [r.meta.title for r in page.rows] == ["n003"]


def test_tag_edits_add_and_remove() -> None:
    assert parse_tag_edit("work, -draft #urgent") == (["work", "urgent"], ["draft"])
    assert parse_tag_edit(" - ") == ([], [])
    # quotes group words into one name and are not part of it; an apostrophe is part of a name
    assert parse_tag_edit('-"Q3 plan", "Q4 goal" don\'t') == (["Q4 goal", "don't"], ["Q3 plan"])
    with pytest.raises(ValueError):
        parse_tag_edit('"Q3 plan')


def test_external_edit_returns_the_edited_text_and_keeps_the_file(tmp_path: Path) -> None:
    def editor(path: Path) -> int:
        path.write_text(path.read_text() + "more\n")
        return 0

    result = edit_text("text\n", title="A note / with slashes", profile_root=tmp_path, run=editor)
    assert result.text == "text\nmore\n" and result.changed
    assert result.path.exists()  # removed by the caller once the text is saved
    result.path.unlink()


def test_the_app_gives_the_editor_a_final_newline(tmp_path: Path) -> None:
    def editor(path: Path) -> int:
        path.write_text(path.read_text() + "more\n")  # as `echo more >> file` would
        return 0

    # Issue 39: "text" went to the editor as it was, and came back as "textmore".
    result = edit_text("text", title="t", profile_root=tmp_path, run=editor)
    assert result.text == "text\nmore\n" and result.changed
    result.path.unlink()
    untouched = edit_text("text", title="t", profile_root=tmp_path, run=lambda path: 0)
    assert untouched.text == "text" and not untouched.changed  # the newline added is no change
    untouched.path.unlink()


def test_an_editor_that_fails_saves_nothing_and_says_where_the_text_is(tmp_path: Path) -> None:
    with pytest.raises(NotedError, match="status 1") as failed:
        edit_text("text", title="t", profile_root=tmp_path, run=lambda path: 1)
    assert not isinstance(failed.value, InvalidInputError)  # a refusal (exit 1), not bad input


def test_the_editor_command_comes_from_visual_then_editor() -> None:
    assert editor_command({"VISUAL": "code -w", "EDITOR": "vim"}) == ["code", "-w"]
    assert editor_command({"EDITOR": "nano"}) == ["nano"]
    assert editor_command({}) == ["vi"]


def test_index_status_reads_as_progress_holder_or_up_to_date() -> None:
    progress = IndexProgress("scan", 1240, 10000, 48.0, 300.0)
    assert format_index(IndexStatus("indexing", progress)) == "indexing 1,240/10,000 · 48 chunks/s"
    assert format_index(IndexStatus("standby", holder="the app (pid 4242)")) == (
        "search index kept up to date by the app (pid 4242)"  # a holder in words stays as it is
    )
    assert format_index(IndexStatus("idle", IndexProgress("idle", 5, 5, 0.0, None))) == "index up to date"
    # Issue 39: a new profile said "index starting…" for ~27 s (the model's copy) with no reason.
    # Now it says so only while the copy is made (tests/unit/test_index_preparing.py).
    assert "preparing" not in format_index(IndexStatus("starting"))
    assert "first time, ~30 s" in format_index(IndexStatus("starting", preparing=True))


@pytest.mark.parametrize(("label", "words"), [("tui", "the app"), ("noted index", "noted index")])
def test_the_index_holder_is_said_in_words_not_as_the_lease_records_it(
    store: SqliteStore, label: str, words: str
) -> None:
    lease = Lease(store.db, label=label)
    assert lease.acquire()
    holder = lease.holder()
    # Not vacuous: this showed as "index kept by tui (vm:27730:54250d96)" (before i16-index's lease
    # described its holder), then "index kept by the app (pid …)", which says nothing of what it does.
    assert format_index(IndexStatus("standby", holder=holder)) == (
        f"search index kept up to date by {words} (pid {os.getpid()})"
    )
    assert format_index(IndexStatus("standby")) == "search index kept up to date by another noted"


def test_the_tree_counts_to_dos_trash_and_live_notes_per_tag(store: SqliteStore) -> None:
    folder = store.create_folder("F", actor=ACTOR_IMPORT)
    store.create_note(
        NoteDraft(title="Do", parent_id=folder.id, is_todo=True, tags=("a",)), actor=ACTOR_IMPORT
    )
    gone = store.create_note(
        NoteDraft(title="Gone", parent_id=folder.id, tags=("a", "b")), actor=ACTOR_IMPORT
    )
    store.create_tag("unused", actor=ACTOR_IMPORT)
    store.trash_note(gone.id, actor=ACTOR_IMPORT)
    tree = load_tree(store)
    assert (tree.todo_count, tree.trashed_note_count, tree.total_notes) == (1, 1, 1)
    assert [(t.title, t.note_count) for t in tree.tags] == [("a", 1)]  # the trashed note counts for none
    every = {t.title: t.note_count for t in store.list_tags()}
    assert every == {"a": 1, "b": 0, "unused": 0}
    assert store.find_tag("a").note_count == 1  # type: ignore[union-attr]  # the one-tag count agrees


def test_the_first_screen_is_read_ahead_once(tmp_path: Path) -> None:
    from noted.profile import Profile
    from noted.services import Services
    from noted.settings import Settings
    from noted.ui.speed import FirstLook

    profile = Profile(tmp_path / "profile")
    services = Services.open(profile, welcome=False, settings=Settings.load(profile, environ={}))
    try:
        _notes(services.store, 3)  # type: ignore[arg-type]
        first = FirstLook(services).start()
        first.wait(timeout=scaled(60))
        assert first.cursor == services.store.latest_cursor()
        page = first.take_page()
        assert page is not None and [r.meta.title for r in page.rows] == ["n002", "n001", "n000"]
        tree = first.take_tree()
        assert tree is not None and tree.total_notes == 3
        assert (
            first.take_page() is None and first.take_tree() is None
        )  # handed out once: later loads read afresh
    finally:
        services.close()


def test_the_first_screen_read_ahead_gives_nothing_when_the_store_fails(tmp_path: Path) -> None:
    from noted.errors import NotedError
    from noted.profile import Profile
    from noted.services import Services
    from noted.settings import Settings
    from noted.ui.speed import FirstLook

    profile = Profile(tmp_path / "profile")
    services = Services.open(profile, welcome=False, settings=Settings.load(profile, environ={}))
    try:

        def broken() -> int:
            raise NotedError("the database is busy")

        services.store.latest_cursor = broken  # type: ignore[method-assign]
        first = FirstLook(services).start()
        first.wait(timeout=scaled(60))
        assert first.take_page() is None and first.take_tree() is None  # the panes read for themselves
    finally:
        services.close()


def test_the_trash_is_counted_as_the_question_says_it(store: SqliteStore) -> None:
    top, inner = _notes(store, 5)  # three notes in Top, two in Inner (inside Top)
    assert trash_contents(store).empty and str(trash_contents(store)) == "nothing"
    store.trash_folder(top, actor=ACTOR_IMPORT)  # Top and Inner go, with all five notes
    trashed = trash_contents(store)
    assert (trashed.notes, trashed.notebooks, str(trashed)) == (5, 2, "5 notes and 2 notebooks")
    assert trashed.notebook_ids == {top, inner}

    def of(notes: int, notebooks: int) -> str:
        return str(TrashContents(frozenset(map(str, range(notes))), frozenset(map(str, range(notebooks)))))

    assert of(12, 2) == "12 notes and 2 notebooks" and of(1, 0) == "1 note" and of(0, 1) == "1 notebook"


def test_markdown_colours_accept_a_theme_whose_heading_style_is_none() -> None:
    # Textual's ansi themes: "none" for h3 and h5, colours that are not plain hex. Not vacuous:
    # "none #aabbcc" was handed to Rich as one style, which raised and stopped the app.
    variables = {
        "markdown-h3-text-style": "none",
        "markdown-h1-text-style": "bold",
        "foreground": "ansi_default",
    }
    theme = markdown_theme(variables, dark=True)
    assert theme.styles["markdown.h3"].bold is None and theme.styles["markdown.h1"].bold is True
    assert markdown_theme({"markdown-h2-text-style": "not a style"}, dark=False).styles["markdown.h2"]


def test_a_path_is_completed_as_far_as_the_files_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from noted.ui.attachment_files import complete_path

    (tmp_path / "Documents").mkdir()
    (tmp_path / "Downloads").mkdir()
    (tmp_path / "notes.md").write_text("x")
    (tmp_path / ".hidden").write_text("x")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert complete_path("~/Doc") == "~/Documents/"  # a folder ends in /, the ~ is kept
    assert complete_path("~/D") == "~/Do"  # as far as Documents and Downloads agree
    assert complete_path("~/n") == "~/notes.md"
    assert complete_path("~/") is None  # Documents, Downloads and notes.md share nothing
    assert complete_path("~/.h") == "~/.hidden"  # hidden files once a dot is typed
    assert complete_path("~/nothing") is None and complete_path(str(tmp_path / "no" / "x")) is None


def test_an_open_to_dos_due_time_shows_in_the_list_and_the_reader(store: SqliteStore) -> None:
    """The app drew no due time anywhere (``noted show`` prints it): an overdue to-do looked like
    any other."""
    from noted.markdown import outline
    from noted.ui.data import NoteRow, NoteView
    from noted.ui.widgets.note_rows import row_prompt

    inbox = store.create_folder("Inbox", actor="user").id
    made = {
        title: store.create_note(
            NoteDraft(title, "x", inbox, is_todo=True, todo_due=due, todo_completed=done), actor="user"
        )  # fmt: skip
        for title, due, done in (
            ("Overdue", 1_577_836_800_000, 0),
            ("Later", 4_102_444_800_000, 0),
            ("Done", 1_577_836_800_000, 1),
            ("No date", 0, 0),
        )  # fmt: skip
    }
    for title, note in made.items():
        meta = next(m for m in store.list_notes() if m.id == note.id)
        listed = row_prompt(NoteRow(meta, ()), False, NoteOrder.UPDATED)
        view = NoteView(note, "Inbox", (), (), (), outline(note.body), note.body)
        header = note_header(view)
        for drawn in (listed, header):
            assert ("due " in drawn.plain) == (title in ("Overdue", "Later")), (title, drawn.plain)
            if title == "Overdue":
                assert "due 2020-01-01" in drawn.plain
                assert any("error" in str(span.style) for span in drawn.spans), drawn.spans


def test_a_time_out_of_range_in_a_profile_is_drawn_at_the_edge_of_the_range() -> None:
    """A Joplin note or an older profile may hold a time past the year 9999: the list and the reader
    raised on it (``time.localtime``), so the app could not show the notebook."""
    from noted.ui.widgets.note_rows import when

    assert when(10**17).startswith("9999-12-3") and when(-(10**17)).startswith("0001-01-0")
    assert when(0) == "" and when(1_577_836_800_000)[:4] in ("2019", "2020")
