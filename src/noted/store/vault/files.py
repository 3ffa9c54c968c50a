"""The vault's files: which ones are notes, reading them safely, and replacing them atomically.

Everything here takes paths relative to the vault (``/``-separated, as ``git`` shows them) and
refuses one that would leave it: nothing outside the folder is read or written, and a symbolic link
leading out of it is not followed (for reading or writing).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pathspec

from noted.errors import FolderNotWritableError, InvalidInputError
from noted.store.vault.filestate import (
    ABSENT,
    DIR_LINK,
    IGNORE_LINK,
    LINK,
    FileChanged,
    FileState,
    ReadFile,
    Skipped,
    _same_file,
    content_hash,
    decode,
    file_at,
    has_bad_name,
    link_skipped,
    state_now,
)
from noted.store.vault.journal import SYNC_AT_END, FileJournal, Plan
from noted.store.vault.moves import MoveLog
from noted.tempfiles import sweep, temp_beside

NOTE_SUFFIX = ".md"
TRASH = ".trash"
"""Obsidian's trash folder at the vault's root: trashed notes are moved there."""
MAX_NOTE_BYTES = 5_000_000
"""A larger ``.md`` file is listed as skipped (``noted vault status``) and never rewritten."""


class Vault:
    """The folder: what to skip (dot folders, ``.gitignore``), and file access inside it."""

    def __init__(self, root: Path, own: Path | None = None) -> None:
        self.root = root.resolve()
        self._own = self.rel(own.resolve()) if own is not None else None
        """noted's profile when it lies inside the folder: never read as notes or notebooks."""
        self.moves = MoveLog(own / "vault-moves.log") if own is not None else None
        """The moves of the ``journal`` under way, kept in the profile ``own`` across a crash."""
        self._ignore = self._load_ignore()
        self._parents: dict[str, Path] = {}
        """Each folder's resolved path (cleared when folders move: ``forget_folders``)."""
        self.bad_names: dict[str, str] = {}
        """What the last full ``walk`` left out (names not UTF-8, shown; links), with why."""
        self._journal = FileJournal(self.moves)
        """This thread's ``journal``: how to undo each file change made inside it, in order."""

    def journal(self) -> contextlib.AbstractContextManager[None]:
        """When the block raises, put the files and folders it wrote or moved back as they were.

        ``VaultStore.batch`` runs it inside the mirror's transaction, which is rolled back too, so
        a failed batch leaves neither files nor rows. A crash half way cannot run this: the next
        start does (``noted.store.vault.moves``: a single note's save keeps the file it wrote).
        """
        return self._journal.run()

    def of_several_notes(self) -> None:
        """The ``journal`` under way is of several notes even if it writes one: a crash undoes it."""
        if self.moves is not None and self._journal.active:
            self.moves.start(several=True)

    @contextlib.contextmanager
    def saving(self, actor: str) -> Iterator[None]:
        """Around one note's save: its write is written down as ``actor``'s (``moves.MoveLog.saving``)."""
        alone = not self._journal.active  # (else its ``journal`` closes the log)
        with self.moves.saving(actor, close=alone) if self.moves else contextlib.nullcontext():
            yield

    def undo_moves(self) -> None:
        """Put back the moves of a batch a crash stopped half way (holding the mirror's write lock)."""
        if self.moves is None:
            return
        for target in self.moves.undo():
            rel = self.rel(target)
            if rel is not None:
                self.prune_trash(rel)
        self.forget_folders()

    def make_dir(self, folder: Path) -> None:
        """Make ``folder`` and its missing parents (taken away again by a failing ``journal``, or
        after a crash by the next start when empty: ``MoveLog.undo``)."""
        missing: list[Path] = []
        here = folder
        while not here.exists() and here != self.root:
            missing.append(here)
            here = here.parent
        if missing and self.moves is not None and self._journal.active:
            self.moves.add_dirs(missing)  # (before they are made: a crash's next start removes them)
        folder.mkdir(parents=True, exist_ok=True)
        for made in reversed(missing):  # undone deepest first
            self._journal.remember(made.rmdir)
            self._journal.took(self.rel(made) or "")

    def _load_ignore(self) -> pathspec.GitIgnoreSpec:
        lines: list[str] = []
        if not (self.root / ".gitignore").is_symlink():  # (``IGNORE_LINK``: as git, never one out of it)
            with contextlib.suppress(OSError, UnicodeDecodeError):
                lines = (self.root / ".gitignore").read_text("utf-8").splitlines()
        return pathspec.GitIgnoreSpec.from_lines(lines)

    def reload_ignore(self) -> None:
        self._ignore = self._load_ignore()

    # What is a note ---------------------------------------------------------------------------------
    def skipped_dir(self, rel: str) -> bool:
        """True for dot folders (``.git``, ``.obsidian``, ``.trash``…), ignored folders and the
        profile's own folder."""
        if not rel:
            return False
        if self._own and (rel == self._own or rel.startswith(self._own + "/")):
            return True
        return any(part.startswith(".") for part in rel.split("/")) or self._ignore.match_file(rel + "/")

    def is_read_dir(self, rel: str) -> bool:
        """A folder that is there and read (not skipped): a notebook's folder when noted made it."""
        return (self.root / rel).is_dir() and not self.skipped_dir(rel)

    def is_note_path(self, rel: str) -> bool:
        """True for a ``.md`` file outside skipped folders and not ignored."""
        if not rel.endswith(NOTE_SUFFIX) or rel.startswith("/") or ".." in rel.split("/"):
            return False
        folder = rel.rpartition("/")[0]
        name = rel.rpartition("/")[2]
        if name.startswith(".") or self.skipped_dir(folder):
            return False
        return not self._ignore.match_file(rel)

    def follows(self, rel: str) -> bool:
        """Whether ``rel`` is a file of a note noted follows: a note's (``is_note_path``) or in ``.trash/``."""
        return rel.startswith(TRASH + "/") or self.is_note_path(rel)

    def check_followed(self, rel: str, *, folder: bool = False) -> str:
        """``rel``, the name of a note (or notebook) noted makes; refused when noted would not
        follow it (``.gitignore`` ignores it): git would not keep it, nor a fresh profile see it."""
        if not (not self.skipped_dir(rel) if folder else self.is_note_path(rel)):
            raise InvalidInputError(
                f'"{rel}" would be a file the Markdown folder\'s .gitignore ignores (noted does not follow those)',
                hint="choose another title, or change .gitignore",
            )
        return rel

    def free_note_name(self, folder: str, stem: str) -> str:
        """``free_name`` for a note noted makes, refused (``check_followed``) when ``.gitignore``
        ignores the name asked for, whether or not an ignored file holds it (not ``stem 2.md``)."""
        self.check_followed(f"{folder}/{stem}{NOTE_SUFFIX}".lstrip("/"))
        return self.check_followed(self.free_name(folder, stem))

    def rel(self, path: Path) -> str | None:
        """``path`` relative to the vault (``/``-separated), or None when it lies outside."""
        try:
            return path.relative_to(self.root).as_posix() if path != self.root else ""
        except ValueError:
            return None

    def walk(self, start: str = "", *, notes: bool = True) -> Iterator[tuple[str, list[str]]]:
        """Each folder from ``start`` down (relative, ``""`` for the root) with its note files
        (``notes=False``: its other files, not hidden nor ignored, such as attachments)."""
        if not start:
            self.bad_names = {".gitignore": IGNORE_LINK} if (self.root / ".gitignore").is_symlink() else {}
        for dirpath, dirnames, filenames in os.walk(self.path(start) if start else self.root):
            rel_dir = self.rel(Path(dirpath)) or ""
            dirnames[:] = sorted(
                d
                for d in dirnames
                if not self.skipped_dir(f"{rel_dir}/{d}".lstrip("/"))
                and not self._link(f"{rel_dir}/{d}".lstrip("/"), DIR_LINK)
                and self._utf8(f"{rel_dir}/{d}".lstrip("/"), "a folder")
            )
            sweep(dirpath, filenames)
            files = [f"{rel_dir}/{f}".lstrip("/") for f in sorted(filenames)]
            files = [f for f in files if self._utf8(f, "a file" if f.endswith(NOTE_SUFFIX) else "")]
            if notes:  # (a link that is a note's file is read, and skipped, by name: ``link_skipped``)
                for link in (f for f in files if not f.endswith(NOTE_SUFFIX) and self.is_other_file(f)):
                    self._link(link, LINK)
                yield rel_dir, [n for n in files if self.is_note_path(n)]
            else:
                yield rel_dir, [f for f in files if self.is_other_file(f)]

    def _link(self, rel: str, why: str) -> bool:
        """Whether ``rel`` is a symbolic link: one is left out, in ``bad_names`` with ``why``."""
        if not os.path.islink(self.root / rel):
            return False
        self.bad_names[rel] = why
        return True

    def _utf8(self, rel: str, what: str) -> bool:
        """Whether ``rel``'s name is UTF-8 (noted's names are); one that is not is left in
        ``bad_names`` (``what`` it is: the scan lists it as skipped, shown with ``\\xNN``)."""
        if not has_bad_name(rel):
            return True
        if what:
            shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            self.bad_names[shown] = f"{what} whose name is not UTF-8; noted reads only UTF-8 names"
        return False

    def is_other_file(self, rel: str) -> bool:
        """True for a file that is not a note, outside skipped folders, not hidden nor ignored."""
        name = rel.rpartition("/")[2]
        if rel.endswith(NOTE_SUFFIX) or name.startswith(".") or ".." in rel.split("/"):
            return False
        return not self.skipped_dir(rel.rpartition("/")[0]) and not self._ignore.match_file(rel)

    # Reading and writing ----------------------------------------------------------------------------
    def path(self, rel: str, *, fresh: bool = False) -> Path:
        """The absolute path of ``rel``, refused when it would lead out of the vault.

        Folders are resolved once per batch of reads (``forget_folders`` starts a new one); a write
        (``fresh``) resolves its folder again, so a folder swapped for a link out of the vault since
        is never written through.
        """
        folder, _, name = rel.rpartition("/")
        parent = None if fresh else self._parents.get(folder)
        if parent is None:
            parent = (self.root / folder).resolve()
            self._parents[folder] = parent
        if not parent.is_relative_to(self.root) or ".." in rel.split("/"):
            raise InvalidInputError(f'"{rel}" is outside the Markdown folder {self.root}')
        return parent / name

    def state(self, rel: str) -> FileState | None:
        """Size and mtime of a regular file (None when missing, or not a plain file in the vault)."""
        try:
            st = os.lstat(self.path(rel))
        except (OSError, InvalidInputError):
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        return FileState(st.st_size, st.st_mtime_ns)

    def read(self, rel: str) -> ReadFile:
        """The file's bytes; ``Skipped`` when it is too large, a link out of the vault or not a file."""
        path = self.path(rel)
        try:
            st = os.lstat(path)
        except OSError as exc:
            raise FileNotFoundError(rel) from exc
        if stat.S_ISLNK(st.st_mode):
            raise link_skipped(rel)
        if stat.S_ISDIR(st.st_mode):  # a folder of that name: no file there
            raise FileNotFoundError(rel)
        if st.st_size > MAX_NOTE_BYTES:
            raise Skipped(
                f"larger than {MAX_NOTE_BYTES // 1_000_000} MB", rel, hint="make it smaller, or move it out"
            )
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())  # before the read: a write landing during it is a change
            data = fh.read(MAX_NOTE_BYTES + 1)
        return ReadFile(data, FileState(st.st_size, st.st_mtime_ns))

    def write(self, rel: str, data: bytes, *, unchanged: FileState | None = None, at: int = 0) -> FileState:
        """Replace (or create) the file atomically: a temporary file beside it, fsync, rename.

        ``unchanged``: the state the file had when it was read (``ABSENT``: there was none). It is
        compared again just before the rename, and a file changed meanwhile by another program is
        not replaced: ``FileChanged`` is raised, nothing written. (No lock keeps another program
        out; this leaves it the rename itself.) The state returned is the written file's own, so a
        write landing after the rename is a change too. The file's permission bits are kept; the
        folder is fsynced so the rename survives a crash. ``at``: the file's time in ms (a note's
        updated time, which a Markdown folder keeps as its file's), else now.
        """
        if rel.endswith(NOTE_SUFFIX) and len(data) > MAX_NOTE_BYTES:  # it would be skipped, never read again
            raise InvalidInputError(
                f'"{rel}" would be {len(data) / 1_000_000:.1f} MB, larger than {MAX_NOTE_BYTES // 1_000_000} MB,'
                " the most noted reads of a note in the Markdown folder; nothing was written",
                hint="make the note smaller, or split it",
            )
        path = self.path(rel, fresh=True)
        if path.is_symlink():
            raise InvalidInputError(f'"{rel}" is a symbolic link; noted does not write through links')
        self.make_dir(path.parent)
        journaled = self._journal.active
        before = path.read_bytes() if journaled and path.exists() else None
        mode = None
        with contextlib.suppress(FileNotFoundError):
            mode = stat.S_IMODE(os.stat(path).st_mode)
        temp = temp_beside(path)
        # A new file of a journal is synced with the others at its end: until then a crash undoes
        # it from the move log, whose line is synced before the rename (even one the crash emptied).
        later = SYNC_AT_END and journaled and mode is None and self.moves is not None
        try:
            with open(temp, "wb") as fh:
                fh.write(data)
                fh.flush()
                if at:
                    os.utime(fh.fileno(), ns=(at * 1_000_000,) * 2)
                if not later:
                    os.fsync(fh.fileno())
                st = os.fstat(fh.fileno())  # a rename keeps it: the file as noted left it
            if mode is not None:
                os.chmod(temp, mode)
            if self.moves is not None and (journaled or self.moves.saver() is not None):
                self.moves.add_write(path, before, data)  # (a write refused next: its undo finds no change)
            if unchanged is not None and state_now(path) != unchanged:  # (last: the nearest the rename)
                self._journal.forget_names()  # (a name found free may be taken now)
                raise FileChanged(
                    f'"{rel}" changed outside noted while noted was writing it; nothing was written'
                )
            os.replace(temp, path)
        except PermissionError as exc:  # the folder took the temporary file: the file itself refuses
            temp.unlink(missing_ok=True)
            raise FolderNotWritableError(
                f'cannot replace the file "{rel}" in the Markdown folder ({exc.strerror})',
                hint="it is read-only or immutable (lsattr shows an i); make it writable, then run the command again",
            ) from None
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        if mode is None:
            self._journal.took(rel)
        if journaled:  # (only once it is written: a write refused has nothing to undo)
            self._journal.remember(lambda: path.unlink() if before is None else self.write(rel, before))
        self._journal.sync_dir(path.parent, with_files=later)
        return FileState(st.st_size, st.st_mtime_ns)

    def forget_folders(self) -> None:
        """Resolve folders afresh (after a folder was renamed, moved or replaced)."""
        self._parents.clear()

    def move(self, old: str, new: str) -> None:
        """Rename a file or folder inside the vault; refused when ``new`` exists."""
        self.forget_folders()
        source, target = self.path(old, fresh=True), self.path(new, fresh=True)
        if self.taken(new, by=old):
            raise InvalidInputError(f'"{new}" exists already in the Markdown folder')
        if source.is_symlink():  # (noted moves only what it reads)
            raise link_skipped(old)
        self.make_dir(target.parent)
        if self.moves is not None and self._journal.active:
            self.moves.add(source, target)
        os.rename(source, target)
        self._journal.moved_names(old, new, folder=target.is_dir())
        self._journal.remember(lambda: os.rename(target, source))
        self._journal.sync_dir(target.parent)
        if source.parent != target.parent:
            self._journal.sync_dir(source.parent)

    def taken(self, rel: str, *, by: str) -> bool:
        """``rel`` is there and is not ``by`` (as it is on a case-insensitive file system when the
        two differ only in case)."""
        target = self.path(rel, fresh=True)
        return (target.exists() or target.is_symlink()) and not _same_file(self.path(by, fresh=True), target)

    def remove_dir(self, rel: str) -> bool:
        """Remove the folder ``rel`` when empty (``FileJournal.remove_dir``: a failing ``journal``
        makes it again); False when it is not."""
        with contextlib.suppress(InvalidInputError):
            return self._journal.remove_dir(self.path(rel, fresh=True))
        return False

    def prune_trash(self, rel: str) -> None:
        """Remove the folders of ``.trash/`` above ``rel`` that are left empty (``.trash`` stays)."""
        folder = rel.rpartition("/")[0]
        while folder.startswith(TRASH + "/") and self.remove_dir(folder):
            folder = folder.rpartition("/")[0]

    def free_name(self, folder: str, stem: str, suffix: str = NOTE_SUFFIX) -> str:
        """``folder/stem.md``, or ``stem 2.md``… when taken (by any name differing only in case too).

        In a ``journal`` the folder is listed once, and the name given is taken from then on (the
        batch is about to write it): a batch of many new notes does not list the folder for each.
        """

        def listed() -> set[str]:
            with contextlib.suppress(OSError):
                return {name.casefold() for name in os.listdir(self.path(folder) if folder else self.root)}
            return set()

        taken = self._journal.names(folder, listed)
        name, n = f"{stem}{suffix}", 2
        while name.casefold() in taken:
            name, n = f"{stem} {n}{suffix}", n + 1
        taken.add(name.casefold())
        return f"{folder}/{name}".lstrip("/")

    @property
    def planned(self) -> Plan | None:
        """The paths of the notes the ``journal`` under way will make (``FileJournal.planned``)."""
        return self._journal.planned


__all__ = [  # (what ``filestate`` holds, as the other modules import it from here)
    "ABSENT", "MAX_NOTE_BYTES", "NOTE_SUFFIX", "TRASH", "FileChanged", "FileState", "ReadFile", "Skipped",
    "Vault", "content_hash", "decode", "file_at", "has_bad_name",
]  # fmt: skip
