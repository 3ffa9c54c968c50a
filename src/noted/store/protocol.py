"""The ``Store`` protocol: everything the rest of noted may ask of a place that keeps notes.

The embedded SQLite store (``store.sqlite``) and a running Joplin's Data API (``store.joplin``)
implement it. Every write takes an ``actor`` (``user``, ``assistant:<conversation>``,
``mcp:<client>``, ``import``, ``sync``) that the change feed and the revisions record; outside
the store itself, only the operations of ``noted.ops`` call them.

All methods are synchronous and safe to call from one thread at a time per store object; front
ends call them from worker threads. Errors are those of ``noted.errors``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from noted.models import (
    Folder,
    Note,
    NoteDraft,
    NoteMeta,
    NotePatch,
    Resource,
    ResourceVersion,
    Tag,
)
from noted.store.history_protocol import HistoryStore
from noted.store.sync import SyncConflicts, Syncing


class NoteOrder(enum.StrEnum):
    """How note listings are sorted (newest first for times, A→Z for titles)."""

    UPDATED = "updated"
    CREATED = "created"
    TITLE = "title"
    ID = "id"


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a backend can do where the backends differ (``noted.ops.batch_undo`` reads it)."""

    transactions: bool = True
    """True when ``batch()`` is all or nothing: a failure inside it writes nothing (Joplin's Data
    API has no transactions, so there each write lands as it is sent)."""
    listed_lengths: bool = True
    """True when a listing's ``NoteMeta.body_length`` is the body's length. Joplin's Data API
    cannot give one without the body, so its listings know only the lengths of the notes noted
    read since their last save and leave the others at 0: a caller that shows lengths reads
    those (``noted.tools.payloads.body_lengths``)."""


@dataclass(frozen=True, slots=True)
class KeptFile:
    """An attachment's file that its delete left where it is (``ResourceStore.delete_resource``):
    a Markdown folder's file that noted did not write, or that changed since noted wrote it, since
    nothing deletes a file noted did not write. The attachment itself is gone from noted."""

    path: str
    """The file, relative to the notes folder (``img/a.png``)."""
    changed: bool
    """noted wrote it, and it changed since (False: noted did not write it)."""

    @property
    def line(self) -> str:
        """What a person or a model is told: where the file stays, and why."""
        why = "it changed since noted wrote it" if self.changed else "noted did not write it"
        return f"its file {self.path} stays in the notes folder: {why}, and noted deletes only the files it wrote"


@runtime_checkable
class HasNotePaths(Protocol):
    """A store whose notes are files (the Markdown folder): links name notes by path there."""

    def note_paths(self) -> dict[str, str]:
        """Each live note's id and file, relative to the folder (``/``-separated)."""
        ...


@runtime_checkable
class HasNotesFolder(Protocol):
    """A store whose notes are the files of a folder (the Markdown folder), which export keeps out of."""

    def notes_folder(self) -> Path:
        """The folder, resolved."""
        ...


@dataclass(frozen=True, slots=True)
class FileLink:
    """A link of a note's text to a file, as a store whose notes link files by path reads it.

    Attributes:
        target: The link as written (``../docs/q3.pdf``, ``a.png`` of ``![[a.png]]``).
        wiki: A wiki link or embed (found by name anywhere), not a Markdown one (a path).
        path: The file it leads to, relative to the folder; None when it leads to no file.
        attachment: The id of that file as an attachment, None when no note links it yet.
        notebook: The notebook whose folder holds the file; None when none does (the folder where
            new attachments go, when it is one folder for every note, or a folder with no notes).
        by_name: Found by its name alone (a wiki link to no file at the path it names, from the
            note's folder or the root): the file of that name with the shortest path anywhere, so
            which file it leads to depends on every file of the folder.
    """

    target: str
    wiki: bool
    path: str | None
    attachment: str | None
    notebook: str | None
    by_name: bool = False


@runtime_checkable
class HasFileLinks(Protocol):
    """A store whose notes link their attachments by path (the Markdown folder), not by ``:/id``:
    any file of the folder a note links is an attachment of that note."""

    def body_with_ids(self, note_id: str, body: str, *, notes: bool = False) -> str:
        """``body`` of the note with each link to an attachment written ``:/id`` (export copies
        those), and with ``notes`` each link to a note too (export points them at its own files)."""
        ...

    def file_links(self, body: str, *, note_id: str | None = None, folder_id: str = "") -> list[FileLink]:
        """The links of ``body`` that the store reads as links to files, once each, read as the
        note ``note_id``'s (None: a new note's in notebook ``folder_id``)."""
        ...

    def file_notebook(self, resource_id: str) -> str | None:
        """The notebook whose folder holds the attachment's file (``FileLink.notebook``)."""
        ...

    def plan_notes(self, drafts: Sequence[NoteDraft]) -> set[str]:
        """Inside a ``Store.batch`` that will make these notes (each draft's ``id``, notebook and
        title): a ``:/id`` link to one of them written before it is made is written as the path it
        will have, so the note linking it is written once. The ids it planned (none outside a batch)."""
        ...

    def keep_beside(self, resource_id: str, note_id: str) -> None:
        """Write an attachment still kept in the profile, about to be linked from ``note_id``, into
        that note's own folder (when new attachments go to one folder for every note), so the
        name it gets depends on the files of that note's notebook alone."""
        ...


