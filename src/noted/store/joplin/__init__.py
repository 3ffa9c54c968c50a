"""The Joplin backend: a running Joplin's notes through its Data API, with a local sidecar."""

from __future__ import annotations

from noted.errors import WriteOutcomeUnknownError
from noted.models import ACTOR_JOPLIN
from noted.store.joplin.base import META_FIELDS, NOTE_FIELDS, meta_of, note_meta, note_of
from noted.store.joplin.client import JoplinClient, JoplinUnreachableError, discover
from noted.store.joplin.config import open_joplin_store
from noted.store.joplin.sidecar import SIDECAR_NAME
from noted.store.joplin.store import JoplinStore

__all__ = [
    "ACTOR_JOPLIN",
    "META_FIELDS",
    "NOTE_FIELDS",
    "SIDECAR_NAME",
    "JoplinClient",
    "JoplinStore",
    "JoplinUnreachableError",
    "WriteOutcomeUnknownError",
    "discover",
    "meta_of",
    "note_meta",
    "note_of",
    "open_joplin_store",
]
