"""Attachments joining and leaving notes: attach checked bytes or a file on disk, remove one.

The one way a file joins a note (``attach_to_note``, for the ``attach_file`` tool and the app's
"add attachment"), the one way the app takes an attachment off a note (``remove_attachment``), and
replacing or deleting an attachment everywhere (the ``replace_attachment`` and
``delete_attachment`` tools), each keeping what it takes away as a version, and putting a version
back (``restore_attachment_version``); and which notes link one, as a caller limited to some notebooks may
see them (``linking_notes``).
Refusals are ``InvalidInputError``s whose message says what happened and that nothing was written.
"""

from __future__ import annotations

import mimetypes
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from noted.errors import InvalidInputError, NotedError, NotFoundError, WriteOutcomeUnknownError
from noted.markdown import linked_ids
from noted.models import Note, NotePatch, Resource
from noted.ops.filetypes import MAX_FILE, FileTypeError, check_type, sniff_image, too_large
from noted.store.protocol import HasFileLinks, KeptFile, Store, TidiesCutBatches
from noted.store.rules import attachment_name, clean_title
from noted.store.seen import linking_notes as linking_notes

_OCTET = "application/octet-stream"


def shown(path: Path) -> str:
    """``path`` as a person reads it: ``~/Downloads/a.pdf`` under the home folder."""
    try:
        return str(Path("~") / path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def absolute(text: str) -> Path:
    """The path ``text`` names: ``~`` expanded, relative to the working folder."""
    path = Path(text.strip()).expanduser()
    return path if path.is_absolute() else Path.cwd() / path


# Attach ------------------------------------------------------------------------------------


def link_for(resource: Resource) -> str:
    """The Markdown that shows the attachment in a note: an image, or a link to the file."""
    label = resource.title.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    bang = "!" if resource.mime.startswith("image/") else ""
    return f"{bang}[{label}](:/{resource.id})"


def attach_to_note(
    store: Store,
    note: Note,
    data: bytes,
    *,
    filename: str,
    mime: str,
    title: str,
    actor: str,
    beside: bool = False,
    made_id: str | None = None,
) -> Resource:
    """Store checked bytes as an attachment and append its link to ``note``.

    The one way a file joins a note, for the ``attach_file`` tool and the app's "add attachment":
    the link goes at the end (``![title](:/id)`` for an image), and no attachment is left behind
    if linking fails. Checking the bytes and the name is the caller's part. ``beside`` (a caller
    limited to some notebooks): where notes link files by path, the file goes in the note's own
    folder (``HasFileLinks.keep_beside``), so the name it gets says nothing of files elsewhere.
    ``made_id`` (a proposal's, fixed when it was made) names the attachment; one a run that was
    killed before linking it stored already is linked, not stored twice.
    """
    with store.batch():  # one transaction where the store has them: a kill leaves no attachment unlinked
        resource = _left_by_a_cut_run(store, made_id) if made_id else None
        if resource is None:
            resource = store.add_resource(
                data, filename=filename, mime=mime, title=title or filename, actor=actor, made_id=made_id
            )
        separator = "\n" if note.body and not note.body.endswith("\n\n") else ""
        try:
            if beside and isinstance(store, HasFileLinks):
                store.keep_beside(resource.id, note.id)
            store.update_note(note.id, NotePatch(append=separator + link_for(resource)), actor=actor)
        except WriteOutcomeUnknownError:
            if not isinstance(store, TidiesCutBatches):
                store.delete_resource(resource.id, actor=actor)
            raise  # the link may have landed: the batch's tidy deletes the file only if it did not
        except (NotedError, OSError):
            store.delete_resource(resource.id, actor=actor)
            raise
    return resource


def _left_by_a_cut_run(store: Store, resource_id: str) -> Resource | None:
    try:
        return store.get_resource(resource_id)
    except NotFoundError:
        return None


@dataclass(frozen=True, slots=True)
class PickedFile:
    """A file checked and ready to store (read from disk, or sent by a tool's caller)."""

    data: bytes
    filename: str
    mime: str
    title: str = ""
    """What its link shows ("": the file name)."""


def read_attachable(text: str) -> PickedFile:
    """Read the file ``text`` names (``~`` expanded), refusing what cannot be an attachment.

    Raises:
        InvalidInputError: the path is missing, a folder or not a regular file, cannot be read, or
            is larger than ``MAX_FILE`` (checked before reading).
    """
    path = absolute(text)
    where = shown(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InvalidInputError(f"{where} does not exist; nothing was attached") from None
    except OSError as exc:
        raise InvalidInputError(
            f"{where} cannot be read ({exc.strerror or exc}); nothing was attached"
        ) from None
    if stat.S_ISDIR(info.st_mode):
        raise InvalidInputError(f"{where} is a folder; give the path of a file. Nothing was attached")
    if not stat.S_ISREG(info.st_mode):  # a pipe or a device would block or never end
        raise InvalidInputError(f"{where} is not a regular file; nothing was attached")
    if info.st_size > MAX_FILE:  # the attach_file tool's limit too, 10 MiB
        raise InvalidInputError(too_large(info.st_size))
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE + 1)
    except OSError as exc:
        raise InvalidInputError(
            f"{where} cannot be read ({exc.strerror or exc}); nothing was attached"
        ) from None
    if len(data) > MAX_FILE:  # it grew since stat
        raise InvalidInputError(too_large(len(data)))
    name = attachment_name(path.name)
    return PickedFile(data, name, mime_of(name, data))


def mime_of(filename: str, data: bytes) -> str:
    """The type to store: from the name, except that an image is what its bytes say it is.

    A file named like an image whose bytes are no image noted can check is kept as a plain file
    (linked, not shown), rather than refused: the person asked for this very file.
    """
    guessed = mimetypes.guess_type(filename)[0]
    if guessed is not None and not guessed.startswith("image/"):
        return guessed
    sniffed = sniff_image(data)
    if sniffed is None:
        return _OCTET
    try:
        check_type(data, sniffed)
    except FileTypeError:  # starts like an image but is damaged
        return _OCTET
    return sniffed


def add_from_path(store: Store, note_id: str, text: str, *, actor: str) -> Resource:
    """Store the file at ``text`` and link it at the end of note ``note_id``.

    Raises:
        InvalidInputError: the file cannot be attached (see ``read_attachable``) or the note is in
            the trash.
        NotFoundError: the note is gone.
    """
    picked = read_attachable(text)
    note = store.get_note(note_id)  # read again: the link goes after what the note holds now
    if note.is_trashed:
        raise InvalidInputError("this note is in the trash; restore it first. Nothing was attached")
    return attach_to_note(
        store,
        note,
        picked.data,
        filename=picked.filename,
        mime=picked.mime,
        title=picked.filename,
        actor=actor,
    )


def replace_attachment(
    store: Store,
    resource_id: str,
    data: bytes,
    *,
    filename: str | None = None,
    mime: str | None = None,
    title: str | None = None,
    actor: str,
) -> Resource:
    """Put checked bytes (and a new name, type or title) under the attachment's id, so every note
    that shows it shows the new file. The same bytes under the same name, type and title change
    nothing, and nothing is written (no version, no change to review)."""
    now = store.get_resource(resource_id)
    name = attachment_name(filename) if filename is not None else now.filename
    same = (
        name == now.filename
        and (mime or now.mime) == now.mime
        and (title is None or clean_title(title or name) == now.title)
    )
    if same and store.read_resource(resource_id) == data:
        return now
    return store.replace_resource(resource_id, data, filename=filename, mime=mime, title=title, actor=actor)


# Remove ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Removal:
    """What removing an attachment from a note did."""

    deleted: bool
    """The attachment itself was deleted (no other note linked it)."""
    others: int
    """How many other notes still link it (when it was kept)."""
    kept: KeptFile | None = None
    """Deleted, its file stays in the Markdown folder (noted did not write it)."""


def other_notes(store: Store, resource_id: str, note_id: str) -> int:
    """How many notes other than ``note_id`` link the attachment (trashed ones count: they may return)."""
    return sum(1 for linked in store.resource_notes(resource_id) if linked != note_id)


_LIST_MARK = re.compile(r"^\s*(?:>\s*)*(?:[-*+]|\d+[.)])?\s*(?:\[[ xX]\]\s*)?$")


def _forms(resource_id: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    target = rf"<?:/{resource_id}(?:#[^)\s>]*)?>?"
    title = r"""(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?"""
    inline = re.compile(rf"(!?)\[((?:\\.|[^\]\\])*)\]\(\s*{target}{title}\s*\)")
    reference = re.compile(rf"^ {{0,3}}\[[^\]]+\]:\s*{target}{title}\s*$")
    image = re.compile(rf"""<img\b[^>]*\bsrc\s*=\s*["']:/{resource_id}["'][^>]*>""", re.IGNORECASE)
    anchor = re.compile(rf"""<a\b[^>]*\bhref\s*=\s*["']:/{resource_id}["'][^>]*>(.*?)</a>""", re.IGNORECASE)
    return inline, reference, image, anchor


def unlink_resource(body: str, resource_id: str, *, written: str | None = None) -> str:
    """``body`` without its links to the attachment.

    A line that held only links to it (an image, ``[file.pdf](:/id)``, a list item of one) goes,
    with one blank line around it; a link inside prose leaves its words, an image inside prose goes.
    ``written``: the note's text as its store keeps it, line for line with ``body`` (a Markdown
    folder's, whose links are paths where ``body`` has them as ``:/id``); every line the removal
    does not touch is kept from it, as written.
    """
    inline, reference, image, anchor = _forms(resource_id)
    out: list[str] = []
    skip_blank = dropped_last = False
    lines = body.splitlines(keepends=True)
    kept = written.splitlines(keepends=True) if written is not None else lines
    for line, as_written in zip(lines, kept, strict=True):
        if skip_blank and not line.strip():
            skip_blank = False
            continue
        skip_blank = False
        if f":/{resource_id}" not in line:
            out.append(as_written)
            dropped_last = dropped_last and not line.strip()
            continue
        bare = anchor.sub("", image.sub("", inline.sub("", line)))
        if reference.match(line.rstrip("\r\n")) or _LIST_MARK.match(bare):
            skip_blank = not out or not out[-1].strip()  # keep one blank line between what was around
            dropped_last = True
            continue
        words = inline.sub(lambda m: "" if m.group(1) else _unescape(m.group(2)), line)
        out.append(anchor.sub(lambda m: m.group(1), image.sub("", words)))
        dropped_last = False
    if dropped_last:  # the note ended with the link: end it where its text ends
        while out and not out[-1].strip():
            out.pop()
    return "".join(out)


def _unescape(label: str) -> str:
    return re.sub(r"\\(.)", r"\1", label)


def remove_attachment(store: Store, note_id: str, resource_id: str, *, delete: bool, actor: str) -> Removal:
    """Remove the links to the attachment from note ``note_id``, then delete the attachment when
    ``delete`` and no other note links it (checked again after unlinking).

    Raises:
        InvalidInputError: the note would still mention the attachment (e.g. in a code block);
            nothing was changed.
        ConflictError: the note changed between reading and writing it; nothing was changed.
    """
    note = store.get_note(note_id)
    # A Markdown folder's links are paths: found as :/id, the lines they are not on kept as written.
    with_ids = store.body_with_ids(note_id, note.body) if isinstance(store, HasFileLinks) else note.body
    if resource_id in linked_ids(unlink_resource(with_ids, resource_id)):
        raise InvalidInputError(
            f'the note mentions the attachment in a way noted cannot remove (":/{resource_id}", e.g. in '
            "code); edit the note to remove it. Nothing was changed"
        )
    same_lines = len(with_ids.splitlines()) == len(
        note.body.splitlines()
    )  # (else all as :/id, written as paths)
    body = unlink_resource(with_ids, resource_id, written=note.body if same_lines else None)
    with store.batch():  # one transaction where the store has them: a kill leaves no attachment unlinked
        if delete and isinstance(store, TidiesCutBatches):  # (Joplin: the next batch finishes a cut one)
            store.deleting(resource_id, actor=actor)
        if body != note.body:
            store.update_note(note_id, NotePatch(body=body), actor=actor, base_updated_time=note.updated_time)
        others = other_notes(store, resource_id, note_id)
        if delete and not others:
            kept = delete_attachment(store, resource_id, actor=actor)
            return Removal(deleted=True, others=0, kept=kept)
    return Removal(deleted=False, others=others)


def delete_attachment(store: Store, resource_id: str, *, actor: str) -> KeptFile | None:
    """Delete the attachment; the links to it in notes stay as text, and the store keeps it as a
    version, so ``restore_attachment_version`` brings it back under the same id. Returns the file
    that stays in a Markdown folder (one noted did not write), for the caller to say so."""
    return store.delete_resource(resource_id, actor=actor)


def restore_attachment_version(store: Store, resource_id: str, version_id: int, *, actor: str) -> Resource:
    """Put version ``version_id`` of the attachment back under its id (``noted history ID --restore
    N``, the chat's undo): the file it replaces is kept as a version in turn, and a deleted
    attachment comes back, so the links to it in notes work again.

    Raises:
        NotFoundError: that is no version of this attachment; nothing was written.
    """
    return store.restore_resource_version(resource_id, version_id, actor=actor)