@runtime_checkable
class TidiesCutBatches(Protocol):
    """A store without transactions (Joplin) whose next ``batch()`` finishes what one a kill cut
    short meant to do with an attachment (``noted.store.joplin.half_done``)."""

    def deleting(self, resource_id: str, *, actor: str) -> None:
        """Inside ``batch()``, before its requests: the attachment is to be deleted unless a note
        links it once they are made; cut short, the next batch deletes it if no note links it."""
        ...


@runtime_checkable
class HasTitledFolders(Protocol):
    """A store that finds notebooks by title without listing them all (Joplin: one search)."""

    def folders_titled(self, title: str) -> list[Folder]:
        """The notebooks, not in the trash, whose title may equal ``title`` case aside: every one
        that does, and perhaps others (the caller compares)."""
        ...


@runtime_checkable
class HasFolderNames(Protocol):
    """A store whose notebooks are folders (the Markdown folder): a notebook's title is its
    folder's name, which must differ from every other name beside it (taken: ``Name 2``)."""

    def folder_parent(self, parent_id: str) -> str:
        """The notebook in whose folder the folder of a notebook made inside ``parent_id`` is:
        ``parent_id``, or ``""`` (the top of the folder) for the notebook of the folder's root."""
        ...

    def top_folder_title(self, title: str) -> str:
        """The title of the top-level notebook made for ``title``: ``title``, or ``title 2``… when
        something that is not a notebook holds the name (so that notebook is found again)."""
        ...


@runtime_checkable
class ReadsNotesFromText(Protocol):
    """A store that keeps each note as a file's text and reads the note back from it (the Markdown
    folder): a note may read back otherwise than it was given (a first-line heading is its title)."""

    def as_read(self, note_id: str | None, draft: NoteDraft) -> NoteDraft:
        """``draft`` as the note will read once written from it, into the file of note ``note_id``
        (None: a new note's). An import compares that with the note to tell what a file changes."""
        ...

    def note_as_filed(self, note_id: str) -> Note:
        """The note as its file is now, a change to the file noted has not followed yet recorded
        first (as ``outside``), as a write finds it: a write that waited merges with it."""
        ...


@runtime_checkable
class HasNoteProperties(Protocol):
    """A store whose notes carry front-matter keys noted does not read (the Markdown folder's
    ``aliases``, ``cssclass``…): an export writes them into each note's front matter."""

    def note_properties(self, note_id: str) -> dict[str, object]:
        """The note's keys that noted does not read (``transfer.common.other_keys``), in order."""
        ...

    def add_note_properties(self, note_id: str, properties: dict[str, object], *, actor: str) -> None:
        """Each of ``properties`` the note does not have yet added to it (an import's new note)."""
        ...


class FolderStore(Protocol):
    """Notebooks: nested, moved to the trash with what they hold, restored together."""

    def list_folders(self, *, include_trashed: bool = False) -> list[Folder]: ...
    def get_folder(self, folder_id: str) -> Folder: ...
    def create_folder(
        self, title: str, *, parent_id: str = "", actor: str, made_id: str | None = None
    ) -> Folder: ...
    def update_folder(
        self, folder_id: str, *, title: str | None = None, parent_id: str | None = None, actor: str
    ) -> Folder: ...
    def trash_folder(self, folder_id: str, *, actor: str) -> None: ...
    def restore_folder(self, folder_id: str, *, actor: str) -> None: ...
    def folder_note_counts(self) -> dict[str, int]: ...


