"""Benchmark of the Markdown-folder backend: first open, outside saves reaching search, git checkout.

Usage: ``python3 tests/bench/bench_vault.py VAULT [--opens 3] [--saves 20] [--checkout 1000]
[--semantic-files 300]`` with VAULT made by ``tests/bench/vault_corpus.py``. The folder is copied
first (to a temporary folder, under git), so the benchmark never changes it. Prints medians and
p95s with the load average.

- first open: ``Services.open`` on a new profile (the start-up scan: every file read, parsed and
  written to the mirror with its keyword index), median of ``--opens``;
- later open: the same on the profile made by the first (size and mtime of every file compared);
- outside save → found by keyword: a file written in place next door (as an editor saves), until
  ``Services.keyword`` finds its new word, with the app's watcher running; ``--saves`` times, half
  new files and half edits of existing ones;
- outside save → found by meaning: on the first ``--semantic-files`` files (an index of 10,000 notes
  takes hours on two cores), indexed first with the real model; a new file written, until semantic
  search for a sentence of it lists it, with the watcher and the indexer running;
- moves: the notebook with the most notes moved under another notebook and back (``noted notebook
  move``: the folder renamed, and the relative links of its notes that lead outside it rewritten), and
  ``--moves`` notes moved to a folder of another depth and back, each timed through the store;
- git checkout: a branch changing ``--checkout`` files (edits, renames, deletions, additions) checked
  out and back with the watcher running, until the mirror settles; then every file is compared
  with its note (none lost, duplicated or stale).
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

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from noted.models import NotePatch  # noqa: E402
from noted.profile import Profile  # noqa: E402
from noted.services import Services  # noqa: E402
from noted.settings import Settings  # noqa: E402
from noted.store.vault.text import FileText  # noqa: E402

GIT = ("git", "-c", "user.name=bench", "-c", "user.email=bench@example.org")


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95 + 0.5) - 1)]


def open_services(profile: Path, vault: Path, *, indexer: bool = False) -> Services:
    environ = {"NOTED_SEARCH_INDEXER_ENABLED": "true" if indexer else "false"}
    settings = Settings.load(Profile(profile), environ=environ)
    return Services.open(Profile(profile), welcome=False, settings=settings, vault=str(vault))


def wait(predicate: object, timeout: float = 60.0) -> float:
    start = time.perf_counter()
    while not predicate():  # type: ignore[operator]
        if time.perf_counter() - start > timeout:
            raise SystemExit(f"timed out after {timeout} s")
        time.sleep(0.01)
    return time.perf_counter() - start


def bench_opens(vault: Path, work: Path, count: int) -> Path:
    firsts, cpus, laters, notes = [], [], [], 0
    profile = work / "profile-0"
    for n in range(count):
        profile = work / f"profile-{n}"
        t0, c0 = time.perf_counter(), time.process_time()
        services = open_services(profile, vault)
        firsts.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        notes = services.store.count_notes()
        services.close()
        t0 = time.perf_counter()
        open_services(profile, vault).close()
        laters.append(time.perf_counter() - t0)
    print(f"first open ({notes} notes, scan and keyword index): median {statistics.median(firsts):.1f} s "
          f"over {count}, {', '.join(f'{t:.1f}' for t in firsts)}; CPU median {statistics.median(cpus):.1f} s; "
          f"{load()}")  # fmt: skip
    print(f"later open (no change): median {statistics.median(laters) * 1000:.0f} ms; {load()}")
    return profile


def bench_saves(vault: Path, profile: Path, count: int) -> None:
    services = open_services(profile, vault)
    services.start_watching()
    time.sleep(1.0)
    existing = sorted(vault.rglob("*.md"))[:count]
    took = []
    for n in range(count):
        word = f"zqx{n}vault{os.getpid()}"
        if n % 2:
            path = existing[n]
            path.write_text(path.read_text() + f"\n{word}\n")
        else:
            (vault / f"bench new {n}.md").write_text(f"# New {n}\n\n{word}\n")
        took.append(wait(lambda w=word: services.keyword.search(w).total >= 1))
    services.close()
    print(f"outside save → found by keyword over {count}: median {statistics.median(took) * 1000:.0f} ms, "
          f"p95 {p95(took) * 1000:.0f} ms; {load()}")  # fmt: skip


def bench_moves(vault: Path, profile: Path, count: int) -> None:
    services = open_services(profile, vault)
    store = services.store
    folders = {f.id: f for f in store.list_folders()}
    sizes = sorted(((store.count_notes(folder_id=fid), fid) for fid in folders), reverse=True)
    (notes, biggest), (_, other) = sizes[0], next(s for s in sizes[1:] if folders[s[1]].parent_id == "")
    took = []
    for _ in range(count):
        for parent in (other, folders[biggest].parent_id):
            t0 = time.perf_counter()
            store.update_folder(biggest, parent_id=parent, actor="user")
            took.append(time.perf_counter() - t0)
    print(f"notebook move ({notes} notes, under another and back, {count} times): median "
          f"{statistics.median(took) * 1000:.0f} ms, max {max(took) * 1000:.0f} ms; {load()}")  # fmt: skip
    deep = store.create_folder("bench deep", parent_id=other, actor="user")
    metas = store.list_notes(folder_id=biggest, limit=count * 10)
    took = []
    for meta in metas:
        for parent in (deep.id, biggest):
            t0 = time.perf_counter()
            store.update_note(meta.id, NotePatch(parent_id=parent), actor="user")
            took.append(time.perf_counter() - t0)
    services.close()
    print(f"note move (to a folder one deeper and back, {len(took)} moves): median "
          f"{statistics.median(took) * 1000:.0f} ms, p95 {p95(took) * 1000:.0f} ms; {load()}")  # fmt: skip


SENTENCES = (
    "The lighthouse keeper logged every passing ship in a leather notebook during the storm.",
    "Sourdough bread needs a lively starter, a long cold proof and a very hot oven.",
    "Migrating birds navigate by the stars, the sun and the earth's magnetic field.",
    "A violin's tone depends on the spruce top, the varnish and the bridge's placement.",
    "Glaciers carve U-shaped valleys and leave moraines where they melt back.",
)


def bench_meaning(source: Path, work: Path, files: int, count: int) -> None:
    small = work / "small"
    small.mkdir()
    for path in sorted(source.rglob("*.md"))[:files]:
        target = small / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    services = open_services(work / "profile-small", small, indexer=True)
    services.start_watching()
    service = services.start_indexer(label="bench")
    assert service is not None
    t0 = time.perf_counter()
    wait(lambda: services.index_coverage().complete, timeout=3600)
    print(f"(indexed {files} files first in {time.perf_counter() - t0:.0f} s)")
    semantic = services.semantic()
    took = []
    for n in range(count):
        sentence = SENTENCES[n % len(SENTENCES)]
        path = small / f"meaning {n}.md"
        path.write_text(f"# Meaning {n}\n\n{sentence}\n")

        def found(p: Path = path, q: str = sentence) -> bool:
            ids = [i for i, rel in services.store.note_paths().items() if small / rel == p]  # type: ignore[attr-defined]
            return bool(ids) and ids[0] in {h.note_id for h in semantic.search(q, limit=10)}

        took.append(wait(found, timeout=120))
        path.unlink()
    services.close()
    print(f"outside save → found by meaning over {count} ({files} files): median {statistics.median(took):.2f} s, "
          f"p95 {p95(took):.2f} s; {load()}")  # fmt: skip


def bench_checkout(vault: Path, profile: Path, changed: int) -> None:
    subprocess.run([*GIT, "-C", str(vault), "checkout", "-q", "-b", "other"], check=True)
    files = sorted(vault.rglob("*.md"))
    step = max(1, len(files) // changed)
    picked = files[::step][:changed]
    for n, path in enumerate(picked):
        if n % 4 == 0:
            path.write_text(path.read_text() + "\nchanged on the other branch\n")
        elif n % 4 == 1:
            os.rename(path, path.with_name(f"renamed {n}.md"))
        elif n % 4 == 2:
            path.unlink()
        else:
            (path.parent / f"added {n}.md").write_text(f"# Added {n}\n\nonly on the other branch\n")
    subprocess.run([*GIT, "-C", str(vault), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(vault), "commit", "-qm", "other"], check=True)
    subprocess.run([*GIT, "-C", str(vault), "checkout", "-q", "main"], check=True)
    services = open_services(profile, vault)
    services.start_watching()
    time.sleep(1.0)
    for branch in ("other", "main", "other"):
        t0 = time.perf_counter()
        subprocess.run([*GIT, "-C", str(vault), "checkout", "-q", branch], check=True)
        settled, wrong = settle(services, vault, t0)
        print(f"git checkout {branch} ({changed} files differ): the last change in the feed {settled:.1f} s "
              f"after the checkout began, {wrong}; {load()}")  # fmt: skip
    services.close()


def settle(services: Services, vault: Path, t0: float, timeout: float = 600.0) -> tuple[float, str]:
    """Wait until the feed has been quiet for 3 s, then compare every file with its note; returns
    when the last change reached the feed (seconds after ``t0``) and what was wrong, if anything."""
    store = services.store
    problems = "not compared"
    while time.perf_counter() - t0 < timeout:
        cursor = store.latest_cursor()
        time.sleep(3.0)
        if store.latest_cursor() != cursor:
            continue
        files = {p.relative_to(vault).as_posix(): p for p in vault.rglob("*.md") if ".git" not in p.parts}
        paths = store.note_paths()  # type: ignore[attr-defined]
        lost = set(files) - set(paths.values())
        extra = set(paths.values()) - set(files)
        dup = len(paths) - len(set(paths.values()))
        notes = {n.id: n.body for n in store.get_notes(list(paths))}
        stale = sum(
            1
            for i, rel in paths.items()
            if rel in files and notes.get(i) != FileText.parse(files[rel].read_text()).body
        )
        problems = f"lost {len(lost)}, extra {len(extra)}, duplicated {dup}, stale {stale}"
        if not lost and not extra and not dup and not stale:
            last = store.changes_since(max(0, cursor - 1)).changes
            settled = (last[-1].time / 1000 - time.time()) + (time.perf_counter() - t0) if last else 0.0
            return settled, "no note lost, duplicated or stale"
    return time.perf_counter() - t0, "NOT SETTLED: " + problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--opens", type=int, default=3)
    parser.add_argument("--saves", type=int, default=20)
    parser.add_argument("--checkout", type=int, default=1000)
    parser.add_argument("--semantic-files", type=int, default=300)
    parser.add_argument("--meaning", type=int, default=10, help="outside saves timed until found by meaning")
    parser.add_argument(
        "--moves", type=int, default=3, help="notebook moves there and back (and 10x note moves)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        vault = work / "vault"
        shutil.copytree(args.vault, vault)
        subprocess.run([*GIT, "-C", str(vault), "init", "-q", "-b", "main"], check=True)
        subprocess.run([*GIT, "-C", str(vault), "add", "-A"], check=True)
        subprocess.run([*GIT, "-C", str(vault), "commit", "-qm", "vault"], check=True)
        profile = bench_opens(vault, work, args.opens)
        if args.saves:
            bench_saves(vault, profile, args.saves)
            subprocess.run([*GIT, "-C", str(vault), "checkout", "-q", "."], check=True)
            subprocess.run([*GIT, "-C", str(vault), "clean", "-qfd"], check=True)
        if args.moves:
            bench_moves(vault, profile, args.moves)
            subprocess.run([*GIT, "-C", str(vault), "checkout", "-q", "."], check=True)
            subprocess.run([*GIT, "-C", str(vault), "clean", "-qfd"], check=True)
        if args.checkout:
            bench_checkout(vault, profile, args.checkout)
        if args.meaning:
            bench_meaning(args.vault, work, args.semantic_files, args.meaning)


if __name__ == "__main__":
    main()
