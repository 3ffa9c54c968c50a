"""A note larger than ``notes.largeNoteChars`` is read and indexed from its opening, on every backend,
and still given whole wherever a note's text is asked for.

A 39 MB note in a running Joplin stalled the app for minutes at 5 GB (the reader parsed and drew it
all) and held the indexing lease for twenty minutes (every chunk embedded before the next note).
The notes here are small (60,000 characters; a Markdown folder refuses a save over 5 MB) with a
small limit, so the same code runs as on a huge note.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend
from tests.support.polling import wait_for

from noted.embeddings.fake import FakeEmbedder
from noted.indexer.coverage import index_report
from noted.indexer.engine import Indexer
from noted.markdown import opening
from noted.models import NoteDraft
from noted.search.joplin import keyword_search_for
from noted.search.semantic import SemanticSearch
from noted.ui.data import load_note_view, page_text

PART = 20_000


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def long_body(chars: int = 60_000) -> str:
    """Sections of plain lines, the opening naming "zebracorn" and the end "quokkatail"."""
    parts = ["The zebracorn manifesto begins here.\n\n"]
    section = 0
    while sum(map(len, parts)) < chars - 200:
        parts.append(
            f"## Section {section}\n\n" + "river stone cloud paper window garden engine\n" * 8 + "\n"
        )
        section += 1
    parts.append("## The end\n\nOnly the quokkatail lives this far down.\n")
    return "".join(parts)


def _add(store: LocalStore, title: str, body: str) -> str:
    folder = store.create_folder("Big", actor="user").id
    return store.create_note(NoteDraft(title, body, parent_id=folder), actor="user").id


def test_the_opening_ends_at_a_line_break_within_the_limit() -> None:
    body = "abc\n" * 10
    assert opening(body, 100) is body
    assert opening(body, 10) == "abc\nabc\n"
    assert opening("x" * 50, 10) == "x" * 10  # no line break: cut at the limit


def test_the_indexer_embeds_only_the_opening_and_says_so(backend_store: LocalStore) -> None:
    body = long_body()
    big = _add(backend_store, "Huge manual", body)
    small = _add(backend_store, "Small note", "A short note about otters.")
    embedder = FakeEmbedder()
    indexer = Indexer(backend_store, backend_store.db, embedder, part_chars=PART)
    indexer.prepare()
    indexer.run_until_idle()
    with backend_store.db.read() as conn:
        ends = {
            r[0]: r[1] for r in conn.execute("SELECT note_id, max(end) FROM index_chunks GROUP BY note_id")
        }
    # Without the limit the last chunk ends at the body's end (60,000): the test can fail.
    assert set(ends) == {big, small}
    assert 0 < ends[big] <= PART < len(body)
    report = index_report(backend_store, backend_store.db)
    assert report.notes_in_part == 1 and report.notes == 2
    # Found by its title and its beginning, by meaning as by keyword.
    semantic = SemanticSearch(backend_store, backend_store.db, embedder)
    assert big in [h.note_id for h in semantic.search("zebracorn manifesto", relevance="loose")]


def test_a_note_cut_back_below_the_limit_is_no_longer_in_part(backend_store: LocalStore) -> None:
    from noted.models import NotePatch

    big = _add(backend_store, "Huge manual", long_body())
    indexer = Indexer(backend_store, backend_store.db, FakeEmbedder(), part_chars=PART)
    indexer.prepare()
    indexer.run_until_idle()
    assert index_report(backend_store, backend_store.db).notes_in_part == 1
    backend_store.update_note(big, NotePatch(body="Now short."), actor="user")
    indexer.run_until_idle()
    assert index_report(backend_store, backend_store.db).notes_in_part == 0


def test_the_reader_reads_the_opening_and_says_how_to_see_it_all(backend_store: LocalStore) -> None:
    body = long_body()
    big = _add(backend_store, "Huge manual", body)
    view = load_note_view(backend_store, big, part_chars=PART)
    assert view.partial and view.text == opening(body, PART)
    assert view.note.body == backend_store.get_note(big).body  # the note itself stays whole
    assert view.outline.sections[-1].heading != "The end"  # the outline is of what is shown
    page = page_text(view)
    assert page.startswith(view.text) and f"noted show {big}" in page and "60,0" not in view.text
    whole = load_note_view(backend_store, big, part_chars=len(body))
    assert not whole.partial and page_text(whole) == whole.text


def test_keyword_search_still_finds_the_whole_of_a_long_note(backend_store: LocalStore) -> None:
    """Keyword search covers all of it (only the reader and the index by meaning stop short)."""
    big = _add(backend_store, "Huge manual", long_body())
    search = keyword_search_for(backend_store)
    wait_for(
        lambda: big in [h.note_id for h in search.search("quokkatail").hits], what="the note's end found"
    )


def test_a_hit_in_a_long_note_names_a_section_of_its_opening_only(backend_store: LocalStore) -> None:
    """Finding the section of a hit parsed the whole body (40 s for 39 MB, on every search that
    found the note); past the opening the hit names no section, as the reader shows none there."""
    body = long_body().replace("Section 3\n\n", "Section 3\n\nThe wombatfold lives here.\n\n", 1)
    big = _add(backend_store, "Huge manual", body)
    search = keyword_search_for(backend_store)
    search.part_chars = PART
    wait_for(
        lambda: big in [h.note_id for h in search.search("quokkatail").hits], what="the note's end found"
    )
    (end,) = [h for h in search.search("quokkatail").hits if h.note_id == big]
    assert end.section is None and "quokkatail" in end.snippet  # the whole note would say "… The end"
    (early,) = [h for h in search.search("wombatfold").hits if h.note_id == big]
    assert early.section_heading == "Section 3"
