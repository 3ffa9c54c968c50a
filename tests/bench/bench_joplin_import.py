"""Benchmark of an import into a real Joplin: wall time and the requests each note costs.

Usage: ``python3 tests/bench/bench_joplin_import.py [--notes 500]``. Starts a Joplin of its own
(``tests.support.joplin.bench_server``), writes a corpus (``corpus.py --markdown``: tags, to-dos,
links), imports it through ``JoplinStore`` with every request recorded, and prints the wall time,
the requests per note, the most frequent kinds of request (method and path, ids made ``ID``) and
the load average.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[2] / "src"))

from corpus import Corpus, write_markdown  # noqa: E402
from tests.support.joplin import Wire, bench_server  # noqa: E402

from noted.store.transfer import import_markdown  # noqa: E402

_ID = re.compile(r"[0-9a-f]{32}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=500)
    args = parser.parse_args(argv)
    with bench_server("bench-joplin-import-") as (joplin, work):
        corpus = work / "corpus"
        write_markdown(Corpus(args.notes), corpus)
        wire = Wire()
        store = joplin.store(work / "profile", wire=wire)
        try:
            wire.clear()
            load_before = os.getloadavg()
            start = time.perf_counter()
            report = import_markdown(store, corpus)
            wall = time.perf_counter() - start
            load_after = os.getloadavg()
        finally:
            store.close()
        kinds = Counter(f"{method} {_ID.sub('ID', path)}" for method, path, _ in wire.requests)
        print(f"{report.notes_created} notes created, {report.notes_updated} updated in {wall:.1f} s")
        print(f"{len(wire.requests)} requests, {len(wire.requests) / max(args.notes, 1):.1f} a note")
        for kind, count in kinds.most_common(12):
            print(f"  {count:6d}  {count / max(args.notes, 1):5.2f}/note  {kind}")
        print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
