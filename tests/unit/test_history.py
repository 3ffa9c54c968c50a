"""Note history as both stores keep it (``noted.store.history``): deltas, thinning, packing.

The table tests run ``RevisionTable`` on a real SQLite table with the store's own schema, with
the clock in the test's hands, so ages of weeks and months can be tried without waiting.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noted.models import Note
from noted.store.history.delta import pack_delta, pack_whole, unpack_delta
from noted.store.history.table import MAX_CHAIN, RevisionTable
from noted.store.history.thinning import DAY_MS, Row, Thinning, dropped
from noted.store.revisions import SessionBursts
from noted.store.sqlite.db import Database

NOW = 20_000 * DAY_MS  # 2024-10-04, a Friday
HOUR = DAY_MS // 24

texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=300)


@given(base=texts, body=texts)
def test_a_delta_gives_back_exactly_the_body(base: str, body: str) -> None:
    old, new = base.encode(), body.encode()
    assert unpack_delta(old, pack_delta(old, new)) == new


def test_an_appended_state_is_stored_in_a_few_bytes() -> None:
    # Not vacuous: the whole body compresses to far more than the bound below.
    log = "".join(f"{i:05d} the indexer wrote a line about something it saw\n" for i in range(2_000))
    before, after = log.encode(), (log + "one more line\n").encode()
    assert len(pack_whole(before)) > 2_000
    assert len(pack_delta(after, before)) < 40


@dataclass
class Table:
    """A revisions table in a real database, and the texts saved into it (the truth)."""

    db: Database
    table: RevisionTable
    bursts: SessionBursts
    saved: dict[int, tuple[str, str, int, str]]
    """revision id → (title, body, time, actor), as saved."""

    def save(
        self, body: str, actor: str, time: int, *, note_id: str = "n" * 32, session: str | None = None
    ) -> int:
        note = Note(
            note_id, "", f"title {len(self.saved)}", body, time, time, time, time, False, 0, 0, "", 0, False
        )
        with self.db.write() as conn:
            self.table.save(conn, note, actor, time, session=session, bursts=self.bursts)
            row = conn.execute("SELECT max(id) FROM revisions WHERE note_id = ?", (note_id,)).fetchone()
        self.saved[int(row[0])] = (note.title, body, time, actor)
        return int(row[0])

    def check_restorable(self, note_id: str = "n" * 32) -> list[int]:
        """Every revision left restores exactly, by history and one by one; returns their ids."""
        with self.db.read() as conn:
            history = self.table.history(conn, note_id)
            singles = [self.table.get(conn, r.id) for r in history]
        for revision, single in zip(history, singles, strict=True):
            title, body, time, actor = self.saved[revision.id]
            assert (revision.title, revision.body, revision.time, revision.actor) == (
                title,
                body,
                time,
                actor,
            )
            assert single == revision
        return [r.id for r in history]

    def column(self, sql: str) -> list[Any]:
        with self.db.read() as conn:
            return [r[0] for r in conn.execute(sql)]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    db = Database(tmp_path / "notes.db")  # the store's schema, migrations included
    yield Table(db, RevisionTable("revisions", Thinning(7, 90)), SessionBursts(), {})
    db.close()


def test_saves_store_deltas_and_every_one_restores(table: Table) -> None:
    body = "".join(f"{i} a line that was there from the start\n" for i in range(60))
    for i in range(250):
        body += f"line {i}\n"
        table.save(body, "mcp:logger", NOW + i)
    assert len(table.check_restorable()) == 250
    whole = table.column("SELECT id FROM revisions WHERE base IS NULL ORDER BY id")
    # A whole row every MAX_CHAIN saves keeps any state quick to rebuild; the rest are deltas.
    assert whole == list(range(1, 251, MAX_CHAIN))
    assert table.column("SELECT max(depth) FROM revisions")[0] == MAX_CHAIN - 1
    assert sum(map(len, table.column("SELECT body FROM revisions WHERE base IS NOT NULL"))) < 250 * 40


def test_a_burst_rewrites_the_newest_and_keeps_the_one_before(table: Table) -> None:
    first = table.save("one\n", "user", NOW)
    second = table.save("one\ntwo\n", "user", NOW + 1, session="s")
    table.save("one\ntwo\nthree\n", "user", NOW + 2, session="s")  # joins the second
    table.saved[second] = (table.saved[second][0], "one\ntwo\nthree\n", NOW + 2, "user")
    assert table.check_restorable() == [second, first]


# Thinning ----------------------------------------------------------------------------------
def rows(*spec: tuple[int, str]) -> list[Row]:
    return [Row(i, time, actor) for i, (time, actor) in enumerate(spec, start=1)]


def test_the_first_window_is_never_thinned() -> None:
    recent = rows(*[(NOW - 6 * DAY_MS + i, "user") for i in range(50)])
    assert dropped(recent, NOW, Thinning(7, 90)) == set()


def test_old_revisions_keep_the_last_of_each_day_then_of_each_week() -> None:
    day_ago = [(NOW - 10 * DAY_MS + h * HOUR, "user") for h in range(5)]  # one day, five saves
    months_ago = [(NOW - 200 * DAY_MS + d * DAY_MS, "user") for d in range(7)]  # one Monday week
    spec = rows(*months_ago, *day_ago, (NOW, "user"))
    kept = {r.id for r in spec} - dropped(spec, NOW, Thinning(7, 90))
    assert kept == {7, 12, 13}


def test_the_state_each_writer_left_is_kept() -> None:
    # user, user, assistant, user on one old day: the user's state before the assistant wrote
    # and the assistant's own are what an undo needs; only the first user save can go.
    day = NOW - 30 * DAY_MS
    spec = rows((day, "user"), (day + 1, "user"), (day + 2, "assistant:c1"), (day + 3, "user"), (NOW, "user"))
    assert dropped(spec, NOW, Thinning(7, 90)) == {1}


@st.composite
def edits(draw: st.DrawFn) -> list[tuple[str, str, int]]:
    """A note's saves: (body, actor, time), oldest first, over up to a year, with every kind of edit."""
    body = draw(texts)
    time = NOW - 400 * DAY_MS
    saves = []
    for _ in range(draw(st.integers(1, 40))):
        kind = draw(st.sampled_from(["append", "prepend", "middle", "replace", "same"]))
        piece = draw(texts)
        if kind == "append":
            body += piece
        elif kind == "prepend":
            body = piece + body
        elif kind == "middle":
            at = draw(st.integers(0, len(body)))
            body = body[:at] + piece + body[at + draw(st.integers(0, 20)) :]
        elif kind == "replace":
            body = piece
        time += draw(st.sampled_from([1, HOUR, 5 * HOUR, DAY_MS, 9 * DAY_MS]))
        saves.append((body, draw(st.sampled_from(["user", "user", "mcp:app"])), time))
    return saves


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(saves=edits(), age=st.integers(0, 500), pack=st.booleans())
def test_every_revision_the_rule_keeps_restores_exactly(
    tmp_path_factory: pytest.TempPathFactory, saves: list[tuple[str, str, int]], age: int, pack: bool
) -> None:
    db = Database(tmp_path_factory.mktemp("history") / "notes.db")
    table = Table(db, RevisionTable("revisions", Thinning(7, 60)), SessionBursts(), {})
    try:
        for body, actor, time in saves:
            table.save(body, actor, time)
        now = saves[-1][2] + age * HOUR
        before = sorted(table.saved)
        expected = set(before) - dropped(
            [Row(i, table.saved[i][2], table.saved[i][3]) for i in before], now, table.table.rule
        )
        with db.write() as conn:
            if pack:
                table.table.pack(conn, "n" * 32, now)
            else:
                table.table.thin(conn, "n" * 32, now)
        left = set(table.check_restorable())
        assert left == expected
        assert max(before) in left  # the newest
        assert {i for i in before if table.saved[i][2] >= now - 7 * DAY_MS} <= left
        # Thinning again later, after more saves, still leaves every kept one whole.
        table.save(saves[-1][0] + "!", "user", now + 1)
        with db.write() as conn:
            table.table.thin(conn, "n" * 32, now + 30 * DAY_MS)
        table.check_restorable()
    finally:
        db.close()


