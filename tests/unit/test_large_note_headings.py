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


def _open(profile: Profile, vault: Path | None, part: int, **environ: str) -> Services:
    """Services on ``profile`` with ``notes.largeNoteChars`` at ``part``, set through the setting."""
    environ |= {"NOTED_SEARCH_INDEXER_ENABLED": "false", env_names(LARGE_NOTE_CHARS.key)[0]: str(part)}
    return Services.open(
        profile,
        welcome=False,
        settings=Settings.load(profile, environ=environ),
        vault=None if vault is None else str(vault),
    )


@pytest.fixture(params=BACKENDS)
def services(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Services]:
    environ: dict[str, str] = {}
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
    opened = _open(Profile(tmp_path / "profile").ensure(), vault, PART, **environ)
    try:
        yield opened
    finally:
        opened.close()


def _bodies() -> dict[str, str]:
    """Three notes of the same length and words, over ``PART``: "Early" has the word as a heading
    in its opening, "Late" as a heading past it, "Text" twice as plain text past it. A heading
    outweighs the word twice in the text, so with every heading weighed "Late" ranks above "Text"."""
    base = long_body()
    cut = len(opening(base, PART))
    assert base.index("## Section 3\n") < cut < len(base) - 1_000  # "Early" in the opening, the ends past it

    def body(early: str, end: str) -> str:
        return base.replace("## Section 3\n", f"## {early}\n\n## Section 3\n", 1) + end

    return {
        "Early": body("Aardvarkian", "\nplain words\n"),
        "Late": body("Preface", "\n## Aardvarkian\n\nplain\n"),
        "Text": body("Preface", "\naardvarkian aardvarkian\n"),
    }


def _create(services: Services) -> dict[str, str]:
    """The three notes of ``_bodies`` made in ``services``: title by id."""
    store = services.store
    folder = store.create_folder("Big", actor="user").id
    made = (store.create_note(NoteDraft(t, b, parent_id=folder), actor="user") for t, b in _bodies().items())
    return {note.id: note.title for note in made}


def _ranked(services: Services, ids: dict[str, str]) -> list[str]:
    found = [ids[h.note_id] for h in services.keyword.search("aardvarkian").hits if h.note_id in ids]
    return found if len(found) == 3 else []  # each found, "Late" as text at least


def test_a_heading_past_the_opening_weighs_as_body_text_only(services: Services) -> None:
    """The order asked for can only come from headings read from the opening (``_bodies``)."""
    ids = _create(services)
    wait_for(lambda: bool(_ranked(services, ids)), what="the three notes found")
    assert _ranked(services, ids) == ["Early", "Text", "Late"]


@pytest.mark.parametrize("backend", ["sqlite", "vault"])
def test_a_changed_limit_weighs_the_headings_by_it_from_the_next_open(tmp_path: Path, backend: str) -> None:
    """The headings weighed are kept with each note, read from its opening when it was saved: with
    ``notes.largeNoteChars`` lowered, "Late" (``_bodies``) still ranked above "Text" until its next
    save, and raised back, below it. They are read again when a profile opens under another limit.
    (On Joplin, noted reads them as it searches.)"""
    profile = Profile(tmp_path / "profile").ensure()
    vault = tmp_path / "vault" if backend == "vault" else None
    if vault is not None:
        vault.mkdir()
    whole = len(_bodies()["Late"])  # every heading in the opening
    ids: dict[str, str] = {}
    for part in (whole, PART, whole):
        services = _open(profile, vault, part)
        try:
            ids.update(ids or _create(services))
            wait_for(lambda s=services: bool(_ranked(s, ids)), what="the three notes found")  # type: ignore[misc]
            # Not vacuous: with every heading weighed "Late" is second, with those of the opening third.
            assert _ranked(services, ids) == (
                ["Early", "Late", "Text"] if part == whole else ["Early", "Text", "Late"]
            )
        finally:
            services.close()


@pytest.mark.parametrize("backend", ["sqlite", "vault"])
def test_a_limit_changed_elsewhere_weighs_the_headings_by_it_while_open(tmp_path: Path, backend: str) -> None:
    """``noted config set notes.largeNoteChars`` in another terminal reached a running app's settings
    (its poll of the file, ``Settings.reload``) but not its search: the headings stayed weighed by
    the limit the profile was opened with until the app started again."""
    profile = Profile(tmp_path / "profile").ensure()
    vault = tmp_path / "vault" if backend == "vault" else None
    if vault is not None:
        vault.mkdir()
    elsewhere = Settings.load(profile)  # another process on the same config file
    elsewhere.set(LARGE_NOTE_CHARS, len(_bodies()["Late"]))  # every heading in the opening
    settings = Settings.load(profile, environ={"NOTED_SEARCH_INDEXER_ENABLED": "false"})
    services = Services.open(
        profile, welcome=False, settings=settings, vault=None if vault is None else str(vault)
    )
    try:
        ids = _create(services)
        wait_for(lambda: bool(_ranked(services, ids)), what="the three notes found")
        assert _ranked(services, ids) == ["Early", "Late", "Text"]  # not vacuous: every heading weighed
        elsewhere.set(LARGE_NOTE_CHARS, PART)
        services.settings.reload()  # as the app and the MCP server do on their poll of the file
        assert _ranked(services, ids) == ["Early", "Text", "Late"]
    finally:
        services.close()
