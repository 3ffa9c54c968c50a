"""Links between notes, on every backend: what a note links to, what links to it, what leads nowhere.

A note links to another with a wiki link (``[[Note]]``, ``[[Note|shown text]]``, ``[[Note#Heading]]``,
``[[folder/Note]]``, embeds ``![[Note]]``), a relative Markdown link (``[text](other.md)``,
``[text](../b/Other%20note.md#heading)``) or noted's own ``[text](:/id)``. Outside code only.

A name is resolved as Obsidian does in a Markdown folder: by file name without ``.md`` (any case),
the shortest path when names repeat (``folder/Note`` picks among them), a relative link from the
linking note's folder. On the other backends, where notes have no file, a name is a note title.
A ``#heading`` resolves to the section of that heading (``noted.markdown.Outline.find``).

Backlinks are found through keyword search (every note mentioning the note's name or id, page by
page: a link holds its name, so none is missed however common the name), then kept when one of
their links resolves to the note: exact, and reading only the bodies that mention it.

A caller limited to some notebooks (an MCP client's scope) asks with ``folders``: links then
resolve among the notes of those notebooks only, and backlinks come from them only, as if no other
note existed. Resolving among every note and hiding the result afterwards answered a title used
elsewhere as a broken link, or as another note of that title: both say what is outside.
"""

from __future__ import annotations

import posixpath
import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import unquote

