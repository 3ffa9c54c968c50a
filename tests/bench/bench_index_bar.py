"""How soon ``noted index`` on a terminal shows its progress bar, as a person sees it.

Usage: ``python3 tests/bench/bench_index_bar.py [--runs N] [--notes N]``

Each run copies a profile that has never been indexed (PostgreSQL's manual from ``pgdoc_corpus.py``,
its first ``--notes`` pages), starts ``python -m noted index`` with its stderr on a pseudo-terminal (so
Rich draws its bar, as in a real terminal) and times from the ``exec`` to the first bytes of the bar
(the word ``indexing`` followed by the ``notes`` column). The child is then stopped: only the start-up
is measured. Reported as one ``RESULT`` JSON line: every run, the median, and the load average before
and after.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_full_index import corpus

SRC = Path(__file__).resolve().parents[2] / "src"
GIVE_UP_S = 30.0


def first_bar(profile: Path) -> float:
    """Seconds from starting ``noted index`` to its bar's first frame on the terminal."""
    main, sub = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "120", "TERM": "xterm-256color"}
    env.pop("NOTED_AI_EMBEDDING_PROVIDER", None)
    env.pop("NO_COLOR", None)
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "noted", "--profile", str(profile), "index"],
        stdin=subprocess.DEVNULL,
        stdout=sub,
        stderr=sub,
        env=env,
    )
    os.close(sub)
    seen = b""
    try:
        while time.perf_counter() - started < GIVE_UP_S:
            ready, _, _ = select.select([main], [], [], 0.05)
            if ready:
                try:
                    seen += os.read(main, 65536)
                except OSError:
                    break
                if b"indexing" in seen and b"notes" in seen:
                    return time.perf_counter() - started
        raise SystemExit(f"no bar within {GIVE_UP_S:.0f} s; the terminal showed: {seen[-400:]!r}")
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=20)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        os.close(main)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--notes", type=int, default=40)
    args = parser.parse_args()
    source = corpus(args.notes)
    load_before = os.getloadavg()
    times = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="noted-bar-") as tmp:
            profile = Path(tmp) / "profile"
            shutil.copytree(source, profile)
            times.append(first_bar(profile))
    print(
        "RESULT "
        + json.dumps(
            {
                "name": "first_bar",
                "runs_s": [round(t, 3) for t in times],
                "median_s": round(statistics.median(times), 3),
                "load_before": load_before,
                "load_after": os.getloadavg(),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
