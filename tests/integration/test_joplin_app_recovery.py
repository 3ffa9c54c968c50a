"""The app opened on a Joplin that is off: it says so, keeps trying, and shows the notes once Joplin
is back, without a restart.

A Joplin of the test's own (the run's shared one must stay up for the other tests) is started
once to hold a note, stopped, and started again while the app is open.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.ui_support import open_services, until
from tests.support.joplin import JoplinServer, own_server
from textual.message import Message
from textual.notifications import Notify

from noted.ui.app import NotedApp
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.notebook_tree import NotebookTree


@pytest.fixture
def joplin(tmp_path: Path) -> Iterator[JoplinServer]:
    with own_server(tmp_path / "joplin") as server:
        yield server


async def test_an_app_started_while_joplin_is_off_shows_the_notes_once_it_is_back(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    title = f"Made before {secrets.token_hex(3)}"
    folder = joplin.api("POST", "/folders", {"title": "Kept in Joplin"})["id"]
    joplin.api("POST", "/notes", {"title": title, "body": "x", "parent_id": folder})
    joplin.stop()
    services = open_services(
        tmp_path / "profile", backend="joplin", joplin_url=joplin.url, joplin_token=joplin.token
    )
    said: list[str] = []

    def hear(message: Message) -> None:
        if isinstance(message, Notify):
            said.append(message.notification.message)

    try:
        app = NotedApp(services)
        async with app.run_test(size=(120, 40), message_hook=hear) as pilot:
            await until(
                pilot, lambda: any("not reachable" in s for s in said), what="the notice that Joplin is off"
            )
            assert not app.workspace.query_one(NoteList).rows
            await asyncio.to_thread(joplin.start)
            # Before: the follower took Joplin's newest change as where to start, found nothing
            # after it, and the panes whose first read had failed stayed empty until a restart.
            await until(
                pilot,
                lambda: [r.meta.title for r in app.workspace.query_one(NoteList).rows] == [title],
                what="the note listed",
            )
            tree = app.workspace.query_one(NotebookTree)
            await until(
                pilot,
                lambda: any("Kept in Joplin" in str(node.label) for node in tree.root.children),
                what="the notebook",
            )
            assert any("read again" in s for s in said), said
    finally:
        services.close()
