"""Attachments that are files of the folder: the images and files notes link to, where they are.

A note's links to files that are not notes, as Obsidian writes them: relative Markdown links
(``![](img/a.png)``, ``[report](../docs/q3.pdf)``: from the note's folder, else from the folder's
root) and wiki embeds and links (``![[a.png]]``, ``[[docs/q3.pdf|report]]``: a path from the root or
the note's folder, else a file of that name anywhere, the shortest path when names repeat); a
name with no file type (``Makefile``) is a note's, unless a file beside the note has it and no note
there does (``Attachments._beside``). Each linked file that exists is an attachment of the note: a row of
the mirror's ``resources`` and ``note_resources`` (so the reader's attachments, ``list_resources``,
search's ``resource:`` filters and export see it) and of the ledger's ``vault_files``, which says
where the file is. It is never copied.

A file attached from noted (``noted.ops.attachments.attach_to_note``: the bytes are stored, then
``:/id`` is linked in the note) is written into the folder Obsidian would use when the note's text
is written: ``attachmentFolderPath`` of ``.obsidian/app.json`` (``/`` or none: the folder's root;
``./``: the note's folder; ``./sub``: a folder below the note's; ``dir``: that folder from the root),
and the ``:/id`` link becomes the file's relative path (as does a ``:/id`` link to a note). An
attachment named as a note (``plan.md``) is written ``plan.md.txt``: a ``.md`` file of the folder is a
note, to noted's follower and to Obsidian alike, so it would turn into a note (in a notebook the one
who attached it may not see, recorded as an outside edit) and stop being an attachment. noted
deletes only a file it wrote, and only while it is unchanged (``Resources.delete_resource``).

What a link leads to (``links_of``) and which notebook's folder holds a file (``notebook_of``) tell
a caller limited to some notebooks what it may link and see (``noted.tools.attachments``).
"""

from __future__ import annotations

import contextlib
import json
import mimetypes
import posixpath
import re
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

from noted.errors import NotFoundError
from noted.markdown import (
    NOTE_SUFFIXES,
    WIKI_LINK,
    LinkSpan,
    code_ranges,
    link_spans,
    linked_ids,
    names_file,
    replace_spans,
)
from noted.models import ChangeType, ItemType, new_id
from noted.store.protocol import FileLink
from noted.store.rules import file_extension
from noted.store.sqlite.base import RESOURCE_COLUMNS
from noted.store.sqlite.feed import record
from noted.store.vault.files import ABSENT, FileChanged, Skipped, content_hash
from noted.store.vault.note_names import NoteNames
from noted.store.vault.trash import in_trash, links_from

if TYPE_CHECKING:
    from noted.store.vault.base import VaultCore

APP_SETTINGS = ".obsidian/app.json"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_SIZE = re.compile(r"^\s*\d+(?:\s*x\s*\d+)?\s*$")
"""An embed's ``|alias`` that is an image size (``![[a.png|200]]``, ``|100x80``), not a text."""


def md_path(target: str) -> str:
    """The file a Markdown link target names (``""``: an anchor, an id, a URL)."""
    target = target.strip().removeprefix("<").removesuffix(">")
    if not target or target.startswith(("#", ":/")) or _SCHEME.match(target):
        return ""
    return unquote(target.partition("#")[0].partition("?")[0])


def _is_file(path: str) -> bool:
    return names_file(path)


def _bare(path: str) -> bool:
    """A name with no file type and no folder (``Makefile``): a note's, unless a file beside it has it."""
    return bool(path.strip()) and "/" not in path and posixpath.splitext(path)[1].lower() not in NOTE_SUFFIXES


def _fragment(text: str | None) -> str:
    """A link's ``#fragment`` (a PDF's ``#page=3``) kept on the link that replaces it."""
    return f"#{quote(unquote(text.strip()), safe='=&')}" if text and text.strip() else ""


def written_targets(body: str) -> list[tuple[str, bool]]:
    """The links of ``body`` that may lead to files, as written: (path, True for a wiki link); links to
    notes by path and URLs left out (a bare name, ``Makefile``, may be a note's: ``Attachments.locate``)."""
    found: list[tuple[int, str, bool]] = []
    for match in WIKI_LINK.finditer(body) if "[[" in body else ():
        found.append((match.start(), match.group(2).strip(), True))
    for span in link_spans(body, in_code=True) if "](" in body or "=" in body or "]:" in body else ():
        if path := md_path(span.target):
            found.append((span.start, path, False))
    return [(path, wiki) for _, path, wiki in sorted(found) if _is_file(path) or _bare(path)]


