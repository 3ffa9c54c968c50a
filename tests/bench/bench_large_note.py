"""Benchmark of a very large note on a backend: opening it in the reader, and indexing it.

Usage: ``python3 tests/bench/bench_large_note.py [--backend sqlite|joplin|vault] [--chars 39000000]
[--burners 2] [--timeout 300] [--app | --app-only] [--start-wait 4] [--settle 0]`` (run with
``PYTHONPATH=src``; another checkout's ``src`` first on it gives its "before" figure).

It makes a fresh store of the backend (Joplin: the test suite's own server, started through
``tests/support``; a Markdown folder: the file written by hand, as an outside tool does) holding one
note of ``--chars`` characters of Markdown and a short one, then measures, each in a fresh child
process so peak RSS is its own:

- ``open``: what the reader does with the note, read and drawn 100 columns wide in a worker (the
  store's read, ``load_note_view`` and ``draw``): wall time and peak RSS;
- ``index``: a first index of the store with the fake embedder, from ``prepare`` to idle, and the
  longest gap between two renewals of the indexing lease (the heartbeat other processes watch);
- with ``--app`` (SQLite only; ``--app-only`` skips the rest): the real app as ``noted`` opens it (``open_app``) under Pilot, started
  ``--start-wait`` seconds before the note is shown (start-up's own work and the collector's
  ``settle`` done), from ``show`` to the note's ``Shown`` (``first_paint``), then, ``--settle``
  seconds later, 20 keys (``j``) on the page (``key_first``, ``key_p50``, ``key_max``) and the
  cyclic collector's runs during those keys by generation (``gcN_n``) with the longest
  (``gcN_max``); in another child, from ``show`` to the page's whole text at its end with ``G``
  (``reach_end``). A key is timed as the terminal's driver sends it, until the page moved and the
  frame after it: not with ``Pilot.press``, which waits for the process to go idle (up to a
  second, twice a key) and so timed the page's drawing thread, not the key.

``--burners N`` runs N CPU burners beside it (a loaded machine). A part that takes longer than
``--timeout`` is stopped and reported as such. The figure to compare is printed last, one line each.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
WORDS = "alpha beta gamma delta river stone cloud paper window garden engine winter summer".split()


def markdown(chars: int, line_words: int = 12) -> str:
    """Sections of plain lines: the opening names "zebracorn", the end "quokkatail"."""
    out, size, section = ["The zebracorn manifesto begins here.\n\n"], 40, 0
    while size < chars:
        lines = "".join(
            " ".join(WORDS[(section * 7 + i * 3 + j) % len(WORDS)] for j in range(line_words)) + "\n"
            for i in range(10)
        )
        piece = f"## Section {section}\n\n{lines}\n"
        out.append(piece)
        size += len(piece)
        section += 1
    out.append("## The end\n\nOnly the quokkatail lives this far down.\n")
    return "".join(out)


def _store(backend: str, root: Path) -> Any:  # a Store with its database (.db): the three have one
    if backend == "sqlite":
        from noted.store.sqlite import SqliteStore

        return SqliteStore.open(root / "notes.db", root / "resources")
    if backend == "vault":
        from noted.store.vault import VaultStore

        return VaultStore.open(root / "vault", root / "profile")
    from noted.store.joplin import JoplinStore

    info = json.loads((root / "joplin.json").read_text())
    return JoplinStore.open(root / "sidecar", url=info["url"], token=info["token"])


def make(backend: str, root: Path, chars: int) -> str:
    """The store with the large note and a short one; returns the large note's id."""
    from noted.models import NoteDraft

    body = markdown(chars)
    if backend == "vault":
        (root / "vault").mkdir(parents=True)
        (root / "vault" / "Huge note.md").write_text(body)
        (root / "vault" / "Short note.md").write_text("A short note about otters.\n")
        store = _store(backend, root)
        try:
            ids = [n.id for n in store.list_notes() if n.title == "Huge note"]
            return str(ids[0]) if ids else ""
        finally:
            store.close()
    store = _store(backend, root)
    try:
        folder = store.create_folder("Bench", actor="user").id
        store.create_note(
            NoteDraft("Short note", "A short note about otters.", parent_id=folder), actor="user"
        )
        return str(store.create_note(NoteDraft("Huge note", body, parent_id=folder), actor="user").id)
    finally:
        store.close()