def test_thinning_other_notes_leaves_this_one_alone(table: Table) -> None:
    for i in range(5):
        table.save(f"a{i}", "user", NOW - 100 * DAY_MS + i, note_id="a" * 32)
        table.save(f"b{i}", "user", NOW - 100 * DAY_MS + i, note_id="b" * 32)
    with table.db.write() as conn:
        assert table.table.thin(conn, "a" * 32, NOW) == 4
    assert len(table.check_restorable("a" * 32)) == 1
    assert len(table.check_restorable("b" * 32)) == 5


def test_what_the_rule_drops_once_it_drops_at_every_later_moment() -> None:
    # Found by the property test above: three saves of one day, the first a millisecond older than
    # the others. Once that day had aged past the daily window by that millisecond, the first save
    # sat alone in the weekly tier and counted as its week's last, so a rule applied once kept what
    # the saves' own thinning had already dropped. A later revision of the same week now counts
    # whatever its own tier.
    start = 19_600 * DAY_MS
    spec = rows(
        (start + 1, "user"), (start + 2, "user"), (start + HOUR, "user"), (start + 70 * DAY_MS, "user")
    )
    early, late = start + 30 * DAY_MS, start + 60 * DAY_MS + 2  # the daily window ends between saves 1 and 2
    first = dropped(spec, early, Thinning(7, 60))
    assert first == {1, 2}
    assert first <= dropped(spec, late, Thinning(7, 60))


