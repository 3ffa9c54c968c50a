"""Kill noted with SIGKILL at random moments of one operation, many times, and check what is left.

Each round starts the operation (a real ``noted`` command), sleeps a random 0..``--max-ms``
milliseconds, kills it (SIGKILL: nothing runs on the way out), then checks that the profile opens,
that ``notes.db`` passes SQLite's integrity check, that no note is half-written (its body is one
of the bodies it could have), that no temporary file is left once noted opened the profile again,
and that a rerun of the operation completes without duplicates.

    PYTHONPATH=src python3 tests/bench/crash_loop.py save --rounds 30 --max-ms 1500
    PYTHONPATH=src python3 tests/bench/crash_loop.py import --vault --rounds 20

Scenarios: save, import, export, notebook-move, notebook-trash, tag-rename (no CLI command: a
script calls the operation). Prints one line per round and a summary; exits 1 when a round failed.
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
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SRC = str(Path(__file__).resolve().parents[2] / "src")
TEMP_MARKS = (".partial", ".tmp", ".noted-", "-journal")


@dataclass
class World:
    """One profile (and maybe a Markdown folder) the rounds run on."""

    root: Path
    vault: bool
    bodies: dict[str, set[str]] = field(default_factory=dict)  # note id → bodies it may hold

    @property
    def profile(self) -> Path:
        return self.root / "profile"

    @property
    def folder(self) -> Path:
        return self.root / "vault"

    def argv(self, *args: str) -> list[str]:
        base = [sys.executable, "-m", "noted", "--profile", str(self.profile)]
        if self.vault:
            base += ["--vault", str(self.folder)]
        return [*base, *args]

    def run(
        self, *args: str, stdin: str | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            self.argv(*args), input=stdin, capture_output=True, text=True, env=_env(), check=False
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} → {done.returncode}: {done.stderr.strip()[-400:]}")
        return done

    def json(self, *args: str) -> Any:
        return json.loads(self.run("--json", *args).stdout)


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=SRC, NOTED_AI_ENABLED="0", NO_COLOR="1")
    env.pop("NOTED_PROFILE", None)
    return env


def kill_after(world: World, args: list[str], delay_ms: float, stdin: str | None = None) -> int:
    """Start ``noted args``, kill it after ``delay_ms`` unless it ended; its return code."""
    proc = subprocess.Popen(
        args if args[0] == sys.executable else world.argv(*args),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=_env(),
        text=True,
    )
    if stdin is not None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(stdin)
            proc.stdin.close()
        except BrokenPipeError:
            pass
    deadline = time.monotonic() + delay_ms / 1000
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.002)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.stderr is not None
    err = proc.stderr.read()
    if proc.returncode not in (0, -9):
        print(f"    exit {proc.returncode}: {err.strip()[-300:]}")
    return proc.returncode


def integrity(world: World) -> list[str]:
    import apsw

    faults: list[str] = []
    db = apsw.Connection(str(world.profile / "notes.db"))
    try:
        rows = [r[0] for r in db.execute("PRAGMA integrity_check")]
        if rows != ["ok"]:
            faults.append(f"integrity_check: {rows[:3]}")
        fts = db.execute("SELECT name FROM sqlite_master WHERE sql LIKE '%fts5%' AND type='table'").fetchall()
        for (name,) in fts:
            try:
                db.execute(f"INSERT INTO {name}({name}) VALUES('integrity-check')")
            except apsw.Error as exc:
                faults.append(f"{name} integrity-check: {exc}")
    finally:
        db.close()
    return faults


def leftovers(world: World) -> list[str]:
    places = [world.profile] + ([world.folder] if world.vault else [])
    found = []
    for place in places:
        for path in place.rglob("*"):
            if any(mark in path.name for mark in TEMP_MARKS) and not path.name.endswith(("-wal", "-shm")):
                found.append(str(path.relative_to(world.root)))
    return found


def notes(world: World, *extra: str) -> list[dict[str, Any]]:
    return list(world.json("notes", "--limit", "100000", *extra))


def check_common(world: World) -> list[str]:
    faults = integrity(world)
    try:
        listed = notes(world)
    except RuntimeError as exc:
        return [*faults, f"notes: {exc}"]
    for note in listed:
        allowed = world.bodies.get(str(note["id"]))
        if allowed is None:
            continue
        body = _body(world, note)
        if body not in allowed:
            faults.append(f"note {note['title']!r}: body of {len(body)} chars is none of the expected")
    faults += [f"left behind: {p}" for p in leftovers(world)]
    return faults


def _body(world: World, note: dict[str, Any]) -> str:
    return str(world.json("show", str(note["id"]))["body"])


# --- scenarios ----------------------------------------------------------------------------


@dataclass
class Scenario:
    setup: Callable[[World], None]
    op: Callable[[World, int], tuple[list[str], str | None]]  # argv, stdin for round n
    check: Callable[[World, int], list[str]]


def _init(world: World) -> None:
    if world.vault:
        world.folder.mkdir(parents=True)
        (world.folder / "Inbox").mkdir()
        (world.folder / "Inbox" / "seed.md").write_text("# Seed\n\nseed\n")
    world.run("init")


def _big(n: int, mb: int) -> str:
    line = f"round {n} ünïcödé ✓ line of text that is long enough to count for something\n"
    return f"# Big {n}\n\n" + line * (mb * 1024 * 1024 // len(line.encode()))


def save_setup(world: World) -> None:
    _init(world)
    created = world.run("create", "Big", "--body", "start")
    nid = created.stdout.strip().split()[-1]
    world.bodies[nid] = {"start"}
    (world.root / "id").write_text(nid)


def save_op(world: World, n: int) -> tuple[list[str], str | None]:
    nid = (world.root / "id").read_text()
    body_file = world.root / f"body-{n % 2}.md"
    body = _big(n, random.choice((1, 8, 20)))
    body_file.write_text(body)
    world.bodies[nid].add(body)
    return ["edit", nid, "--body-file", str(body_file), "--overwrite"], None


def save_check(world: World, n: int) -> list[str]:
    faults = check_common(world)
    nid = (world.root / "id").read_text()
    revs = world.json("history", nid)
    for rev in revs[-3:]:
        rid = str(rev.get("id") or rev.get("number"))
        shown = world.run("history", nid, "--show", rid, check=False)
        if shown.returncode != 0:
            faults.append(f"revision {rid} unreadable: {shown.stderr.strip()[-200:]}")
    return faults


def import_setup(world: World) -> None:
    _init(world)
    src = world.root / "import-src"
    for i in range(500):
        folder = src / f"Book {i % 7}" / ("Sub.dir" if i % 3 == 0 else "")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note {i}.md").write_text(f"---\ntitle: Note {i}\n---\n\n# Note {i}\n\nBody ü {i}\n" * 3)


def import_op(world: World, n: int) -> tuple[list[str], str | None]:
    return ["import", str(world.root / "import-src")], None


def import_check(world: World, n: int) -> list[str]:
    faults = check_common(world)
    titles = Counter(str(m["title"]) for m in notes(world) if str(m["title"]).startswith("Note "))
    dups = [t for t, c in titles.items() if c > 1]
    if dups:
        faults.append(f"duplicates after kill: {dups[:5]}")
    return faults


def import_final(world: World) -> list[str]:
    world.run("import", str(world.root / "import-src"))
    titles = Counter(str(m["title"]) for m in notes(world) if str(m["title"]).startswith("Note "))
    faults = [f"after rerun: {len(titles)} of 500 notes"] if len(titles) != 500 else []
    dups = [t for t, c in titles.items() if c > 1]
    return faults + ([f"duplicates after rerun: {dups[:5]}"] if dups else [])


def export_setup(world: World) -> None:
    import_setup(world)
    world.run("import", str(world.root / "import-src"))


def export_op(world: World, n: int) -> tuple[list[str], str | None]:
    return ["export", str(world.root / "export")], None


def export_check(world: World, n: int) -> list[str]:
    faults = check_common(world)
    done = world.run("export", str(world.root / "export"), check=False)
    if done.returncode != 0:
        faults.append(f"rerun of export after kill → {done.returncode}: {done.stderr.strip()[-300:]}")
    return faults


def move_setup(world: World) -> None:
    import_setup(world)
    world.run("import", str(world.root / "import-src"))
    world.run("notebook", "create", "Target")


def move_op(world: World, n: int) -> tuple[list[str], str | None]:
    books = {str(b["path"]) for b in world.json("notebooks")}
    if "Target/Book 1" in books:
        return ["notebook", "move", "Target/Book 1", "--top"], None
    return ["notebook", "move", "Book 1", "--parent", "Target"], None


def move_check(world: World, n: int) -> list[str]:
    faults = import_check(world, n)
    count = len([m for m in notes(world) if str(m["title"]).startswith("Note ")])
    if count != 500:
        faults.append(f"{count} of 500 notes listed")
    return faults


def trash_op(world: World, n: int) -> tuple[list[str], str | None]:
    trashed = any(str(m["title"]).startswith("Note ") for m in notes(world, "--trash"))
    return ["notebook", "restore" if trashed else "trash", "Book 1"], None


def trash_check(world: World, n: int) -> list[str]:
    faults = check_common(world)
    live = Counter(str(m["title"]) for m in notes(world) if str(m["title"]).startswith("Note "))
    gone = Counter(str(m["title"]) for m in notes(world, "--trash") if str(m["title"]).startswith("Note "))
    both = sorted(set(live) & set(gone))
    if both or sum(live.values()) + sum(gone.values()) != 500:
        faults.append(f"{sum(live.values())} live + {sum(gone.values())} in the trash, {len(both)} in both")
    if world.vault:
        files = len(list(world.folder.rglob("Note *.md")))
        if files != 500:
            faults.append(f"{files} note files in the folder, not 500")
    return faults


RENAME_TAG = """
import sys
from pathlib import Path
from noted.ops.notebooks import rename_tag
from noted.store.sqlite import SqliteStore
from noted.store.vault import VaultStore