def child_open(backend: str, root: Path, note_id: str) -> dict[str, float]:
    import inspect

    from rich.theme import Theme

    from noted.ui.data import load_note_view
    from noted.ui.widgets.page_drawing import Look, draw

    store = _store(backend, root)
    start = time.perf_counter()
    kw = {"part_chars": 200_000} if "part_chars" in inspect.signature(load_note_view).parameters else {}
    view = load_note_view(store, note_id, **kw)  # type: ignore[arg-type]
    text = getattr(view, "text", view.note.body)
    drawn = draw(text, Look(100, Theme(), "noted-dark", "monokai"))
    return {"seconds": time.perf_counter() - start, "rows": len(drawn.lines)}


def child_index(backend: str, root: Path) -> dict[str, float]:
    from noted.embeddings.fake import FakeEmbedder
    from noted.indexer.engine import Indexer
    from noted.indexer.lease import Lease

    store = _store(backend, root)
    lease = Lease(store.db, label="bench")
    renewals: list[float] = []
    acquire = lease.acquire

    def timed() -> bool:
        renewals.append(time.monotonic())
        return acquire()

    lease.acquire = timed  # type: ignore[method-assign]
    indexer = Indexer(store, store.db, FakeEmbedder(), lease=lease)
    start = time.perf_counter()
    lease.acquire()
    indexer.prepare()
    indexer.run_until_idle()
    seconds = time.perf_counter() - start
    gaps = [b - a for a, b in zip(renewals, renewals[1:], strict=False)] or [seconds]
    return {"seconds": seconds, "longest_lease_gap": max(gaps), "chunks": indexer.chunks_done}