class NoteStore(Protocol):
    """Notes: read, listed, created, changed (a stale base refused), trashed, restored."""

    def get_note(self, note_id: str) -> Note: ...
    def get_notes(self, note_ids: Sequence[str]) -> list[Note]: ...
    def note_metas(self, note_ids: Sequence[str]) -> list[NoteMeta]:
        """The notes that exist among ``note_ids``, in the order asked, without their bodies (a
        page of search hits to list)."""
        ...

    def list_notes(
        self,
        *,
        folder_id: str | None = None,
        tag_id: str | None = None,
        trashed: bool = False,
        todo_only: bool = False,
        order: NoteOrder = NoteOrder.UPDATED,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[NoteMeta]: ...
    def count_notes(
        self,
        *,
        folder_id: str | None = None,
        tag_id: str | None = None,
        trashed: bool = False,
        todo_only: bool = False,
    ) -> int:
        """How many notes ``list_notes`` would list with these filters, without reading them
        where the backend can (the SQLite store counts in one query)."""
        ...

    def create_note(self, draft: NoteDraft, *, actor: str, session: str | None = None) -> Note:
        """Make a note; a later ``update_note`` passing the same ``session`` within a burst updates
        the revision this one adds (an import writing a note again once the notes it links exist)."""
        ...

    def update_note(
        self,
        note_id: str,
        patch: NotePatch,
        *,
        actor: str,
        base_updated_time: int | None = None,
        session: str | None = None,
    ) -> Note:
        """Change a note; ``ConflictError`` when ``base_updated_time`` is given and the note has
        changed since. Each save adds a revision, except that saves passing the same ``session``
        (one editing session of this process) within a burst update the revision it wrote last."""
        ...

    def trash_note(self, note_id: str, *, actor: str) -> None: ...
    def restore_note(self, note_id: str, *, actor: str) -> Note: ...
    def empty_trash(self, *, actor: str) -> int: ...
    def restore_revision(self, revision_id: int, *, actor: str) -> Note: ...


class TagStore(Protocol):
    """Tags and their links to notes."""

    def list_tags(self, *, with_notes_only: bool = False, counted: bool = True) -> list[Tag]:
        """Every tag, A to Z. ``counted=False`` leaves each ``note_count`` at 0 unless
        ``with_notes_only`` (Joplin's count of a tag reads all its notes)."""
        ...

    def get_tag(self, tag_id: str) -> Tag: ...
    def find_tag(self, title: str) -> Tag | None: ...
    def create_tag(self, title: str, *, actor: str) -> Tag: ...
    def rename_tag(self, tag_id: str, title: str, *, actor: str) -> Tag: ...
    def delete_tag(self, tag_id: str, *, actor: str) -> None: ...
    def note_tags(self, note_id: str) -> list[Tag]: ...
    def note_tag_titles(self, note_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The tag titles of each of these notes, A→Z (notes without tags are left out).

        For a page of the note list: ``note_tags`` also counts each tag's notes (~2 ms a call on
        10,000 notes), while the SQLite store answers for the whole page in one query.
        """
        ...

    def tag_note(self, note_id: str, titles: Sequence[str], *, actor: str) -> list[Tag]: ...
    def untag_note(self, note_id: str, titles: Sequence[str], *, actor: str) -> list[Tag]: ...


class ResourceStore(Protocol):
    """Attachments: files with an id that notes link as ``:/id``."""

    def add_resource(
        self,
        data: bytes,
        *,
        filename: str,
        mime: str,
        title: str = "",
        actor: str,
        made_id: str | None = None,
    ) -> Resource: ...
    def get_resource(self, resource_id: str) -> Resource: ...
    def resource_path(self, resource_id: str) -> Path: ...
    def read_resource(self, resource_id: str) -> bytes: ...
    def list_resources(self, *, note_id: str | None = None) -> list[Resource]: ...
    def resource_notes(self, resource_id: str) -> list[str]: ...
    def replace_resource(
        self,
        resource_id: str,
        data: bytes,
        *,
        filename: str | None = None,
        mime: str | None = None,
        title: str | None = None,
        actor: str,
    ) -> Resource:
        """Put new bytes (and optionally a new file name, type or title) under the same id, so
        every ``:/id`` link in every note shows the new file; one ``resource`` update in the feed."""
        ...

    def delete_resource(self, resource_id: str, *, actor: str) -> KeptFile | None:
        """Delete an attachment (links in notes stay as text), kept as its newest version first;
        the file that stays where it is when it is not noted's to delete (else None)."""
        ...

    def resource_versions(self, resource_id: str) -> list[ResourceVersion]:
        """The versions of an attachment that a replace or a delete took away, newest first, each
        with who did it and when ([] for an id with none); a deleted attachment's are kept too."""
        ...

    def kept_resource_ids(self, prefix: str) -> list[str]:
        """The ids starting with ``prefix`` (lower-case hex) of the attachments that have kept
        versions, deleted ones among them, A→Z: a deleted attachment is named by an id prefix so."""
        ...

    def restore_resource_version(self, resource_id: str, version_id: int, *, actor: str) -> Resource:
        """Put version ``version_id`` of the attachment back under its id (a deleted one comes
        back, so the ``:/id`` links in notes work again); the file it replaces is kept as a
        version in turn. ``NotFoundError`` when that is no version of this attachment."""
        ...


@runtime_checkable
class Store(FolderStore, NoteStore, TagStore, ResourceStore, HistoryStore, Protocol):
    """A place that keeps notebooks, notes, tags and attachments, with a change feed.

    Its methods are declared by kind of item in the protocols it joins; a backend's store owns a
    part for each (``noted.store.parts.Parts``).
    """

    capabilities: Capabilities

    @property
    def sync(self) -> Syncing | None:
        """Starting the backend's sync (Joplin's), or None on a backend without one (SQLite)."""
        ...

    @property
    def conflicts(self) -> SyncConflicts | None:
        """The conflict copies the backend's sync made, or None on a backend without a sync."""
        ...

    def close(self) -> None: ...
    def batch(self) -> AbstractContextManager[None]:
        """Group the writes made inside into one transaction where the backend can (imports)."""
        ...
