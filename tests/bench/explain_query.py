"""Show why a keyword search is slow: its SQL, SQLite's query plan, and where the time goes.

Usage::

    python3 tests/bench/explain_query.py --notes 10000 -- "tag:*" "-tag:work" "the"

Runs against the profile ``bench_store.py`` cached for that size (build it first). For each query
it prints the statements ``KeywordSearch.search`` runs (caught with an apsw tracer), SQLite's
``EXPLAIN QUERY PLAN`` and median CPU time of each, and the CPU time of the whole search (the
difference is Python: parsing, snippets and sections of the returned page).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import apsw

from noted.search.keyword import KeywordSearch
from noted.store.sqlite import SqliteStore

OUT = Path(__file__).resolve().parent / "out"
_SKIP = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "PRAGMA")


def cpu_ms(fn: Callable[[], object], runs: int) -> float:
    fn()
    samples = []
    for _ in range(runs):
        start = time.thread_time()
        fn()
        samples.append((time.thread_time() - start) * 1000)
    return statistics.median(samples)


def statements(store: SqliteStore, search: KeywordSearch, query: str) -> list[tuple[str, Any]]:
    """The SQL statements one ``search(query)`` runs, caught by an apsw execution tracer.

    Tracing the real calls (rather than calling the compiler here) keeps this tool true to
    whatever ``KeywordSearch`` does today.
    """
    caught: list[tuple[str, Any]] = []

    def tracer(_cursor: apsw.Cursor, sql: str, bindings: Any) -> bool:
        if not sql.lstrip().upper().startswith(_SKIP):
            caught.append((sql, bindings))
        return True

    conn = store.db.connection()
    conn.exec_trace = tracer
    try:
        search.search(query, limit=20)
    finally:
        conn.exec_trace = None
    return caught


def _fetch_all(conn: apsw.Connection, sql: str, params: Any) -> object:
    return conn.execute(sql, params).fetchall()


def explain(store: SqliteStore, query: str, runs: int) -> None:
    search = KeywordSearch(store)
    whole = cpu_ms(lambda: search.search(query, limit=20), runs)
    print(f"=== {query}")
    sql_total = 0.0
    conn = store.db.connection()
    for sql, bindings in statements(store, search, query):
        params = bindings if bindings is not None else ()
        print(f"{sql}\nparams: {params}")
        for row in conn.execute("EXPLAIN QUERY PLAN " + sql, params):
            print(f"    {row[3]}")
        spent = cpu_ms(partial(_fetch_all, conn, sql, params), runs)
        sql_total += spent
        print(f"  CPU ms of this statement: {spent:.2f}")
    print(f"CPU ms: search() {whole:.2f}, its SQL {sql_total:.2f}, Python {whole - sql_total:.2f}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("queries", nargs="+")
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--import-path", choices=("transfer", "batch"), default="transfer")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    profile = OUT / f"profile-{args.notes}-s{args.seed}-{args.import_path}"
    if not (profile / "notes.db").exists():
        parser.error(f"no profile at {profile}; run bench_store.py --notes {args.notes} first")
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        for query in args.queries:
            explain(store, query, args.runs)
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