def child_app(
    root: Path, note_id: str, waits: tuple[float, float], reach_end: bool = False
) -> dict[str, float]:
    from textual import events

    from noted.profile import Profile
    from noted.services import Services
    from noted.settings import Settings
    from noted.ui.launch import open_app
    from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer

    profile = Profile(root).ensure()
    env = {
        "NOTED_SEARCH_INDEXER_ENABLED": "false",
        "NOTED_AI_ENABLED": "false",
        **{k: v for k, v in os.environ.items() if k.startswith("NOTED_NOTES_")},
    }
    services = Services.open(profile, welcome=False, settings=Settings.load(profile, environ=env))
    app = open_app(services)  # as ``noted`` opens it: the collector paused until start-up is done
    start_wait, settle = waits
    out: dict[str, float] = {}

    async def run() -> None:
        async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
            viewer = app.workspace.query_one(NoteViewer)
            page = app.workspace.query_one(NoteScroll)
            await pilot.pause(start_wait)

            async def frame() -> None:  # the frame after what was asked (not Pilot's wait for an idle
                done = asyncio.get_running_loop().create_future()  # process, which a drawing thread holds up)
                app.call_after_refresh(done.set_result, None)
                await done

            async def key(name: str, character: str) -> float:  # as the terminal's driver sends one
                t, y = time.perf_counter(), page.scroll_y
                event = events.Key(name, character)
                event.set_sender(app)
                app._driver.send_message(event)  # type: ignore[union-attr]
                while page.scroll_y == y and page.max_scroll_y > y:
                    await asyncio.sleep(0.001)
                await frame()
                return time.perf_counter() - t

            start = time.perf_counter()
            shown.clear()
            viewer.show(note_id)
            while not shown:  # the viewer's Shown: the note's opening on screen
                await asyncio.sleep(0.001)
            out["first_paint"] = time.perf_counter() - start
            page.focus()
            await frame()
            if reach_end:  # G until the last row of the whole page is at the bottom
                while not (page.covers(sys.maxsize) and 0 < page.max_scroll_y == page.scroll_y):
                    await key("G", "G")
                    await asyncio.sleep(0.02)
                out["reach_end"] = time.perf_counter() - start
                return
            await asyncio.sleep(settle)
            collections.clear()
            keys = [await key("j", "j") for _ in range(20)]
            out["key_first"] = keys[0]
            keys.sort()
            out["key_p50"], out["key_max"] = keys[len(keys) // 2], keys[-1]
            for generation in (0, 1, 2):  # the collector's pauses during the keys, by generation
                took = [d for g, d in collections if g == generation]
                out[f"gc{generation}_n"], out[f"gc{generation}_max"] = len(took), max(took, default=0.0)

    collections: list[tuple[int, float]] = []
    started = [0.0]
    shown: list[object] = []

    def hook(message: object) -> None:
        if isinstance(message, NoteViewer.Shown) and message.note_id == note_id:
            shown.append(message)

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            collections.append((info["generation"], time.perf_counter() - started[0]))

    gc.callbacks.append(timed)

    try:
        asyncio.run(run())
    finally:
        services.close()
    return out


def child(args: argparse.Namespace) -> None:
    root = Path(args.root)
    if args.part == "open":
        result = child_open(args.backend, root, args.note)
    elif args.part == "index":
        result = child_index(args.backend, root)
    else:
        result = child_app(root, args.note, (args.start_wait, args.settle), args.part == "end")
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def measure(part: str, args: argparse.Namespace, root: Path, note_id: str) -> str:
    cmd = [
        sys.executable,
        __file__,
        "--child",
        part,
        "--root",
        str(root),
        "--note",
        note_id,
        "--backend",
        args.backend,
        "--settle",
        str(args.settle),
        "--start-wait",
        str(args.start_wait),
    ]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"{part}: stopped after {args.timeout} s"
    if run.returncode != 0:
        return f"{part}: failed: {run.stderr.strip().splitlines()[-1:]}"
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    return f"{part}: " + ", ".join(
        f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "joplin", "vault"), default="sqlite")
    parser.add_argument("--chars", type=int, default=39_000_000)
    parser.add_argument("--burners", type=int, default=0)
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--app", action="store_true")
    parser.add_argument("--start-wait", type=float, default=4.0)
    parser.add_argument("--settle", type=float, default=0.0)
    parser.add_argument("--app-only", action="store_true")
    parser.add_argument("--child", dest="part")
    parser.add_argument("--root")
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    if args.part:
        child(args)
        return
    burners = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(args.burners)]
    server = None
    try:
        with tempfile.TemporaryDirectory(prefix="bench-large-") as tmp:
            root = Path(tmp)
            if args.backend == "joplin":
                from tests.support.joplin import JoplinServer, free_port

                server = JoplinServer(root / "joplin-profile", free_port())
                server.start()
                (root / "joplin.json").write_text(json.dumps({"url": server.url, "token": server.token}))
            if args.app:
                from noted.profile import Profile

                Profile(root).ensure()
            start = time.perf_counter()
            note_id = make(args.backend, root, args.chars)
            print(
                f"{args.backend}: a note of {args.chars:,} characters made in {time.perf_counter() - start:.1f} s",
                flush=True,
            )
            if not note_id:
                print("the backend did not take the note (a Markdown folder skips a file over its limit)")
                return
            print(f"uptime: {os.getloadavg()[0]:.1f}", flush=True)
            parts = (
                ("app", "end") if args.app_only else ("open", "index", *(("app", "end") if args.app else ()))
            )
            for part in parts:
                print(measure(part, args, root, note_id), flush=True)
    finally:
        for burner in burners:
            burner.kill()
        if server is not None:
            try:
                server.stop()
            except AssertionError as exc:  # a server slow to let its port go under load: said, not raised
                print(f"stopping Joplin: {exc}")


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    main()
