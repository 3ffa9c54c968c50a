"""The headings keyword search weighs, for a note over ``notes.largeNoteChars``, are those of its
opening, on every backend: the rest of the body stays searchable as body text.

Every save of a 39 MB note parsed all of it for its headings (13.5 s: ``noted edit``, the tool
``update_note``, an import), and on Joplin the first search after such a note changed did the same.
The notes here are small (60,000 characters) with a small limit set through the setting itself, so
the test also checks that the setting reaches where the store and the search are built.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS
from tests.support.joplin import shared_server
from tests.support.polling import wait_for
from tests.unit.test_large_notes import long_body

from noted.markdown import opening
from noted.models import NoteDraft
from noted.profile import Profile
from noted.services import Services
from noted.settings import Settings
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.settings.registry import env_names

PART = 20_000


@pytest.fixture(params=BACKENDS)
def services(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Services]:
    environ = {"NOTED_SEARCH_INDEXER_ENABLED": "false", env_names(LARGE_NOTE_CHARS.key)[0]: str(PART)}
    vault = None
    if request.param == "joplin":
        joplin = shared_server(tmp_path)
        joplin.wipe()
        environ |= {
            "NOTED_BACKEND": "joplin",
            "NOTED_JOPLIN_URL": joplin.url,
            "NOTED_JOPLIN_TOKEN": joplin.token,
        }
    elif request.param == "vault":
        vault = tmp_path / "vault"
        vault.mkdir()
    profile = Profile(tmp_path / "profile").ensure()
    opened = Services.open(
        profile,
        welcome=False,
        settings=Settings.load(profile, environ=environ),
        vault=None if vault is None else str(vault),
    )
    try:
        yield opened
    finally:
        opened.close()


def test_a_heading_past_the_opening_weighs_as_body_text_only(services: Services) -> None:
    """Three notes of the same length and words, over the limit: "Early" has the word as a heading
    in its opening, "Late" as a heading past it, "Text" twice as plain text past it. A heading
    outweighs the word twice in the text, so with every heading weighed "Late" ranks above "Text":
    the order asked for can only come from headings read from the opening."""
    base = long_body()
    cut = len(opening(base, PART))
    assert base.index("## Section 3\n") < cut < len(base) - 1_000  # "Early" in the opening, the ends past it

    def body(early: str, end: str) -> str:
        return base.replace("## Section 3\n", f"## {early}\n\n## Section 3\n", 1) + end

    bodies = {
        "Early": body("Aardvarkian", "\nplain words\n"),
        "Late": body("Preface", "\n## Aardvarkian\n\nplain\n"),
        "Text": body("Preface", "\naardvarkian aardvarkian\n"),
    }
    store = services.store
    folder = store.create_folder("Big", actor="user").id
    ids = {
        store.create_note(NoteDraft(t, b, parent_id=folder), actor="user").id: t for t, b in bodies.items()
    }

    def ranked() -> list[str]:
        return [ids[h.note_id] for h in services.keyword.search("aardvarkian").hits if h.note_id in ids]

    wait_for(lambda: len(ranked()) == 3, what="the three notes found")  # each found, "Late" as text
    assert ranked() == ["Early", "Text", "Late"]
