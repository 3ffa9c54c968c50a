"""What the screens show, read from the store in worker threads and handed over as frozen values.

Nothing here touches a widget or imports Textual: every function takes a ``Store`` and returns a
dataclass, so the workers that call them stay one line long and the queries can be tested alone.
Listings are paged and never read note bodies; only ``load_note_view`` reads one body.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from noted.markdown import Outline, opening, outline
from noted.models import Folder, Note, NoteMeta, Resource, Tag
from noted.ops.folder_tree import FolderNode, folder_nodes
from noted.ops.links import PhraseSearch, Resolver, backlinks, outgoing
from noted.search.keyword import KeywordSearch
from noted.store.protocol import NoteOrder, Store

PAGE_SIZE = 100
"""Notes fetched at a time; the list asks for the next page as the cursor nears the end."""


class SourceKind(enum.StrEnum):
    """Where the notes of the list come from."""

    ALL = "all"
    FOLDER = "folder"
    TAG = "tag"
    TODOS = "todos"
    TRASH = "trash"
    SEARCH = "search"
    CONFLICTS = "conflicts"
    """The conflict copies made by the backend's sync (``Store.conflicts``; Joplin's)."""


@dataclass(frozen=True, slots=True)
class NoteSource:
    """The selection in the notebook tree (or a search) whose notes the list shows."""

    kind: SourceKind
    id: str = ""
    """The notebook or tag id, or the query for ``SEARCH``."""
    title: str = ""

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.id}"


ALL_NOTES = NoteSource(SourceKind.ALL, title="All notes")


@dataclass(frozen=True, slots=True)
class TreeData:
    """Everything the notebook tree draws."""

    roots: tuple[FolderNode, ...]
    tags: tuple[Tag, ...]
    todo_count: int
    trashed_folders: tuple[Folder, ...]
    trashed_note_count: int
    total_notes: int
    conflict_count: int = 0
    """Joplin's sync conflict copies (the tree shows "Conflicts" only when there are some)."""


@dataclass(frozen=True, slots=True)
class NoteRow:
    """One line of the note list: the note without its body, with its tag titles."""

    meta: NoteMeta
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NotePage:
    """A page of the list for one source, sort order and offset."""

    source: NoteSource
    order: NoteOrder
    offset: int
    rows: tuple[NoteRow, ...]
    has_more: bool
    total: int | None = None
    """How many notes the source has in all (read with the first page), None when not known."""
    trashed_notebooks: tuple[Folder, ...] = ()
    """For a first page of the trash with no notes: the notebooks in the trash, which the list
    names rather than say it is empty."""


@dataclass(frozen=True, slots=True)
class LinkedNote:
    """A note the open note links to (``out``), one that links to it (``back``), or a link of it
    that leads nowhere (``broken``: ``id`` is empty, ``title`` the link as written)."""

    id: str
    title: str
    kind: str = "out"
    detail: str = ""
    """Why a broken link leads nowhere; the heading of an outgoing link to a section."""


@dataclass(frozen=True, slots=True)
class NoteView:
    """An open note: its body, outline, tags, attachments and the notes it links to."""

    note: Note
    notebook: str
    tags: tuple[str, ...]
    resources: tuple[Resource, ...]
    links: tuple[LinkedNote, ...]
    outline: Outline
    """Of ``text``, as the links are."""
    text: str
    """What the reader shows: the body, or its opening for a note larger than ``notes.largeNoteChars``."""
    backlinks_due: bool = False
    """``links`` lacks the backlinks, to be found once the note is shown (``with_backlinks``)."""

    @property
    def partial(self) -> bool:
        """The reader shows only the opening of the note (it cannot be edited in the app)."""
        return len(self.text) < len(self.note.body)


