"""Symbols and emoji are found on every backend (``tests/unit/test_search_symbols.py`` has the rules).

On Joplin the notes changed lately are searched by noted itself (``noted.search.joplin``), the
others by Joplin's index, which is sent the symbol as typed (``tests/unit/test_joplin_query.py``).
Not vacuous: ``🎉`` was refused as having nothing to search for, and ``🎉 party`` found the plain
note too, as the symbol counted for nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend

from noted.models import NoteDraft
from noted.search.joplin import keyword_search_for


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def test_a_symbol_is_found_with_its_snippet_and_section(backend_store: LocalStore) -> None:
    folder = backend_store.create_folder("Party", actor="user")
    filler = "Words about something else entirely, at some length. " * 12
    body = f"# Start\n\n{filler}\n\n# Done\n\n{filler}The party went well 🎉 in the end.\n"
    launch = backend_store.create_note(NoteDraft("Launch ⭐", body, folder.id), actor="user")
    plain = backend_store.create_note(NoteDraft("Plain", "A party with no symbol.", folder.id), actor="user")
    search = keyword_search_for(backend_store)
    found = search.search("🎉")
    assert [h.note_id for h in found.hits] == [launch.id]
    hit = found.hits[0]
    assert "🎉" in hit.snippet and (hit.section, hit.section_heading) == ("2", "Done")
    assert [h.note_id for h in search.search("🎉 party").hits] == [launch.id]
    assert [h.note_id for h in search.search("title:⭐").hits] == [launch.id]
    assert [h.note_id for h in search.search("party -🎉").hits] == [plain.id]
