"""A Markdown folder noted cannot watch (a folder whose name is not UTF-8: watchfiles fails on it)
is scanned every 2 s instead. Before, only the log said so; now the app says it once, with why, keeps
it in the status bar while it lasts, and says when the watch holds again (Pilot, real folder)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.integration.ui_support import until
from tests.support.polling import wait_for
from tests.support.vaults import opened
from textual.notifications import Notification

from noted.profile import Profile
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.widgets.status_bar import StatusBar

TITLE = "Markdown folder"


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "plan.md").write_text("# Plan\n\nFirst step.\n", encoding="utf-8")
    os.mkdir(os.fsencode(folder) + b"/caf\xe9")  # watchfiles cannot give this path: the watch fails
    return folder


def _mend(folder: Path) -> None:
    os.rename(os.fsencode(folder) + b"/caf\xe9", os.fsencode(folder) + b"/cafe")


def test_the_store_says_why_it_scans_and_forgets_it_once_watched(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    with opened(folder, tmp_path / "profile") as store:
        store.start_watching()
        wait_for(lambda: bool(store.watch_problem), what="the watch to fail")
        assert store.watch_problem == (
            "Outside changes are picked up by a scan every 2 s: the folder cannot be watched while a "
            'name in it is not UTF-8 ("caf\\xE9": rename it).'
        )
        _mend(folder)
        wait_for(lambda: store.watch_problem == "", what="the watch to hold again")


def _said(app: NotedApp) -> list[Notification]:
    return [n for n in app._notifications if n.title == TITLE]


async def test_the_app_says_once_that_the_folder_is_scanned_and_when_it_is_watched_again(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path)
    services = Services.open(Profile(tmp_path / "p").ensure(), vault=str(folder), welcome=False)
    app = NotedApp(services)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            bar = app.workspace.query_one(StatusBar)
            await until(pilot, lambda: bool(_said(app)))
            assert "scan every 2 s" in _said(app)[0].message and "caf\\xE9" in _said(app)[0].message
            assert bar.part("folder") == "folder scanned, not watched"
            # A scan after the watch failed again brings this note: the notice was still said once.
            (folder / "later.md").write_text("# Later\n", encoding="utf-8")
            await until(pilot, lambda: any(m.title == "Later" for m in services.store.list_notes()))
            assert len(_said(app)) == 1  # not every 2 s (the follower reads the problem 4 times a second)
            _mend(folder)
            await until(pilot, lambda: bar.part("folder") == "")
            assert _said(app)[-1].message == "Watched again: outside changes show at once."
    finally:
        services.close()