def test_a_listing_of_a_long_history_reads_no_bodies(tmp_path: Path) -> None:
    """``noted history NOTE``, the app's history view and ``note_history`` over MCP list who saved
    when; each rebuilt every revision's whole text first. A note an AI app appended to a thousand
    times (185 KB) took 400 MB to list, 2 GB for a 1 MB note. Listed without bodies, the memory
    is the rows'. Not vacuous: the same history with its bodies needs over 20 times as much."""
    import tracemalloc

    from noted.models import NoteDraft, NotePatch
    from noted.store.sqlite import SqliteStore

    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    try:
        folder = store.create_folder("Log", actor="user")
        note = store.create_note(NoteDraft("Log", "", folder.id), actor="user")
        body = ""
        for i in range(300):
            body += f"{i:04d} " + "an AI app appends a line of its log here " * 5 + "\n"
            store.update_note(note.id, NotePatch(body=body), actor="mcp:logger", session=f"s{i}")

        def peak(bodies: bool) -> tuple[int, list[int]]:
            tracemalloc.start()
            try:
                revisions = store.note_history(note.id, bodies=bodies)
                return tracemalloc.get_traced_memory()[1], [r.id for r in revisions]
            finally:
                tracemalloc.stop()

        lean, ids = peak(False)
        full, all_ids = peak(True)
        assert ids == all_ids and len(ids) == 301
        assert full > 20 * lean, (full, lean)
        listed = store.note_history(note.id, bodies=False)
        assert {r.body for r in listed} == {""}
        assert store.get_revision(listed[0].id).body == body  # one revision still reads whole
    finally:
        store.close()


def test_packing_a_long_history_holds_one_text_at_a_time(table: Table) -> None:
    """``noted history --prune`` packed each note with every one of its revisions' texts in
    memory at once (228 MB for 1,000 revisions of a 185 KB note); each is rebuilt from the one
    before, so two at a time are enough. Not vacuous: the texts together are 30 times the bound."""
    import tracemalloc

    body = ""
    for i in range(300):
        body += f"{i:04d} " + "an AI app appends a line of its log here " * 5 + "\n"
        table.save(body, "mcp:logger", NOW + i)
    assert sum(len(t[1]) for t in table.saved.values()) > 30 * 3 * len(body)
    tracemalloc.start()
    try:
        with table.db.write() as conn:
            table.table.pack(conn, "n" * 32, NOW + 300)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(body) + 2_000_000, peak
    table.check_restorable()
