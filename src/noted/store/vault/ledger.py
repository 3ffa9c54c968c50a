"""What the sidecar remembers of the files: which file each note and notebook is, and as what.

Tables beside the mirror's own (the same database, so a note's row and its file's row change
in one transaction):

- ``vault_notes``: a note's file (``path``), where it came from when it is in the trash
  (``origin``), and the size, mtime and hash it had when noted last read or wrote it.
- ``vault_folders``: a notebook's folder (``""`` is the vault's root) and its ``origin`` likewise.
- ``vault_fronts``: what of a note's file is not its body (the front matter as written, byte for
  byte, line endings, byte-order mark), as noted last read or wrote it, so a file written back after
  it went (a restore) is that file again and not one rebuilt from the few keys the mirror holds.
- ``vault_skipped``: files left alone and why (``noted vault status``).
- ``vault_files``: attachments that are files of the folder (an image a note links to), and the
  hash of what noted wrote when noted wrote the file (``""``: not noted's, never deleted by it).

They are a cache of the files: deleting the sidecar loses no note, only ids, history and chats.
"""

from __future__ import annotations

from dataclasses import dataclass

import apsw

from noted.store.sqlite.db import Database
from noted.store.vault.text import FileText

SCHEMA = """
CREATE TABLE IF NOT EXISTS vault_notes(
    note_id TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, origin TEXT NOT NULL DEFAULT '',
    size INTEGER NOT NULL DEFAULT -1, mtime_ns INTEGER NOT NULL DEFAULT 0, hash TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS vault_notes_hash ON vault_notes(hash);
CREATE TABLE IF NOT EXISTS vault_folders(
    folder_id TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, origin TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS vault_fronts(
    note_id TEXT PRIMARY KEY, front TEXT, front_tail TEXT NOT NULL, crlf INTEGER NOT NULL,
    bom INTEGER NOT NULL, final_newline INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vault_skipped(path TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vault_files(
    resource_id TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, written_hash TEXT NOT NULL DEFAULT '');
"""


@dataclass(frozen=True, slots=True)
class NoteFile:
    note_id: str
    path: str
    origin: str
    size: int
    mtime_ns: int
    hash: str
    """The content's hash when noted last read or wrote it; kept after the file went, so the
    file found again elsewhere (a move seen in two watcher batches) is known by it. In ``.trash/``,
    what noted put there: an edit made there is followed, not taken as noted's to delete
    (``noted.store.vault.trash``)."""

    @property
    def present(self) -> bool:
        """False once the file went outside noted (``size`` is -1 then)."""
        return self.size >= 0


