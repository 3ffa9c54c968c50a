"""The Joplin store: a running Joplin's notes through its Data API, with a local sidecar.

    store = JoplinStore.open(profile.root, url="", token=token)   # "" finds Joplin from port 41184
    store.list_folders()
    store.db          # the sidecar Database: the indexer, the lease and the chats keep their tables there

The store owns one part per kind of item, each a module of this package (``Folders``, ``Notes``,
``Tags``, ``Resources``, ``History``, and ``ConflictCopies``, its ``conflicts``), all working
through one ``JoplinApi``; it answers the ``Store`` protocol by handing each method to its part.

Writes are sent to Joplin one by one (it has no transactions, so ``batch()`` groups nothing: it
records the attachments a batch uploads or deletes, tidied when a kill cuts it short:
``noted.store.joplin.half_done``);
each is recorded in the sidecar with its actor, so the change feed and ``note_history`` say who
made it. What Joplin does not keep (actors, noted's revisions) lives in the sidecar, keyed by
Joplin ids; the notes, notebooks, tags and attachments stay in Joplin.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from noted.store.history.thinning import Thinning
from noted.store.joplin.base import JoplinApi
from noted.store.joplin.client import READ_DEADLINE, JoplinClient
from noted.store.joplin.events import EventFeed
from noted.store.joplin.folders import Folders
from noted.store.joplin.half_done import HalfDone
from noted.store.joplin.history import History
from noted.store.joplin.notes import Notes
from noted.store.joplin.resources import Resources
from noted.store.joplin.sidecar import SIDECAR_NAME, Sidecar
from noted.store.joplin.sync_command import JoplinSync
from noted.store.joplin.sync_conflicts import ConflictCopies
from noted.store.joplin.tags import Tags
from noted.store.parts import Parts
from noted.store.protocol import Capabilities
from noted.store.sqlite.db import Database
from noted.store.sync import SyncConflicts, Syncing

CACHE_FOLDER = "joplin-resources"
"""Where downloaded attachment files are kept, beside the sidecar."""


class JoplinStore(Parts):
    """A ``Store`` over a running Joplin's Data API.

    Safe for several threads: the HTTP client is thread-safe, and the sidecar has one SQLite
    connection per thread.
    """

    capabilities = Capabilities(transactions=False, listed_lengths=False)

    def __init__(self, client: JoplinClient, sidecar: Sidecar, cache_dir: Path) -> None:
        self.client = client
        self.sidecar = sidecar
        self.api = api = JoplinApi(client, sidecar, EventFeed(client, sidecar))
        self.history = history = History(api)
        self.tags = tags = Tags(api)
        self.folders = folders = Folders(api, tags)
        self.notes = notes = Notes(api, tags, folders, history)
        self.half_done = HalfDone(sidecar.db)
        self.resources = resources = Resources(api, cache_dir, self.half_done)
        self.deleting = self.half_done.deleting
        super().__init__(folders, notes, tags, resources, history)
        self.sync: Syncing = JoplinSync(sidecar.db)
        """Joplin's sync, run by the configured command (``joplin.syncCommand``)."""
        self.conflicts: SyncConflicts = ConflictCopies(api, notes, folders)
        """The conflict copies Joplin's sync made."""
        self.recent_notes = history.recent_notes
        self.saved_since = notes.saved_since
        self.folders_titled = folders.folders_titled
        self.half_done.tidy_in_background(resources.tidy)

    def __repr__(self) -> str:
        return f"JoplinStore(url={self.client.url!r}, sidecar={str(self.sidecar.db.path)!r})"

    @classmethod
    def open(
        cls,
        profile_dir: Path,
        *,
        url: str,
        token: str,
        read_deadline: float = READ_DEADLINE,
        timeout: float = 30.0,
        thinning: Thinning | None = None,
    ) -> JoplinStore:
        """The store for the Joplin at ``url`` (``""``: found on this machine), its sidecar in ``profile_dir``.

        Nothing is asked of Joplin here: a Joplin that is off is reported by the first call that
        needs it, so the app and the MCP server start anyway.
        """
        client = JoplinClient(url, token, read_deadline=read_deadline, timeout=timeout)
        try:
            sidecar = Sidecar.open(profile_dir / SIDECAR_NAME, thinning)
        except BaseException:
            client.close()
            raise
        return cls(client, sidecar, profile_dir / CACHE_FOLDER)

    @property
    def db(self) -> Database:
        """The sidecar database (the semantic index, the chats and the lease live there)."""
        return self.sidecar.db

    @property
    def url(self) -> str:
        """The Data API's address (``""`` until it has been found)."""
        return self.client.url

    def start_watching(self) -> None:
        """Pace the polls of Joplin's ``/events`` while this process follows the feed: Joplin logs
        every request (``noted.store.joplin.events``)."""
        self.api.feed.pace()

    def close(self) -> None:
        self.half_done.stop()
        self.client.close()
        self.sidecar.close()

    def batch(self) -> contextlib.AbstractContextManager[None]:
        """Joplin has no transactions: the writes inside are sent one by one, and the attachments
        they upload or delete are recorded, so a batch cut short is tidied by the next one
        (``noted.store.joplin.half_done``)."""
        return self.half_done.batch(self.resources.tidy)
