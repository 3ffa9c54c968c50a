"""Benchmark: how long another writer waits while a large import writes (issue 34, item 10).

A Markdown folder made by ``corpus.py --markdown`` is imported by a child process into a fresh
profile; meanwhile this process saves a note every 0.2 s through its own store (its own
connection, the 15 s busy timeout), as the app or an MCP client would. Printed: the import's wall
time, and each save's wait (median, p95, max) and how many gave up (``DatabaseBusyError``).

Usage (from the repository root)::

    python3 tests/bench/corpus.py --notes 20000 --out /tmp/md20k --markdown
    python3 tests/bench/bench_import_wait.py /tmp/md20k
    PYTHONPATH=/tmp/old/src python3 tests/bench/bench_import_wait.py /tmp/md20k   # another checkout
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import noted
from noted.errors import DatabaseBusyError
from noted.models import NoteDraft
from noted.store.sqlite import SqliteStore

_IMPORT = """
import sys
from pathlib import Path
from noted.store.sqlite import SqliteStore
from noted.store.transfer import import_markdown
profile = Path(sys.argv[1])
store = SqliteStore.open(profile / "notes.db", profile / "resources")
report = import_markdown(store, Path(sys.argv[2]))
store.close()
print(report.notes_created)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a Markdown folder (corpus.py --markdown)")
    parser.add_argument("--every", type=float, default=0.2, help="seconds between two saves")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-import-wait-") as tmp:
        profile = Path(tmp)
        writer = SqliteStore.open(profile / "notes.db", profile / "resources")
        folder = writer.create_folder("Writer", actor="user")
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-c", _IMPORT, str(profile), str(args.folder)])
        waits: list[float] = []
        gave_up = 0
        while child.poll() is None:
            began = time.perf_counter()
            try:
                writer.create_note(
                    NoteDraft(title=f"save {len(waits)}", body="x", parent_id=folder.id), actor="user"
                )
            except DatabaseBusyError:
                gave_up += 1
            waits.append(time.perf_counter() - began)
            time.sleep(args.every)
        wall = time.perf_counter() - start
        writer.close()
    ordered = sorted(waits)
    report = {
        "store": str(Path(noted.__file__).parent),
        "import_exit": child.returncode,
        "import_wall_s": round(wall, 1),
        "saves": len(waits),
        "wait_median_s": round(statistics.median(ordered), 3),
        "wait_p95_s": round(ordered[int(len(ordered) * 0.95)], 3),
        "wait_max_s": round(ordered[-1], 2),
        "gave_up": gave_up,
        "load_average": [load, os.getloadavg()],
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