def load_tree(store: Store) -> TreeData:
    """The notebooks with counts, the tags in use, and what the to-dos and trash hold."""
    every = store.list_folders(include_trashed=True)
    live = [f for f in every if not f.is_trashed]
    counts = store.folder_note_counts()
    live_ids = {f.id for f in live}
    trashed_ids = {f.id for f in every if f.is_trashed}
    return TreeData(
        roots=folder_nodes(live, counts),
        tags=tuple(store.list_tags(with_notes_only=True)),
        todo_count=store.count_notes(todo_only=True),
        # Only the top of each trashed branch: restoring it brings back what was inside.
        trashed_folders=tuple(f for f in every if f.is_trashed and f.parent_id not in trashed_ids),
        trashed_note_count=store.count_notes(trashed=True),
        total_notes=sum(n for folder_id, n in counts.items() if folder_id in live_ids),
        conflict_count=len(store.conflicts.sync_conflicts()) if store.conflicts is not None else 0,
    )


def _rows(store: Store, metas: Sequence[NoteMeta]) -> tuple[NoteRow, ...]:
    tags = store.note_tag_titles([meta.id for meta in metas])
    return tuple(NoteRow(meta, tags.get(meta.id, ())) for meta in metas)


def load_page(
    store: Store,
    source: NoteSource,
    order: NoteOrder,
    offset: int = 0,
    limit: int = PAGE_SIZE,
    keyword: KeywordSearch | None = None,
) -> NotePage:
    """One page of the notes of ``source``; one more than asked is read to know if more follow."""
    if source.kind is SourceKind.CONFLICTS and store.conflicts is not None:
        copies = [c.copy_id for c in store.conflicts.sync_conflicts()]
        metas = store.note_metas(copies[offset : offset + limit + 1])
        total: int | None = len(copies)
    elif source.kind is SourceKind.SEARCH:
        if keyword is None:
            raise ValueError("a search source needs keyword search")
        # The list shows no snippet: neither the search nor the rows read a body.
        results = keyword.search(source.id, limit=limit + 1, offset=offset, snippets=False)
        read = {m.id: m for m in store.note_metas([hit.note_id for hit in results.hits if hit.meta is None])}
        metas = [m for hit in results.hits if (m := hit.meta or read.get(hit.note_id)) is not None]
        total = results.total
    else:
        folder_id = source.id if source.kind is SourceKind.FOLDER else None
        tag_id = source.id if source.kind is SourceKind.TAG else None
        trashed, todo_only = source.kind is SourceKind.TRASH, source.kind is SourceKind.TODOS
        metas = store.list_notes(
            folder_id=folder_id, tag_id=tag_id, trashed=trashed, todo_only=todo_only,
            order=order, limit=limit + 1, offset=offset,
        )  # fmt: skip
        total = None
        if offset == 0:  # the header shows the real count, as the tree does, not "100+"
            total = len(metas) if len(metas) <= limit else store.count_notes(
                folder_id=folder_id, tag_id=tag_id, trashed=trashed, todo_only=todo_only
            )  # fmt: skip
        folders: tuple[Folder, ...] = ()
        if trashed and offset == 0 and not metas:  # an empty Notes list may still be a full trash
            folders = tuple(f for f in store.list_folders(include_trashed=True) if f.is_trashed)
        rows = _rows(store, metas[:limit])
        return NotePage(source, order, offset, rows, len(metas) > limit, total, trashed_notebooks=folders)
    return NotePage(source, order, offset, _rows(store, metas[:limit]), len(metas) > limit, total)


def still_listed(store: Store, source: NoteSource, note_ids: Collection[str]) -> set[str] | None:
    """Those of ``note_ids`` that ``source`` lists now, read note by note (a few that changed) by
    ``list_notes``'s filters; None for a search or sync conflicts, which only a listing tells."""
    kind = source.kind
    if kind in (SourceKind.SEARCH, SourceKind.CONFLICTS):
        return None
    return {
        meta.id
        for meta in store.note_metas(list(note_ids))
        if meta.is_trashed == (kind is SourceKind.TRASH)
        and (kind is not SourceKind.FOLDER or meta.parent_id == source.id)
        and (kind is not SourceKind.TODOS or meta.is_todo)
        and (kind is not SourceKind.TAG or any(tag.id == source.id for tag in store.note_tags(meta.id)))
    }