profile, vault = Path(sys.argv[1]), sys.argv[2]
if vault:
    store = VaultStore.open(Path(vault), profile)
else:
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
tags = {t.title: t for t in store.list_tags()}
old, new = ("alpha", "beta") if "alpha" in tags else ("beta", "alpha")
rename_tag(store, tags[old].id, new, actor="user")
store.close()
"""


def tag_setup(world: World) -> None:
    _init(world)
    src = world.root / "import-src" / "Tagged"
    src.mkdir(parents=True)
    for i in range(150):
        (src / f"tagged {i}.md").write_text(f"---\ntitle: Tagged {i}\ntags: [alpha]\n---\n\nTagged #{i}\n")
    world.run("import", str(world.root / "import-src"))


def tag_op(world: World, n: int) -> tuple[list[str], str | None]:
    code = world.root / "rename_tag.py"
    code.write_text(RENAME_TAG)
    return [sys.executable, str(code), str(world.profile), str(world.folder) if world.vault else ""], None


def tag_check(world: World, n: int) -> list[str]:
    faults = check_common(world)
    tags = {str(t["title"]): t for t in world.json("tags") if t["title"] in ("alpha", "beta")}
    if len(tags) != 1 or sum(int(t.get("note_count", 0)) for t in tags.values()) != 150:
        faults.append(f"the tag split: {[(k, t.get('note_count')) for k, t in tags.items()]}")
    return faults


SCENARIOS = {
    "save": Scenario(save_setup, save_op, save_check),
    "import": Scenario(import_setup, import_op, import_check),
    "export": Scenario(export_setup, export_op, export_check),
    "notebook-move": Scenario(move_setup, move_op, move_check),
    "notebook-trash": Scenario(move_setup, trash_op, trash_check),
    "tag-rename": Scenario(tag_setup, tag_op, tag_check),
}
FINAL = {"import": import_final}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--max-ms", type=float, default=1500)
    parser.add_argument("--min-ms", type=float, default=300)
    parser.add_argument("--vault", action="store_true", help="on a Markdown folder")
    parser.add_argument("--root", type=Path, default=None, help="scratch folder (default: a new one in /tmp)")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    random.seed(args.seed)
    root = args.root or Path(f"/tmp/crash-loop-{args.scenario}-{os.getpid()}")
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    world = World(root, args.vault)
    scenario = SCENARIOS[args.scenario]
    scenario.setup(world)
    failed = 0
    for n in range(args.rounds):
        argv, stdin = scenario.op(world, n)
        delay = random.uniform(args.min_ms, args.max_ms)
        code = kill_after(world, argv, delay, stdin)
        faults = scenario.check(world, n)
        failed += bool(faults)
        print(
            f"round {n:3} killed at {delay:6.0f} ms ({'killed' if code == -9 else f'exit {code}'}): "
            + ("ok" if not faults else "; ".join(faults)),
            flush=True,
        )
    if args.scenario in FINAL:
        faults = FINAL[args.scenario](world)
        failed += bool(faults)
        print("rerun: " + ("ok" if not faults else "; ".join(faults)))
    print(f"{failed} of {args.rounds} rounds failed; scratch in {root}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
