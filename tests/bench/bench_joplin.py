"""The Joplin backend's speed against a real Joplin (the terminal app from ``../shared/scripts``).

    python3 tests/bench/bench_joplin.py --notes 500            # starts its own Joplin on a free port
    python3 tests/bench/bench_joplin.py --url http://127.0.0.1:41184 --token TOKEN --notes 500
    python3 tests/bench/bench_joplin.py --notes 1000 --tags 50 --runs 5 [--src OTHER/src]

Creates ``--notes`` notes in a new notebook through noted, then times, over ``--runs`` runs each:
opening a note, a page of 50 notes, an idle change-feed poll, a keyword search (Joplin's index plus
noted's pass over recently changed notes) and an update. Prints p50/p95 wall times in ms.

With ``--tags N`` it then puts N tags on the notes through Joplin's API (the first on every note,
each other on every (N-1)th note) and counts the requests sent to Joplin (below httpx,
``tests.support.joplin.Wire``) with the median time of: the notebook tree's tags (read first, as
the app does; again after an edit of a note), the app's page of the largest tag, the whole tree
after an edit, the app's page of a keyword search, deleting a tag of 20 notes, the ``list_tags`` tool
of a client limited to a notebook of 20 tagged notes (with the tags' notes kept, and cold, as in a
new MCP server), its ``search_notes`` for a word of every note, and the app's page of the trash holding 100 tagged notes. ``--src`` runs another
checkout's code (``/work/main/src``) to compare.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

if TYPE_CHECKING:
    from tests.support.joplin import Wire

    from noted.store.joplin import JoplinStore


def _body(i: int) -> str:
    para = f"Notes about topic {i % 17}: the garden, the budget and the plan number {i}. "
    return f"# Note {i}\n\n{para * 8}\n\n## Details\n\n{para * 4}\n"


def _timed(runs: int, work: Callable[[int], object]) -> tuple[float, float]:
    samples = []
    for i in range(runs):
        start = time.perf_counter()
        work(i)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.95))]


def _counted(wire: Wire, runs: int, work: Callable[[int], object]) -> tuple[float, float]:
    """Median requests and median ms of ``work`` (``setup`` excluded by the caller)."""
    counts, times = [], []
    for i in range(runs):
        wire.clear()
        start = time.perf_counter()
        work(i)
        times.append((time.perf_counter() - start) * 1000)
        counts.append(len(wire.requests))
    return statistics.median(counts), statistics.median(times)


def _tags(store: JoplinStore, wire: Wire, ids: list[str], tags: int, runs: int) -> None:
    """Put ``tags`` tags on the notes ``ids`` through Joplin's API, then count what tag reads cost."""
    from noted.models import NoteDraft, NotePatch
    from noted.search.joplin import keyword_search_for
    from noted.settings import Settings
    from noted.store.joplin.tag_notes import TagNotes
    from noted.store.protocol import NoteOrder
    from noted.tools.base import ToolContext
    from noted.tools.notebooks import LIST_TAGS
    from noted.tools.scope import Scope
    from noted.tools.search import SEARCH_NOTES
    from noted.ui.data import NoteSource, SourceKind, load_page, load_tree

    api = store.client
    stamp = f"{time.time():.0f}"
    made = [str(api.write("POST", "/tags", {"title": f"bench{k}-{stamp}"})["id"]) for k in range(tags)]
    started = time.perf_counter()
    for i, note_id in enumerate(ids):
        api.write("POST", f"/tags/{made[0]}/notes", {"id": note_id})
        if tags > 1:
            api.write("POST", f"/tags/{made[1 + i % (tags - 1)]}/notes", {"id": note_id})
    print(f"{tags} tags on {len(ids)} notes in {time.perf_counter() - started:.0f} s")
    keyword = keyword_search_for(store)
    biggest = NoteSource(SourceKind.TAG, made[0], "bench0")
    found = NoteSource(SourceKind.SEARCH, "garden", "garden")

    def edited(read: Callable[[], object]) -> Callable[[int], object]:
        def work(i: int) -> object:
            store.update_note(ids[i % len(ids)], NotePatch(append="y"), actor="user")
            store.changes_since(store.latest_cursor())  # the follower sees it, as the app's would
            wire.clear()
            return read()

        return work

    def deleted(i: int) -> object:
        doomed = str(api.write("POST", "/tags", {"title": f"doomed{i}-{stamp}"})["id"])
        for note_id in ids[:20]:
            api.write("POST", f"/tags/{doomed}/notes", {"id": note_id})
        wire.clear()
        store.delete_tag(doomed, actor="user")
        return None

    scoped = store.create_folder(f"Scoped {stamp}", actor="user")
    for i in range(20):
        note = store.create_note(NoteDraft(f"Scoped {i}", _body(i), scoped.id), actor="user")
        api.write("POST", f"/tags/{made[i % min(tags, 3)]}/notes", {"id": note.id})
    settings = Settings.load(Path(tempfile.mkdtemp(prefix="bench-joplin-config-")) / "config.toml")
    tool = ToolContext(store, settings, keyword, "mcp:bench", scope=Scope.of([scoped.id]))

    def cold(read: Callable[[], object]) -> Callable[[int], object]:
        def work(i: int) -> object:
            store.tags.notes = TagNotes(store.api)  # as a new MCP server, or kept past KEEP_SECONDS
            store.latest_cursor()
            wire.clear()
            return read()

        return work

    measures: dict[str, Callable[[int], object]] = {
        "tree tags": lambda i: store.list_tags(with_notes_only=True),  # the app reads it first
        f"tag page ({len(ids)} notes)": lambda i: load_page(store, biggest, NoteOrder.UPDATED),
        "tree tags after an edit": edited(lambda: store.list_tags(with_notes_only=True)),
        "whole tree after an edit": edited(lambda: load_tree(store)),
        "search page (100 rows)": lambda i: load_page(store, found, NoteOrder.UPDATED, keyword=keyword),
        "delete_tag (20 notes)": deleted,
        "scoped list_tags": lambda i: LIST_TAGS.handler(tool, {}),
        "scoped list_tags (cold)": cold(lambda: LIST_TAGS.handler(tool, {})),
        "scoped search_notes": lambda i: SEARCH_NOTES.handler(tool, {"query": "garden"}),
    }
    for name, fn in measures.items():
        requests, ms = _counted(wire, runs, fn)
        print(f"{name:28} {requests:6.0f} requests {ms:9.1f} ms")
    for note_id in ids[:100]:
        store.trash_note(note_id, actor="user")
    trash = NoteSource(SourceKind.TRASH, "", "Trash")
    store.list_tags(with_notes_only=True)
    requests, ms = _counted(wire, runs, lambda i: load_page(store, trash, NoteOrder.UPDATED))
    print(f"{'trash page (100 rows)':28} {requests:6.0f} requests {ms:9.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", default="")
    parser.add_argument("--token", default="")
    parser.add_argument("--notes", type=int, default=500)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--tags", type=int, default=0, help="tags to put on the notes (0: none)")
    parser.add_argument("--src", type=Path, default=REPO / "src", help="the noted code to run")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    from tests.support.joplin import JoplinServer, Wire, free_port, unavailable_reason

    from noted.models import NoteDraft, NotePatch
    from noted.search.joplin import JoplinKeywordSearch
    from noted.store.joplin import JoplinStore
    from noted.store.joplin.client import JoplinClient
    from noted.store.joplin.sidecar import SIDECAR_NAME, Sidecar
    from noted.store.joplin.store import CACHE_FOLDER

    work = Path(tempfile.mkdtemp(prefix="bench-joplin-"))
    server = None
    if not args.url:
        reason = unavailable_reason()
        if reason:
            print(f"cannot run: {reason}")
            return 1
        server = JoplinServer(work / "joplin", free_port())
        started = time.perf_counter()
        server.start()
        print(f"joplin-server start: {time.perf_counter() - started:.1f} s")
        args.url, args.token = server.url, server.token
    wire = Wire()
    client = JoplinClient(args.url, args.token, transport=wire)
    profile = work / "profile"
    profile.mkdir(parents=True)
    store = JoplinStore(client, Sidecar.open(profile / SIDECAR_NAME), profile / CACHE_FOLDER)
    try:
        store.latest_cursor()
        folder = store.create_folder(f"Bench {time.time():.0f}", actor="user")
        started = time.perf_counter()
        ids = [
            store.create_note(NoteDraft(f"Note {i}", _body(i), folder.id), actor="user").id
            for i in range(args.notes)
        ]
        per_note = (time.perf_counter() - started) * 1000 / max(1, args.notes)
        print(f"create_note: {per_note:.1f} ms per note ({args.notes} notes)")
        search = JoplinKeywordSearch(store)
        measures: dict[str, Callable[[int], Any]] = {
            "get_note": lambda i: store.get_note(ids[i % len(ids)]),
            "list_notes(limit=50)": lambda i: store.list_notes(folder_id=folder.id, limit=50),
            "changes_since (idle)": lambda i: store.changes_since(store.latest_cursor()),
            "keyword search": lambda i: search.search("note", limit=20),
            "update_note": lambda i: store.update_note(
                ids[i % len(ids)], NotePatch(append="x"), actor="user"
            ),
        }
        for name, fn in measures.items():
            p50, p95 = _timed(args.runs, fn)
            print(f"{name:24} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms")
        if args.tags:
            _tags(store, wire, ids, args.tags, args.runs)
    finally:
        store.close()
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
