"""A fixed profile for the terminal-app tests, and a way to wait for the app without sleeping.

Every time a screen shows is a ``user_*_time`` set here, and the tests run in UTC, so snapshots
are the same on every machine and every day.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.polling import DEFAULT_TIMEOUT, wait_for_async
from textual.pilot import Pilot

from noted.models import ACTOR_IMPORT, NoteDraft
from noted.profile import Profile
from noted.services import Services
from noted.settings import Settings
from noted.store.sqlite import SqliteStore

T0 = 1_700_000_000_000  # 2023-11-14 22:13 UTC
HOUR = 3_600_000

RELEASE_BODY = (
    """\
Plans for the spring release.

# Goals

Ship search by meaning and the terminal app.

## Must have

- keyboard-only triage
- the outline beside each note

## Nice to have

Themes as data files.

# Schedule

"""
    + "\n".join(f"Line {n} of the schedule, long enough to need scrolling." for n in range(60))
    + """

## Week 1

Freeze the store protocol.

## Week 2

Write the README.

"""
    + "\n".join(f"Task {n} of the second week." for n in range(40))
    + "\n"
)


@dataclass(frozen=True)
class Fixture:
    """The profile folder and the ids of what it holds."""

    root: Path
    work: str
    projects: str
    home: str
    release: str
    groceries: str
    meeting: str
    ideas: str


def build_profile(root: Path) -> Fixture:
    """Notebooks Work (with Projects inside) and Home; four notes with fixed times and tags."""
    profile = Profile(root).ensure()
    store = SqliteStore.open(profile.db_path, profile.resources_dir)
    try:
        work = store.create_folder("Work", actor=ACTOR_IMPORT)
        projects = store.create_folder("Projects", parent_id=work.id, actor=ACTOR_IMPORT)
        home = store.create_folder("Home", actor=ACTOR_IMPORT)

        def note(title: str, parent: str, hours: int, body: str, **extra: object) -> str:
            draft = NoteDraft(
                title=title, body=body, parent_id=parent, user_created_time=T0 + hours * HOUR - HOUR,
                user_updated_time=T0 + hours * HOUR, **extra,  # type: ignore[arg-type]
            )  # fmt: skip
            return store.create_note(draft, actor=ACTOR_IMPORT).id

        release = note("Release plan", projects.id, 4, RELEASE_BODY, tags=("plan", "work"))
        meeting = note("Meeting notes", work.id, 3, "# Monday\n\nTalked about the release.\n", tags=("work",))
        groceries = note("Groceries", home.id, 2, "- milk\n- bread\n", is_todo=True)
        ideas = note("Ideas", home.id, 1, f"See the [release plan](:/{release}).\n")
    finally:
        store.close()
    return Fixture(root, work.id, projects.id, home.id, release, groceries, meeting, ideas)


def open_services(root: Path, **settings: str) -> Services:
    """Services on the profile with the indexer off (tests that want it pass ``search_indexer_enabled``)."""
    environ = {"NOTED_SEARCH_INDEXER_ENABLED": "false", "NOTED_AI_ENABLED": "false"}
    environ.update({f"NOTED_{key.upper()}": value for key, value in settings.items()})
    profile = Profile(root).ensure()
    return Services.open(profile, welcome=False, settings=Settings.load(profile, environ=environ))


def use_utc() -> None:
    """Show times in UTC (the caller's monkeypatch restores TZ; tzset picks it up)."""
    os.environ["TZ"] = "UTC"
    time.tzset()


async def until(
    pilot: Pilot[Any],
    predicate: Callable[[], bool],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    what: str | None = None,
) -> None:
    """Let the app run until ``predicate()`` holds; fail after ``timeout`` (scaled) seconds of waiting."""
    await wait_for_async(predicate, what=what, timeout=timeout, pause=pilot.pause)


async def ready(pilot: Pilot[Any]) -> None:
    """Wait until the app shows the sample profile: its four notes listed and one open."""
    from noted.ui.app import NotedApp
    from noted.ui.widgets.note_list import NoteList
    from noted.ui.widgets.note_viewer import NoteViewer
    from noted.ui.widgets.notebook_tree import NotebookTree

    app = pilot.app
    assert isinstance(app, NotedApp)
    await until(pilot, lambda: bool(app.workspace.query(NoteList)))  # composed
    await until(pilot, lambda: len(app.workspace.query_one(NoteList).rows) == 4)
    await until(pilot, lambda: app.workspace.query_one(NotebookTree).ready)  # the list may come first
    await until(pilot, lambda: app.workspace.query_one(NoteViewer).view is not None)
    # Its backlinks come a moment after it shows (``noted.ui.widgets.backlinks_later``); a reader
    # too narrow to show (80×24) waits for its width, and looks for them once it has it.
    viewer = app.workspace.query_one(NoteViewer)
    await until(pilot, lambda: viewer.reader.parked or not viewer.view.backlinks_due)  # type: ignore[union-attr]
