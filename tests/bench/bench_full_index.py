"""A full first index of a documentation corpus by ``noted index``, as a person runs it.

Usage: ``python3 tests/bench/bench_full_index.py [--notes N] [--src DIR] [--kills K]``

The corpus is PostgreSQL's manual (``pgdoc_corpus.py``; ``--notes`` takes its first N pages). The
profile is copied, then ``python -m noted index`` runs in a child process (``--src`` picks the
checkout it imports, to compare with an older one). Reported, as ``RESULT`` JSON lines:

- ``index``: wall seconds, the child's CPU seconds (user + system: robust to a loaded machine, where
  wall time includes waiting for a core), chunks, chunks per CPU-second and per wall second, the
  child's peak resident set, and the load average before and after;
- ``kill9`` (with ``--kills``): the child is killed with SIGKILL at a random moment K times, each
  time resumed; the chunks lost per kill (estimated: the time from the last commit seen to the
  kill, times the commits' rate) and whether the finished index equals a fresh one chunk for chunk.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pgdoc_corpus import OUT, build

SRC = Path(__file__).resolve().parents[2] / "src"
KILL_AFTER_S = (10.0, 30.0)
"""A kill comes this long after the start (a start-up on a loaded machine takes several seconds)."""


def result(name: str, **values: object) -> None:
    print("RESULT " + json.dumps({"name": name, **values}), flush=True)


def corpus(notes: int | None) -> Path:
    path = OUT / f"pgdoc_profile_{notes or 'all'}"
    if not (path / "notes.db").is_file():
        made, chars = build(path, limit=notes)
        print(f"corpus: {made} notes, {chars:,} characters in {path}", flush=True)
    return path


def noted_index(profile: Path, src: Path) -> tuple[subprocess.Popen[str], float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("NOTED_AI_EMBEDDING_PROVIDER", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "noted", "--profile", str(profile), "index", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    return child, time.perf_counter()


def wait(child: subprocess.Popen[str]) -> tuple[int, float, int]:
    """(exit status, CPU seconds, peak RSS in KiB) of the child."""
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def stored_chunks(profile: Path) -> list[tuple[object, ...]]:
    import apsw

    conn = apsw.Connection(str(profile / "notes.db"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows: list[tuple[object, ...]] = conn.execute(
            "SELECT n.title, c.idx, c.hash, e.embedding FROM index_chunks c JOIN notes n ON n.id = c.note_id "
            "JOIN index_embeddings e ON e.rowid = c.rowid ORDER BY n.title, c.idx"
        ).fetchall()
        return rows
    finally:
        conn.close()


def pending(profile: Path) -> int:
    import apsw

    conn = apsw.Connection(str(profile / "notes.db"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        has = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'index_pending'").fetchone()
        return int(conn.execute("SELECT count(*) FROM index_pending").fetchone()[0]) if has else 0
    finally:
        conn.close()


def full_index(profile: Path, src: Path) -> None:
    load_before = os.getloadavg()
    child, started = noted_index(profile, src)
    code, cpu, peak_kib = wait(child)
    wall = time.perf_counter() - started
    assert child.stdout is not None and child.stderr is not None
    out, err = child.stdout.read(), child.stderr.read()
    assert code == 0, err
    chunks = int(json.loads(out)["chunks"])
    result(
        "index",
        src=str(src),
        wall_s=round(wall, 1),
        cpu_s=round(cpu, 1),
        chunks=chunks,
        chunks_per_cpu_s=round(chunks / cpu, 2),
        chunks_per_wall_s=round(chunks / wall, 2),
        peak_rss_mib=round(peak_kib / 1024, 1),
        load_before=[round(x, 2) for x in load_before],
        load_after=[round(x, 2) for x in os.getloadavg()],
    )


def kills(profile: Path, src: Path, count: int, fresh: list[tuple[object, ...]]) -> None:
    """Kill ``noted index`` at random moments; estimate what each kill lost.

    The profile is watched every 0.1 s while the child runs: the loss of a kill is the time from
    the last commit seen to the kill, times the rate the commits show (chunks kept per second).
    """
    rng = random.Random(16)
    losses = []
    source = profile.with_name("source")
    shutil.copytree(profile, source)
    for _ in range(count):
        child, _ = noted_index(profile, src)
        deadline = time.perf_counter() + rng.uniform(*KILL_AFTER_S)
        seen: list[tuple[float, int]] = []
        while time.perf_counter() < deadline and child.poll() is None:
            kept = _kept(profile)
            if not seen or kept != seen[-1][1]:
                seen.append((time.perf_counter(), kept))
            time.sleep(0.1)
        if child.poll() is not None:  # it finished first: start again from nothing for the next kill
            shutil.rmtree(profile)
            shutil.copytree(source, profile)
            continue
        killed_at = time.perf_counter()
        os.kill(child.pid, signal.SIGKILL)
        wait(child)
        if len(seen) >= 3:
            (t0, k0), (t1, k1) = seen[1], seen[-1]
            rate = (k1 - k0) / (t1 - t0) if t1 > t0 else 0.0
            losses.append(round((killed_at - t1) * rate))
    child, _ = noted_index(profile, src)
    code, _, _ = wait(child)
    assert code == 0
    same = stored_chunks(profile) == fresh
    losses.sort()
    median = losses[len(losses) // 2] if losses else None
    result("kill9", kills=count, lost_chunks=losses, median_lost=median, resumed_equals_fresh=same)


def _kept(profile: Path) -> int:
    try:
        return len(stored_chunks(profile)) + pending(profile)
    except Exception:  # the tables are not made yet, or busy for a moment
        return 0


def _models(profile: Path) -> None:
    """Give the copy the model noted made once already (a one-time cost, not the index's)."""
    made = OUT / "models"
    if made.is_dir():
        shutil.copytree(made, profile / "models")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=None, help="the first N pages only")
    parser.add_argument("--src", type=Path, default=SRC, help="the checkout's src folder to run")
    parser.add_argument("--kills", type=int, default=0)
    args = parser.parse_args()
    source = corpus(args.notes)
    with tempfile.TemporaryDirectory() as folder:
        profile = Path(folder) / "profile"
        shutil.copytree(source, profile)
        _models(profile)
        full_index(profile, args.src)
        if args.kills:
            fresh = stored_chunks(profile)
            shutil.rmtree(profile)
            shutil.copytree(source, profile)
            _models(profile)
            kills(profile, args.src, args.kills, fresh)


if __name__ == "__main__":
    main()
