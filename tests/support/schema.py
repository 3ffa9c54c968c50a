"""Databases as an older noted left them, for the tests of migrations."""

from __future__ import annotations

from pathlib import Path

import apsw

from noted.store.sqlite.schema import MIGRATIONS

FILLER = "words about the quarter and the plans for the team, written down at some length. "

SCHEMA_2_NOTES = (
    (1, "Quarter", FILLER + "budget and budget again.\n"),
    (2, "Review", "## Budget\n\n" + FILLER + "more words here\n"),
)
"""(rowid, title, body): the same word twice in one's text, once in the other's heading."""


def schema_2_database(path: Path) -> None:
    """A database as noted made it before headings had a column: schema 2, ``SCHEMA_2_NOTES``
    in notebook ``f`` (ids ``n1``, ``n2``)."""
    conn = apsw.Connection(str(path))
    with conn:
        for migration in MIGRATIONS[:2]:
            migration.apply(conn)
        conn.execute("INSERT INTO folders(id, title, created_time, updated_time) VALUES ('f', 'Inbox', 1, 1)")
        for rowid, title, body in SCHEMA_2_NOTES:
            conn.execute(
                "INSERT INTO notes(rowid, id, parent_id, title, body, created_time, updated_time, "
                "user_created_time, user_updated_time) VALUES (?, ?, 'f', ?, ?, 1, 1, 1, 1)",
                (rowid, f"n{rowid}", title, body),
            )
        conn.execute("PRAGMA user_version=2")
    conn.close()