from noted.errors import Interruption, NotFoundError
from noted.markdown import MD_LINK, NOTE_SUFFIXES, WIKI_LINK, code_ranges, names_file, outline
from noted.models import FULL_ID, Note, Resource
from noted.ops.attachments import linking_notes
from noted.ops.backlink_search import link_marks_of, may_link, mentioning
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.store.protocol import HasNotePaths, NoteOrder, Store

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_NOTE_ID = re.compile(rf"^:/({FULL_ID.pattern})$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Link:
    """One link in a note, resolved.

    Attributes:
        target: The link as written (``Note#Heading``, ``../a.md``, ``:/id``).
        text: What the link shows (the alias, the Markdown link text, else the target).
        note_id: The note it leads to, or ``""`` when it leads nowhere.
        title: That note's title.
        heading: The ``#heading`` asked for, ``""`` for none.
        section: The section path of that heading (``1.2``), ``""`` for none or not found.
        broken: Why it leads nowhere (``""`` when it leads somewhere).
    """

    target: str
    text: str
    note_id: str
    title: str
    heading: str = ""
    section: str = ""
    broken: str = ""


@dataclass(frozen=True, slots=True)
class Backlink:
    """A note that links to the note asked about."""

    note_id: str
    title: str


@dataclass(frozen=True, slots=True)
class NoteLinks:
    """What ``note_links`` answers."""

    note: Note
    outgoing: tuple[Link, ...]
    backlinks: tuple[Backlink, ...]
    attachments: tuple[Resource, ...] = ()
    """The attachments the note links (``:/id`` links to them are not in ``outgoing``)."""

    @property
    def broken(self) -> tuple[Link, ...]:
        return tuple(link for link in self.outgoing if link.broken)


class PhraseSearch(Protocol):
    """What backlinks need of keyword search (``noted.search.keyword.KeywordSearch`` and Joplin's)."""

    def search(
        self,
        query: str,
        *,
        limit: int = 20,
        offset: int = 0,
        folder_ids: frozenset[str] | None = None,
        snippets: bool = True,
    ) -> object: ...


@dataclass(frozen=True, slots=True)
class _Raw:
    target: str
    text: str
    name: str
    heading: str
    relative: bool
    """A Markdown link's path, resolved from the linking note's folder."""


def raw_links(body: str, *, code_aware: bool = True) -> list[_Raw]:
    """The links to notes in ``body`` as written, in order (attachments and web links left out).

    ``code_aware=False`` skips finding code blocks (a Markdown parse, the costly part): links shown
    as code are then counted too, which is fine for a first pass confirmed by a full one.
    """
    needs_parse = code_aware and ("`" in body or "    " in body or "~~~" in body or "\t" in body)
    code = code_ranges(body) if needs_parse else []
    found: list[tuple[int, _Raw]] = []
    for match in WIKI_LINK.finditer(body):
        if any(a <= match.start() < b for a, b in code):
            continue
        name, heading, alias = match.group(2).strip(), (match.group(3) or "").strip(), match.group(4)
        if names_file(name):
            continue  # ![[image.png]]: an attachment
        target = match.group(0)[2 + len(match.group(1)) : -2]
        found.append((match.start(), _Raw(target, (alias or target).strip(), name, heading, False)))
    for match in MD_LINK.finditer(body):
        if any(a <= match.start(1) < b for a, b in code):
            continue
        raw = _markdown_link(match.group(1))
        if raw is not None:
            found.append((match.start(1), raw))
    found.sort(key=lambda item: item[0])
    return [raw for _, raw in found]


def _markdown_link(written: str) -> _Raw | None:
    target = written.strip().removeprefix("<").removesuffix(">")
    by_id = _NOTE_ID.match(target)
    if by_id:
        return _Raw(target, target, ":/" + by_id.group(1).lower(), "", False)
    if not target or target.startswith("#") or _SCHEME.match(target):
        return None
    path, _, heading = target.partition("#")
    path = unquote(path)
    if names_file(path):
        return None  # an image or another attachment
    return _Raw(target, target, path, unquote(heading), True)


class _Names:
    """Names → ids of one store at one change-feed cursor (made lazily, kept until the feed moves)."""

    def __init__(self, store: Store, cursor: int) -> None:
        self.store = weakref.ref(store)
        self.cursor = cursor
        self.paths: dict[str, str] = store.note_paths() if isinstance(store, HasNotePaths) else {}
        self._keys: dict[str, list[str]] | None = None
        self._stems: dict[str, str] | None = None
        self._parents: dict[str, str] | None = None

    def by_path(self) -> dict[str, str]:
        """Paths without ``.md`` (any case) → ids."""
        if self._stems is None:
            self._stems = {posixpath.splitext(p)[0].casefold(): i for i, p in self.paths.items()}
        return self._stems

    def by_key(self, store: Store) -> dict[str, list[str]]:
        """File names (a folder) or titles (elsewhere) → ids."""
        if self._keys is None:
            keys: dict[str, list[str]] = {}
            if self.paths:
                for note_id, path in self.paths.items():
                    keys.setdefault(posixpath.basename(posixpath.splitext(path)[0]).casefold(), []).append(
                        note_id
                    )
            else:
                for meta in store.list_notes(order=NoteOrder.ID):
                    keys.setdefault(meta.title.casefold(), []).append(meta.id)
            self._keys = keys
        return self._keys

    def parents(self, store: Store) -> dict[str, str]:
        """Ids of the notes not in the trash → their notebook's id."""
        if self._parents is None:
            self._parents = {meta.id: meta.parent_id for meta in store.list_notes(order=NoteOrder.ID)}
        return self._parents


_NAMES: dict[int, _Names] = {}
"""The names of each store seen, as at its latest cursor: the reader resolves links at every note it
opens, and reading 10,000 names each time cost more than the rest of opening a note."""


class Resolver:
    """Names to notes for one question (file names on a folder, titles elsewhere), among the notes
    of ``folders`` (None: every note)."""

    def __init__(self, store: Store, folders: frozenset[str] | None = None) -> None:
        self.store = store
        self.folders = folders
        cursor = store.latest_cursor()
        names = _NAMES.get(id(store))
        if names is None or names.cursor != cursor or names.store() is not store:
            names = _NAMES[id(store)] = _Names(store, cursor)
            while len(_NAMES) > 4:  # stores closed long ago (tests open many)
                del _NAMES[next(iter(_NAMES))]
        self._names = names
        self.paths = names.paths

    def _among(self, note_ids: list[str]) -> list[str]:
        """The notes of ``note_ids`` that links may lead to (in ``folders``; none in the trash)."""
        if self.folders is None:
            return note_ids
        parents = self._names.parents(self.store)
        return [i for i in note_ids if parents.get(i) in self.folders]

    def resolve(self, raw: _Raw, source_id: str) -> str:
        """The id of the note ``raw`` leads to, ``""`` when none."""
        if raw.name.startswith(":/"):
            found = self.store.get_notes([raw.name[2:]])  # one in the trash too
            seen = [n.id for n in found if self.folders is None or n.parent_id in self.folders]
            return seen[0] if seen else ""
        name = raw.name
        if not name:
            return source_id  # [[#Heading]]: a section of this note
        stem = posixpath.splitext(name)[0] if posixpath.splitext(name)[1].lower() in NOTE_SUFFIXES else name
        if self.paths:
            if raw.relative or "/" in stem:
                base = posixpath.dirname(self.paths.get(source_id, "")) if raw.relative else ""
                full = posixpath.normpath(posixpath.join(base, stem)).casefold()
                by_path = self._names.by_path()
                if full in by_path and self._among([by_path[full]]):
                    return by_path[full]
                if raw.relative:
                    return ""
            matches = self._among(self._names.by_key(self.store).get(posixpath.basename(stem).casefold(), []))
            if "/" in stem:
                matches = [
                    i
                    for i in matches
                    if posixpath.splitext(self.paths[i])[0].casefold().endswith(stem.casefold())
                ]
            return min(matches, key=lambda i: (self.paths[i].count("/"), self.paths[i]), default="")
        return min(
            self._among(self._names.by_key(self.store).get(posixpath.basename(stem).casefold(), [])),
            default="",
        )

    def names(self, note: Note) -> list[str]:
        """The names other notes may use for ``note``: its title, file name and id."""
        names = [note.title, note.id]
        if note.id in self.paths:
            names.append(posixpath.splitext(posixpath.basename(self.paths[note.id]))[0])
        return list(dict.fromkeys(n for n in names if n.strip()))


def outgoing(
    store: Store,
    note: Note,
    resolver: Resolver | None = None,
    *,
    part_chars: int | None = LARGE_NOTE_CHARS.default,
) -> list[Link]:
    """The note's links to notes, each resolved (or marked broken), in order. A link's heading is
    looked for in the outline of its note's opening when that note is over ``part_chars``
    (``notes.largeNoteChars``): one past it is not named, and broken only if its words are nowhere."""
    resolver = resolver or Resolver(store)
    links: list[Link] = []
    cache: dict[str, Note] = {note.id: note}
    for raw in raw_links(note.body):
        note_id = resolver.resolve(raw, note.id)
        if (
            not note_id
            and raw.name.startswith(":/")
            and _is_attachment(store, raw.name[2:], resolver.folders)
        ):
            continue
        if not note_id:
            # a :/id may be meant for either; one kept outside the caller's notebooks is told as
            # an id naming nothing, so the words cannot say which it was (or that it exists)
            what = "no note or attachment" if raw.name.startswith(":/") else "no note"
            links.append(Link(raw.target, raw.text, "", "", raw.heading, "", f'{what} "{raw.name}"'))
            continue
        if note_id not in cache:
            cache.update({n.id: n for n in store.get_notes([note_id])})
        target = cache[note_id]
        section, broken = "", ""
        if raw.heading:
            tree = outline(target.body, part_chars)
            found = tree.find(raw.heading)
            section = found[0].path if found else ""
            there = found or (tree.partial and re.search(re.escape(raw.heading.strip()), target.body, re.I))
            broken = "" if there else f'no heading "{raw.heading}" in "{target.title}"'
        links.append(Link(raw.target, raw.text, note_id, target.title, raw.heading, section, broken))
    return links


def _is_attachment(store: Store, item_id: str, folders: frozenset[str] | None) -> bool:
    """Whether ``item_id`` is an attachment seen among the notes of ``folders``: one that is not
    is listed as a link that leads nowhere, as an id that names nothing is."""
    try:
        store.get_resource(item_id)
    except NotFoundError:
        return False
    return linking_notes(store, item_id, folders) is not None


def backlinks(
    store: Store,
    keyword: PhraseSearch,
    note: Note,
    resolver: Resolver | None = None,
    *,
    stop: Callable[[], bool] = lambda: False,
) -> list[Backlink]:
    """The notes (not in the trash) with a link that resolves to ``note``, by title A→Z.
    ``Interruption`` when ``stop()`` is true before a page of mentions is read (the reader's note
    moved on)."""
    resolver = resolver or Resolver(store)
    names = resolver.names(note)
    marks = link_marks_of(names, note.id)
    seen = {note.id}
    found: dict[str, str] = {}
    for name in names:
        for page in mentioning(keyword, name, resolver.folders):
            if stop():
                raise Interruption(f"the search for the backlinks of {note.title!r} was stopped")
            fresh = [i for i in dict.fromkeys(page) if i not in seen]
            seen.update(fresh)
            for other in store.get_notes(fresh):
                if other.is_trashed or not may_link(other.body, marks):
                    continue  # mentions the name, but in no link: not parsed (the costly part)
                quick = raw_links(other.body, code_aware=False)
                if any(resolver.resolve(raw, other.id) == note.id for raw in quick) and any(
                    resolver.resolve(raw, other.id) == note.id for raw in raw_links(other.body)
                ):
                    found[other.id] = other.title
    return [Backlink(i, t) for i, t in sorted(found.items(), key=lambda item: (item[1].casefold(), item[0]))]


def note_links(
    store: Store,
    keyword: PhraseSearch,
    note_id: str,
    folders: frozenset[str] | None = None,
    *,
    part_chars: int | None = LARGE_NOTE_CHARS.default,
) -> NoteLinks:
    """Outgoing links, backlinks and broken links of one note, among the notes of ``folders``, and
    the attachments it links that a caller limited to ``folders`` sees (``linking_notes``: one a
    note elsewhere links, or a file in a hidden notebook's folder, is as one that is not there)."""
    note = store.get_note(note_id)
    resolver = Resolver(store, folders)
    links = outgoing(store, note, resolver, part_chars=part_chars)
    back = tuple(backlinks(store, keyword, note, resolver))
    files = store.list_resources(note_id=note.id)
    seen = [r for r in files if folders is None or linking_notes(store, r.id, folders) is not None]
    return NoteLinks(note, tuple(links), back, tuple(seen))


def link_payload(links: NoteLinks) -> dict[str, object]:
    """The JSON the tool and ``noted links --json`` give."""

    def out(link: Link) -> dict[str, object]:
        return {
            "target": link.target, "text": link.text, "note_id": link.note_id or None, "title": link.title or None,
            "heading": link.heading or None, "section": link.section or None, "broken": link.broken or None,
        }  # fmt: skip

    return {
        "id": links.note.id,
        "title": links.note.title,
        "outgoing": [out(link) for link in links.outgoing],
        "backlinks": [{"note_id": b.note_id, "title": b.title} for b in links.backlinks],
        "broken": [out(link) for link in links.broken],
        "attachments": [
            {"id": r.id, "title": r.title, "filename": r.filename, "mime": r.mime, "size": r.size}
            for r in links.attachments
        ],
    }


__all__: Sequence[str] = [
    "Backlink",
    "Link",
    "NoteLinks",
    "PhraseSearch",
    "backlinks",
    "note_links",
    "outgoing",
    "raw_links",
]
