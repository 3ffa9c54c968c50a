"""Benchmark of an import into a Markdown folder: ``noted import`` of a corpus into a new folder.

Usage: ``python3 tests/bench/bench_vault_import.py [--notes 505] [--runs 3] [--src DIR]
[--embedded] [--links N]``. Each run imports a fresh corpus (``corpus.py --markdown``, its links
included; ``--links``: N links to other notes in each, about half to notes written after it) into a
new Markdown folder with a new profile, as a real ``noted`` process (``--embedded``: into a
new embedded profile instead, for comparison). ``--src``: the ``src`` folder to run (another
checkout's, for a "before" figure). Prints each run's wall time, the median, the ``fsync`` count
of the last run (under ``strace -c`` when strace is there) and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
SRC = HERE.parents[2] / "src"
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(SRC))

from corpus import Corpus, write_markdown  # noqa: E402


def _env(src: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(src), NOTED_AI_ENABLED="0", NO_COLOR="1")
    env.pop("NOTED_PROFILE", None)
    return env


def _run(src: Path, argv: list[str], *, prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*(prefix or []), sys.executable, "-m", "noted", *argv],
        env=_env(src),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"noted {' '.join(argv)} → {done.returncode}: {done.stderr[-400:]}")
    return done


def one_run(src: Path, corpus: Path, work: Path, *, embedded: bool, strace: bool) -> tuple[float, int]:
    """One import into a fresh target: its wall time (s) and the fsyncs strace counted (-1: none)."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    target = ["--profile", str(work / "profile")]
    if not embedded:
        (work / "vault").mkdir()
        target += ["--vault", str(work / "vault")]
    _run(src, ["init", *target])
    trace = work / "strace.txt"
    prefix = ["strace", "-f", "-c", "-e", "trace=fsync,fdatasync,sync", "-o", str(trace)] if strace else None
    start = time.perf_counter()
    _run(src, ["import", str(corpus), *target], prefix=prefix)
    wall = time.perf_counter() - start
    syncs = -1
    if strace:
        syncs = sum(
            int(line.split()[3])
            for line in trace.read_text().splitlines()
            if line.split()[-1:] in (["fsync"], ["fdatasync"], ["sync"])
        )
    return wall, syncs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=505)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--src", type=Path, default=SRC, help="the src folder to run (default: this checkout's)"
    )
    parser.add_argument("--embedded", action="store_true", help="import into an embedded profile instead")
    parser.add_argument("--links", type=int, default=0, help="links to other notes in each note")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="bench-vault-import-"))
    try:
        corpus = root / "corpus"
        write_markdown(Corpus(args.notes), corpus, links=args.links)
        load_before = os.getloadavg()
        walls = []
        for i in range(args.runs):
            last = i == args.runs - 1
            wall, syncs = one_run(args.src, corpus, root / "work", embedded=args.embedded, strace=False)
            walls.append(wall)
            print(f"run {i + 1}: {wall:.2f} s")
            if last and shutil.which("strace"):
                _, syncs = one_run(args.src, corpus, root / "work", embedded=args.embedded, strace=True)
                print(f"fsync/fdatasync/sync calls of one import: {syncs}")
        load_after = os.getloadavg()
        where = "an embedded profile" if args.embedded else "a Markdown folder"
        print(
            f"{args.notes} notes ({args.links} links each) into {where}: median {statistics.median(walls):.2f} s over {args.runs} runs"
        )
        print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