class Ledger:
    """Reads and writes of the tables (writes inside the caller's transaction)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        with db.write() as conn:
            conn.execute(SCHEMA)

    # Notes ---------------------------------------------------------------------------------------
    def note(self, note_id: str) -> NoteFile | None:
        return self._one("note_id = ?", note_id)

    def note_at(self, path: str) -> NoteFile | None:
        return self._one("path = ?", path)

    def notes_with_hash(self, digest: str) -> list[NoteFile]:
        with self.db.read() as conn:
            rows = conn.execute(f"SELECT {_NOTE} FROM vault_notes WHERE hash = ?", (digest,)).fetchall()
        return [NoteFile(*r) for r in rows]

    def notes_under(self, path: str) -> list[NoteFile]:
        """The notes whose file is ``path`` or lies below the folder ``path``."""
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {_NOTE} FROM vault_notes WHERE path = ? OR path LIKE ? ESCAPE '\\'",
                (path, _like(path) + "/%"),
            ).fetchall()
        return [NoteFile(*r) for r in rows]

    def has_notes(self) -> bool:
        with self.db.read() as conn:
            return conn.execute("SELECT 1 FROM vault_notes LIMIT 1").fetchone() is not None

    def all_notes(self) -> list[NoteFile]:
        with self.db.read() as conn:
            return [NoteFile(*r) for r in conn.execute(f"SELECT {_NOTE} FROM vault_notes")]

    def _one(self, where: str, value: str) -> NoteFile | None:
        with self.db.read() as conn:
            row = conn.execute(f"SELECT {_NOTE} FROM vault_notes WHERE {where}", (value,)).fetchone()
        return NoteFile(*row) if row else None

    def put_note(self, conn: apsw.Connection, f: NoteFile) -> None:
        conn.execute(
            "DELETE FROM vault_fronts WHERE note_id IN"
            " (SELECT note_id FROM vault_notes WHERE path = ? AND note_id != ?)",
            (f.path, f.note_id),
        )
        conn.execute("DELETE FROM vault_notes WHERE path = ? AND note_id != ?", (f.path, f.note_id))
        conn.execute(
            f"INSERT OR REPLACE INTO vault_notes({_NOTE}) VALUES (?, ?, ?, ?, ?, ?)",
            (f.note_id, f.path, f.origin, f.size, f.mtime_ns, f.hash),
        )

    def drop_note(self, conn: apsw.Connection, note_id: str) -> None:
        conn.execute("DELETE FROM vault_notes WHERE note_id = ?", (note_id,))
        conn.execute("DELETE FROM vault_fronts WHERE note_id = ?", (note_id,))

    def front(self, note_id: str) -> FileText | None:
        """The note's file as noted last read or wrote it, its body left out (``""``); None when
        noted has not kept it (a sidecar from before it did)."""
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT front, front_tail, crlf, bom, final_newline FROM vault_fronts WHERE note_id = ?",
                (note_id,),
            ).fetchone()
        if row is None:
            return None
        front, tail, crlf, bom, final = row
        return FileText(front, str(tail), "", bool(crlf), bool(bom), bool(final))

    def notes_without_front(self) -> list[NoteFile]:
        """The notes whose file is there and whose ``front`` noted has not kept (an older sidecar)."""
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {_NOTE} FROM vault_notes WHERE size >= 0"
                " AND note_id NOT IN (SELECT note_id FROM vault_fronts)"
            ).fetchall()
        return [NoteFile(*r) for r in rows]

    def put_front(self, conn: apsw.Connection, note_id: str, ft: FileText) -> None:
        """Keep all of the file's text ``ft`` but its body (the mirror holds that)."""
        conn.execute(
            "INSERT OR REPLACE INTO vault_fronts(note_id, front, front_tail, crlf, bom, final_newline)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (note_id, ft.front, ft.front_tail, int(ft.crlf), int(ft.bom), int(ft.final_newline)),
        )

    # Folders -------------------------------------------------------------------------------------
    def folder_path(self, folder_id: str) -> str | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT path FROM vault_folders WHERE folder_id = ?", (folder_id,)).fetchone()
        return None if row is None else str(row[0])

    def folder_at(self, path: str) -> str | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT folder_id FROM vault_folders WHERE path = ?", (path,)).fetchone()
        return None if row is None else str(row[0])

    def all_folders(self) -> dict[str, str]:
        """Folder path → notebook id."""
        with self.db.read() as conn:
            return {str(p): str(i) for i, p in conn.execute("SELECT folder_id, path FROM vault_folders")}

    def put_folder(self, conn: apsw.Connection, folder_id: str, path: str, origin: str = "") -> None:
        conn.execute("DELETE FROM vault_folders WHERE path = ? AND folder_id != ?", (path, folder_id))
        conn.execute(
            "INSERT OR REPLACE INTO vault_folders(folder_id, path, origin) VALUES (?, ?, ?)",
            (folder_id, path, origin),
        )

    def drop_folder(self, conn: apsw.Connection, folder_id: str) -> None:
        conn.execute("DELETE FROM vault_folders WHERE folder_id = ?", (folder_id,))

    def move_prefix(self, conn: apsw.Connection, old: str, new: str) -> None:
        """Every folder and note path under ``old/`` now under ``new/`` (a folder renamed or moved)."""
        for table in ("vault_folders", "vault_notes"):
            conn.execute(
                f"UPDATE {table} SET path = ? || substr(path, ?) WHERE path LIKE ? ESCAPE '\\'",
                (new + "/", len(old) + 2, _like(old) + "/%"),
            )

    # Attachments -------------------------------------------------------------------------------
    def file(self, resource_id: str) -> tuple[str, str] | None:
        """The attachment's path in the folder and the hash noted wrote (``""``: not noted's)."""
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT path, written_hash FROM vault_files WHERE resource_id = ?", (resource_id,)
            ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def file_at(self, path: str) -> str | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT resource_id FROM vault_files WHERE path = ?", (path,)).fetchone()
        return None if row is None else str(row[0])

    def put_file(self, conn: apsw.Connection, resource_id: str, path: str, written_hash: str = "") -> None:
        conn.execute("DELETE FROM vault_files WHERE path = ? AND resource_id != ?", (path, resource_id))
        conn.execute(
            "INSERT OR REPLACE INTO vault_files(resource_id, path, written_hash) VALUES (?, ?, ?)",
            (resource_id, path, written_hash),
        )

    def drop_file(self, conn: apsw.Connection, resource_id: str) -> None:
        conn.execute("DELETE FROM vault_files WHERE resource_id = ?", (resource_id,))

    # Skipped files -------------------------------------------------------------------------------
    def skip(self, conn: apsw.Connection, path: str, reason: str | None) -> None:
        if reason is None:
            conn.execute("DELETE FROM vault_skipped WHERE path = ?", (path,))
        else:
            conn.execute("INSERT OR REPLACE INTO vault_skipped(path, reason) VALUES (?, ?)", (path, reason))

    def skipped(self) -> list[tuple[str, str]]:
        with self.db.read() as conn:
            return [
                (str(p), str(r))
                for p, r in conn.execute("SELECT path, reason FROM vault_skipped ORDER BY path")
            ]


_NOTE = "note_id, path, origin, size, mtime_ns, hash"


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