def _meta(note: Note) -> NoteMeta:
    return NoteMeta(
        note.id, note.parent_id, note.title, note.created_time, note.updated_time,
        note.user_created_time, note.user_updated_time, note.is_todo, note.todo_due,
        note.todo_completed, note.source_url, note.deleted_time, note.is_conflict, len(note.body),
    )  # fmt: skip


def load_note_view(
    store: Store,
    note_id: str,
    keyword: PhraseSearch | None = None,
    *,
    part_chars: int | None = None,
    backlinks_later: bool = False,
) -> NoteView:
    """The note ``note_id`` with what the viewer shows beside it (backlinks when ``keyword`` is given).

    ``backlinks_later``: leave the backlinks for ``with_backlinks`` (``NoteView.backlinks_due``). A
    note read ahead may never be shown, and its backlinks search was most of its cost.

    A body longer than ``part_chars`` is shown, outlined and searched for links in its opening only
    (``noted.markdown.opening``): parsing and drawing 39 MB took minutes and gigabytes.
    """
    note = store.get_note(note_id)
    text = note.body if part_chars is None else opening(note.body, part_chars)
    try:
        notebook = store.get_folder(note.parent_id).title if note.parent_id else ""
    except Exception:  # a note whose notebook vanished still opens
        notebook = ""
    resources = tuple(store.list_resources(note_id=note_id))
    shown = note if text is note.body else replace(note, body=text)
    later = backlinks_later and keyword is not None
    links = _links(store, shown, {r.id for r in resources}, None if later else keyword, part_chars)
    tags = store.note_tag_titles([note_id]).get(note_id, ())
    return NoteView(note, notebook, tags, resources, links, outline(note.body, part_chars), text, later)


def with_backlinks(
    store: Store, view: NoteView, keyword: PhraseSearch, *, stop: Callable[[], bool] = lambda: False
) -> NoteView:
    """``view`` with the backlinks it was read without (``load_note_view``'s ``backlinks_later``);
    ``noted.errors.Interruption`` once ``stop()`` says so (``noted.ops.links.backlinks``)."""
    back = backlinks(store, keyword, view.note, stop=stop)
    return replace(
        view,
        links=(*view.links, *(LinkedNote(b.note_id, b.title, "back") for b in back)),
        backlinks_due=False,
    )


def page_text(view: NoteView) -> str:
    """What the reader draws: ``view.text``, and after the opening of a partial note a paragraph
    saying how much is shown and how to see all of it (after it, so rows of lines above stay)."""
    if not view.partial:
        return view.text
    return f"{view.text}\n\n---\n\n**{partial_notice(view)}**\n"


def partial_notice(view: NoteView) -> str:
    """One line for a partial note: what is shown, and the commands that give all of it."""
    return (
        f"Shown: the first {len(view.text):,} of {len(view.note.body):,} characters (notes.largeNoteChars). "
        f"All of it: `noted show {view.note.id}`; to edit it: `noted edit {view.note.id}`."
    )


def _links(
    store: Store, note: Note, resource_ids: set[str], keyword: PhraseSearch | None, part_chars: int | None
) -> tuple[LinkedNote, ...]:
    """Outgoing links (each note once), the broken ones, then backlinks."""
    resolver = Resolver(store)
    out: dict[str, LinkedNote] = {}
    broken: list[LinkedNote] = []
    for link in outgoing(store, note, resolver, part_chars=part_chars):
        if link.target.removeprefix(":/") in resource_ids:
            continue
        if link.broken and not link.note_id:
            broken.append(LinkedNote("", link.target, "broken", link.broken))
        elif link.note_id != note.id:
            out.setdefault(
                link.note_id, LinkedNote(link.note_id, link.title, "out", link.broken or link.heading)
            )
    back = backlinks(store, keyword, note, resolver) if keyword is not None else []
    return (*out.values(), *broken, *(LinkedNote(b.note_id, b.title, "back") for b in back))


def note_row(store: Store, note_id: str) -> NoteRow:
    """The list row of one note, to refresh a line in place after a change."""
    return _rows(store, [_meta(store.get_note(note_id))])[0]


def human_size(size: int) -> str:
    """``532 B``, ``12.4 KB``, ``3.1 MB``."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"