class Attachments:
    """The folder's files as attachments of the notes that link them."""

    def __init__(self, store: VaultCore) -> None:
        self.store = store
        self._names: dict[str, list[str]] | None = None
        self._notes: set[str] | None = None
        self.notes = NoteNames(store)

    def forget(self) -> None:
        """Files may have come or gone (a new batch of changes): list them again when needed."""
        self._names = self._notes = None

    # Reading links -------------------------------------------------------------------------------
    def link(self, note_id: str, rel: str, body: str, actor: str) -> None:
        """The note ``rel``'s attachments made the files its text links to.

        With no file link, nothing is done: the mirror dropped the note's links when its body
        changed, and an unchanged body keeps them.
        """
        paths = list(dict.fromkeys(p for p in (self.find(rel, t, w) for t, w in written_targets(body)) if p))
        if not paths:
            return
        ids = [self._file_id(path, actor) for path in paths]
        with self.store.db.write() as conn:
            conn.execute(
                "DELETE FROM note_resources WHERE note_id = ? "
                "AND resource_id IN (SELECT resource_id FROM vault_files)",
                (note_id,),
            )
            for resource_id in ids:
                conn.execute(
                    "INSERT OR IGNORE INTO note_resources(note_id, resource_id) VALUES (?, ?)",
                    (note_id, resource_id),
                )

    def with_ids(self, note_rel: str, body: str, *, notes: bool = False) -> str:
        """``body`` (of the note ``note_rel``) with each link to a file that is an attachment (and with
        ``notes``, to a note) written ``:/id``, as the other backends keep it: Markdown links and images keep their
        text (their target becomes ``:/id``), wiki links and embeds become Markdown ones
        (``![[a.png|200]]`` → ``![a.png](:/id)``, ``[[Other|see]]`` and ``![[Other]]`` → ``[see](:/id)``). Links in
        code, to nothing and to URLs stay as written."""
        if "[[" not in body and "](" not in body and "=" not in body and "]:" not in body:
            return body
        replacements: list[tuple[LinkSpan, str]] = []
        for span in link_spans(body):
            path = md_path(span.target)
            resource_id = self._id_of(note_rel, path, wiki=False, notes=notes)[0] if path else None
            if resource_id:
                before, _, fragment = span.target.strip().removesuffix(">").partition("#")
                query = before.partition("?")[2]  # a PDF's ?page=2, kept as its #page=3 is
                replacements.append(
                    (span, f":/{resource_id}{'?' + query if query else ''}{_fragment(fragment)}")
                )
        code = code_ranges(body) if "[[" in body else []
        taken = [(s.start, s.end) for s, _ in replacements]
        for match in WIKI_LINK.finditer(body) if "[[" in body else ():
            start, end = match.span()
            if any(a <= start < b or start <= a < end for a, b in [*code, *taken]):
                continue
            embed, path, fragment, alias = (
                match.group(1),
                match.group(2).strip(),
                match.group(3),
                match.group(4),
            )
            resource_id, is_file = (
                self._id_of(note_rel, path, wiki=True, notes=notes) if path else (None, False)
            )
            if resource_id:
                embed = embed if is_file else ""  # (a note's embed: a link to it, in an export)
                text = posixpath.basename(path) if alias is None or (embed and _SIZE.match(alias)) else alias
                replacements.append(
                    (
                        LinkSpan(start, end, match.group(0)),
                        f"{embed}[{text}](:/{resource_id}{_fragment(fragment)})",
                    )
                )
        return replace_spans(body, replacements)

    def _id_of(
        self, note_rel: str, target: str, *, wiki: bool, notes: bool = False
    ) -> tuple[str | None, bool]:
        """The id of the attachment, or (``notes``) of the note, a link leads to; and whether a file's."""
        path = self.find(note_rel, target, wiki)
        if path is not None:
            return self.store.ledger.file_at(path), True
        return (
            self.notes.find(note_rel, target, wiki=wiki) if notes and not _is_file(target) else None
        ), False

    def find(self, note_rel: str, target: str, wiki: bool) -> str | None:
        """The file a link of the note ``note_rel`` leads to, or None."""
        return self.locate(note_rel, target, wiki)[0]

    def locate(self, note_rel: str, target: str, wiki: bool) -> tuple[str | None, bool]:
        """``find``, and whether the file was found by its name alone (a wiki link to no file at the
        path it names): then which file it is depends on every file of the folder."""
        folder = links_from(note_rel).rpartition("/")[0]
        if not _is_file(target):
            return self._beside(folder, target), False
        here = self._file(posixpath.join(folder, target))
        if here or target.startswith("/"):
            return here or self._file(target.lstrip("/")), False
        found = self._file(target)
        if found or not wiki:
            return found, False
        named = self._by_name().get(posixpath.basename(target).casefold(), [])
        ending = "/" + target.casefold()
        named = [  # (``_file``: a plain file, never a symbolic link)
            p for p in named if ("/" not in target or ("/" + p.casefold()).endswith(ending)) and self._file(p)
        ]
        return (min(named, key=lambda p: (p.count("/"), p)) if named else None), True

    def _beside(self, folder: str, target: str) -> str | None:
        """The file a bare name (``Makefile``) leads to: the one in ``folder``, beside the note, when no
        note there has the name. One in the folder every note's attachments share is none: whether it
        is there must not turn a link a scope accepts (to a note) into one it refuses."""
        path = self._file(posixpath.join(folder, target)) if _bare(target) else None
        if path is None or self.notebook_of(path, self.shared_folder()) is None:
            return None
        return None if self._a_note(folder, target) else path

    def _a_note(self, folder: str, target: str) -> bool:
        """Whether a note beside the file has the bare name ``target``: one noted knows, or a note's file
        not followed yet (a scan brings the notes in one by one). Only there: what a note elsewhere is
        called must not change what a note in a scope links to (``list_attachments`` would tell)."""
        rel = posixpath.join(folder, f"{target}.md")
        if self.notes.at(rel) is not None:
            return True
        if self._notes is None:
            self._notes = {rel.casefold() for _, notes in self.store.vault.walk() for rel in notes}
        return rel.casefold() in self._notes

    def _file(self, rel: str) -> str | None:
        rel = posixpath.normpath(rel)
        if rel in (".", "..") or rel.startswith("../") or not self.store.vault.is_other_file(rel):
            return None
        return rel if self.store.vault.state(rel) is not None else None

    def _by_name(self) -> dict[str, list[str]]:
        if self._names is None:
            names: dict[str, list[str]] = {}
            for _, files in self.store.vault.walk(notes=False):
                for rel in files:
                    names.setdefault(posixpath.basename(rel).casefold(), []).append(rel)
            self._names = names
        return self._names

    def _file_id(self, path: str, actor: str) -> str:
        """The attachment id of the folder's file ``path``, its row made (or its size refreshed)."""
        store = self.store
        state = store.vault.state(path)
        size, mtime = (state.size, state.mtime_ns // 1_000_000) if state else (0, 0)
        resource_id = store.ledger.file_at(path)
        with store.db.write() as conn:
            known = conn.execute("SELECT 1 FROM resources WHERE id = ?", (resource_id,)).fetchone()
            if resource_id is not None and known:
                conn.execute(
                    "UPDATE resources SET size = ?, updated_time = ? WHERE id = ? AND size != ?",
                    (size, mtime, resource_id, size),
                )
                return resource_id
            resource_id = new_id()
            name = posixpath.basename(path)
            mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
            conn.execute(
                f"INSERT INTO resources({RESOURCE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (resource_id, name, name, mime, size, file_extension(name), mtime, mtime),
            )
            record(conn, ItemType.RESOURCE, resource_id, ChangeType.CREATE, actor, mtime)
            store.ledger.put_file(conn, resource_id, path)
        return resource_id

    # Writing links -------------------------------------------------------------------------------
    def place(self, body: str, note_rel: str, *, adopt: bool = True) -> str:
        """``body`` with each ``:/id`` link to an attachment made a relative path to its file in the
        folder, the file written first where Obsidian would put it when it is still in the profile
        (``adopt`` False: such a link stays as it is, and nothing is written); and each ``:/id``
        link to a note (the assistant's, a conflict copy's) the path of its file, so no id of
        noted's is written into the folder (one to a trashed note stays as it is)."""
        paths: dict[str, str] = {}
        own, note_rel = note_rel, links_from(note_rel)  # a trashed note's, as from its notebook's folder
        for link_id in linked_ids(body):
            known, note = self.store.ledger.file(link_id), self.store.ledger.note(link_id)
            plan = self.store.vault.planned
            if note is not None:
                path = note.path if note.present and not in_trash(note.path) else None
            elif (
                plan is not None and link_id in plan.paths
            ):  # one this batch makes later (``Notes.plan_notes``)
                path = plan.paths[link_id]
                plan.linkers.setdefault(link_id, set()).add(own)  # (relinked if it lands elsewhere)
            elif known or not adopt:
                path = known[0] if known else None
            else:
                path = self._adopt(link_id, note_rel)
            if path is not None:
                paths[link_id] = path
        if not paths:
            return body
        folder = note_rel.rpartition("/")[0] or "."
        replacements: list[tuple[LinkSpan, str]] = []
        for span in link_spans(body):  # every form: inline, HTML, reference, ``<:/id>``
            raw = span.target.strip().removeprefix("<").removesuffix(">")
            path = paths.get(raw[2:34].lower()) if raw.startswith(":/") else None
            if path is not None:
                replacements.append((span, quote(posixpath.relpath(path, folder), safe="/") + raw[34:]))
        return replace_spans(body, replacements)

    def _adopt(self, resource_id: str, note_rel: str, *, beside: bool = False) -> str | None:
        """Write the profile's attachment into the folder; its path there (None: not an attachment).
        ``beside``: in the note's own folder when new attachments go to one folder for every note
        (``keep_beside``)."""
        store = self.store
        try:
            resource = store.mirror.get_resource(resource_id)
        except NotFoundError:
            return None  # a link to nothing noted knows
        data = store.mirror.read_resource(resource_id)
        stem, suffix = posixpath.splitext(resource.filename)
        if suffix.lower() in NOTE_SUFFIXES:  # the folder would read it as a note: kept as text
            stem, suffix = resource.filename, ".txt"
        folder = note_rel.rpartition("/")[0] if beside and not _per_note(self._setting()) else None
        folder = self.new_folder(note_rel) if folder is None else folder
        path = store.vault.free_name(folder, stem or "attachment", suffix)
        for _ in range(2):  # a name found free, taken meanwhile (the batch's names): never replaced
            with contextlib.suppress(FileChanged):
                store.vault.write(path, data, unchanged=ABSENT)
                break
            path = store.vault.free_name(folder, stem or "attachment", suffix)
        else:
            store.vault.write(path, data, unchanged=ABSENT)
        with store.db.write() as conn:
            store.ledger.put_file(conn, resource_id, path, content_hash(data))
        with contextlib.suppress(OSError):
            store.mirror.resource_path(resource_id).unlink()  # noted's own copy, now in the folder
        self.forget()
        return path

    def new_folder(self, note_rel: str) -> str:
        """Where a new attachment of the note ``note_rel`` goes (``attachmentFolderPath``)."""
        setting = self._setting()
        if _per_note(setting):
            folder = posixpath.normpath(posixpath.join(note_rel.rpartition("/")[0], setting[2:]))
        else:
            folder = posixpath.normpath(setting.strip("/") or ".")
        return "" if folder == "." else folder

    def _setting(self) -> str:
        setting = "/"
        with contextlib.suppress(OSError, Skipped, ValueError, UnicodeDecodeError, AttributeError):
            value = json.loads(self.store.vault.read(APP_SETTINGS).data).get("attachmentFolderPath")
            setting = value if isinstance(value, str) else setting
        return setting.strip()

    def keep_beside(self, resource_id: str, note_rel: str) -> None:
        """Write the profile's attachment, about to be linked from the note ``note_rel``, beside the
        note (see ``_adopt``): a name taken in the folder every note shares, by a file the caller
        may not see, would otherwise show as the ``name 2.txt`` it got."""
        if self.store.ledger.file(resource_id) is None:
            self._adopt(resource_id, note_rel, beside=True)

    # What a link leads to, for a caller limited to some notebooks -------------------------------
    def links_of(self, note_rel: str, body: str) -> list[FileLink]:
        """Each file link of ``body`` (as ``link`` reads them) from the note ``note_rel``: the file
        it leads to, that file's attachment id and the notebook whose folder holds it."""
        shared = self.shared_folder()
        found: list[FileLink] = []
        for target, wiki in dict.fromkeys(written_targets(body)):
            path, by_name = self.locate(note_rel, target, wiki)
            if path is None and not _is_file(target):
                continue  # a link to a note
            if path is None:
                found.append(FileLink(target, wiki, None, None, None, by_name))
            else:
                home = self.notebook_of(path, shared)
                found.append(FileLink(target, wiki, path, self.store.ledger.file_at(path), home, by_name))
        return found

    def notebook_of(self, path: str, shared: str | None) -> str | None:
        """The notebook whose folder holds the file ``path`` (the nearest folder up that is one's),
        None for a file right in ``shared``, the folder every note's new attachments go to."""
        folder = path.rpartition("/")[0]
        if folder == shared:
            return None
        while True:
            found = self.store.ledger.folder_at(folder)
            if found is not None or not folder:
                return found
            folder = folder.rpartition("/")[0]

    def shared_folder(self) -> str | None:
        """The folder new attachments go to when it is one for every note (None: each note's own)."""
        return None if _per_note(self._setting()) else self.new_folder("")


def _per_note(setting: str) -> bool:
    """Whether ``attachmentFolderPath`` puts each note's attachments beside it (``./``, ``./sub``)."""
    return setting == "." or setting.startswith("./")
