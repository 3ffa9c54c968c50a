"""Following the folder while noted runs: each batch of file events becomes one mirror transaction.

watchfiles (the Rust ``notify`` crate, which uvicorn's reload uses) rather than watchdog: it hands
over *batches* of changes, grouped until the folder has been quiet for ``STEP_MS`` (at most
``DEBOUNCE_MS``), which is what a ``git checkout`` of 1,000 files needs (one transaction, renames
seen as a deletion and an addition in the same batch, so a moved note keeps its id), and it stops
cleanly through an event. watchdog calls back once per event and leaves the batching to us.

Events under skipped folders (``.git/``, ``.obsidian/``…) are dropped before anything is read, but
those of ``.md`` files in ``.trash/`` (a trashed note's file is followed there: ``noted.store.vault.trash``);
``.gitignore`` itself is followed (it changes what is skipped). A failing batch is logged and the
next batch or the next start-up scan brings the mirror up to date: the files stay the truth.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import watchfiles

from noted.store.vault.follow import FollowStopped
from noted.store.vault.trash import in_trash

if TYPE_CHECKING:
    from noted.store.vault.store import VaultStore

log = logging.getLogger(__name__)

STEP_MS = 50
DEBOUNCE_MS = 600
POLL_S = 2


class Watcher:
    """A thread that applies the folder's changes to the store's mirror until ``stop``."""

    def __init__(self, store: VaultStore) -> None:
        self.store = store
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._batches = 0
        """Batches applied since the watch last failed (``_run``)."""
        self.problem = ""
        """While the folder is scanned rather than watched, a line saying so and why (else "")."""
        self._thread = threading.Thread(target=self._run, name="noted-vault-watch", daemon=True)

    def start(self) -> Watcher:
        self.store.follower.stopping = self._stop.is_set
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()  # a batch under way stops at its next file and rolls back

    def _run(self) -> None:
        """Watch until ``stop``. The watch fails on a path it cannot give (a name that is not UTF-8:
        ``WatchfilesRustInternalError``, at once while such a folder is there): the folder is then
        scanned every ``POLL_S`` seconds, and watched again, until the watch holds."""
        root = self.store.vault.root
        failing = False
        try:
            while not self._stop.is_set():
                try:
                    self._watch(root)
                    return
                except Exception as exc:
                    if not failing or self._batches:
                        log.warning(
                            "watching %s failed; scanning it every %d s instead", root, POLL_S, exc_info=True
                        )
                    failing, self._batches = True, 0
                    self.problem = (
                        f"Outside changes are picked up by a scan every {POLL_S} s: {_why(exc, root)}."
                    )
                    self._ready.set()
                    self._safely(lambda: self.store.follower.scan())
                    self._stop.wait(POLL_S)
        finally:
            self._ready.set()

    def _watch(self, root: Path) -> None:
        # The first scan after the watch is set up catches what changed while it was being set up.
        changes = watchfiles.watch(
            root,
            stop_event=self._stop,
            step=STEP_MS,
            debounce=DEBOUNCE_MS,
            watch_filter=None,
            rust_timeout=500,
            yield_on_timeout=True,
            raise_interrupt=False,
        )
        first = True
        for batch in changes:
            if first:
                first = False
                self.problem = ""  # the watch holds (again)
                self._ready.set()
                self._safely(lambda: self.store.follower.scan())
            paths = self._relevant(root, {p for _, p in batch})
            if paths:
                self._safely(functools.partial(self.store.follower.apply, paths))
                self._batches += 1

    def _relevant(self, root: Path, paths: set[str]) -> list[str]:
        vault = self.store.vault
        out = []
        for path in paths:
            rel = vault.rel(Path(path))
            if not rel:
                continue
            followed = not vault.skipped_dir(rel.rpartition("/")[0]) or in_trash(rel) and rel.endswith(".md")
            if rel == ".gitignore" or followed:  # (in .trash/: a trashed note's file, ``trash``)
                name = rel.rpartition("/")[2]
                if rel == ".gitignore" or not name.startswith("."):
                    out.append(rel)
        return sorted(out)

    def _safely(self, work: Callable[[], object]) -> None:
        try:
            work()
        except FollowStopped:
            pass
        except Exception:
            log.exception("bringing the Markdown folder's changes into noted failed; the next change retries")


def _why(error: Exception, root: Path) -> str:
    """Why the watch failed, in the person's words (watchfiles names a path it cannot decode)."""
    text = str(error) or type(error).__name__
    found = re.search(r'decode path "(.*)" to string', text)
    if found is None:
        return f"the folder cannot be watched ({text})"
    name = found.group(1).removeprefix(str(root)).lstrip("/")
    return f'the folder cannot be watched while a name in it is not UTF-8 ("{name}": rename it)'
