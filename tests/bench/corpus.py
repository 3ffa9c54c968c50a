"""A deterministic, realistic corpus for the benchmarks: nested notebooks, varied notes, tags, to-dos.

The same ``--notes`` and ``--seed`` always give the same notebooks, notes, ids and tags. Times are
offsets from an anchor (a fixed day by default; the benchmark anchors on today so that filters
such as ``updated:month-1`` find recent notes). Each note is generated from its own seed, so
``Corpus.note(i)`` rebuilds one note without generating the others.

Two outputs:

- ``--markdown``: a folder of Markdown files with YAML front matter in the layout ``noted import
  DIR`` reads (one directory per notebook);
- otherwise: a profile folder (``DIR/notes.db``) filled directly through ``SqliteStore``, one
  transaction per ``BATCH`` notes (the fast path, which skips parsing files).

Usage: ``python3 tests/bench/corpus.py --notes 10000 --out DIR [--markdown] [--seed 1]``
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import textgen
import yaml
from vocab import ranked_vocabulary

from noted.models import ACTOR_IMPORT, NoteDraft
from noted.store.sqlite import SqliteStore

ANCHOR_MS = 1_750_000_000_000  # 2025-06-15, the default "now" of a corpus
DAY_MS = 86_400_000
SPAN_MS = 4 * 365 * DAY_MS
VOCABULARY = 50_000
TAGS = 300
NOTES_PER_NOTEBOOK = 100
MAX_DEPTH = 3  # depth 0..3: four levels of notebooks
BATCH = 1000


@dataclass(frozen=True, slots=True)
class BenchFolder:
    """A notebook of the corpus; ``parent`` is -1 at the top level."""

    index: int
    title: str
    parent: int
    depth: int


@dataclass(frozen=True, slots=True)
class BenchNote:
    """A note of the corpus, with times in milliseconds and tags by title."""

    index: int
    id: str
    folder: int
    title: str
    body: str
    tags: tuple[str, ...]
    created: int
    updated: int
    is_todo: bool
    todo_due: int
    todo_completed: int
    source_url: str


class Corpus:
    """The notebooks, tags and notes of one ``(notes, seed, anchor)``."""

    def __init__(self, notes: int, *, seed: int = 1, anchor_ms: int = ANCHOR_MS) -> None:
        self.count = notes
        self.seed = seed
        self.anchor_ms = anchor_ms
        self.words = textgen.Words(ranked_vocabulary(VOCABULARY, seed))
        rng = random.Random(seed)
        self.folders = self._make_folders(rng, max(4, round(notes / NOTES_PER_NOTEBOOK)))
        self.tags = self._make_tags(rng)
        """Tag titles, most used first."""
        order = list(range(len(self.folders)))
        rng.shuffle(order)
        # Notebooks are unequal: a few hold many notes, most hold a few dozen.
        weights = [0.0] * len(order)
        for rank, i in enumerate(order):
            weights[i] = 1.0 / (rank + 1) ** 0.8
        self._folder_cum = _cumulative(weights)
        self._tag_cum = _cumulative([1.0 / (r + 1) ** 1.1 for r in range(len(self.tags))])

    # Structure ---------------------------------------------------------------------------
    def _make_folders(self, rng: random.Random, count: int) -> list[BenchFolder]:
        tops = max(3, round(count**0.5 / 1.5))
        folders: list[BenchFolder] = []
        titles: set[str] = set()
        for i in range(count):
            parent = -1
            if i >= tops:
                # Parents high in the tree are likelier, so depth thins out as in real notebooks.
                open_ = [f for f in folders if f.depth < MAX_DEPTH]
                parent = rng.choices(open_, weights=[4 - f.depth for f in open_])[0].index
            title = _unique(" ".join(self.words.content(rng, rng.randint(1, 3), top=3000)).title(), titles)
            depth = 0 if parent < 0 else folders[parent].depth + 1
            folders.append(BenchFolder(i, title, parent, depth))
        return folders

    def _make_tags(self, rng: random.Random) -> list[str]:
        tags: set[str] = set()
        while len(tags) < TAGS:
            roll = rng.random()
            words = self.words.content(rng, 2, top=5000)
            if roll < 0.6:
                tag = words[0]
            elif roll < 0.85:
                tag = "-".join(words)
            else:
                tag = f"{words[0]}-{rng.randint(2019, 2026)}"
            tags.add(tag.lower())
        ranked = sorted(tags)
        rng.shuffle(ranked)
        return ranked

    def folder_path(self, index: int) -> list[str]:
        """The titles from the top-level notebook down to notebook ``index``."""
        path: list[str] = []
        while index >= 0:
            path.append(self.folders[index].title)
            index = self.folders[index].parent
        return path[::-1]

    def descendants(self, index: int) -> list[int]:
        """Notebook ``index`` and every notebook below it."""
        out = [index]
        for folder in self.folders:  # parents always come before their children
            if folder.parent in out:
                out.append(folder.index)
        return out

    # Notes -------------------------------------------------------------------------------
    def note(self, index: int) -> BenchNote:
        """Note number ``index``, the same every time."""
        rng = random.Random(self.seed * 1_000_003 + index)
        folder = rng.choices(range(len(self.folders)), cum_weights=self._folder_cum)[0]
        is_todo = rng.random() < 0.12
        title = self._title(rng, is_todo)
        body = textgen.body(self.words, rng, textgen.target_length(rng))
        ntags = rng.choices((0, 1, 2, 3, 4, 5), weights=(28, 30, 20, 11, 7, 4))[0]
        tags = tuple(dict.fromkeys(rng.choices(self.tags, cum_weights=self._tag_cum, k=ntags)))
        created = self.anchor_ms - int(SPAN_MS * rng.random())
        if rng.random() < 0.05:  # recently touched notes, so that updated:day-7 or month-1 find some
            updated = self.anchor_ms - int(30 * DAY_MS * rng.random())
            created = min(created, updated)
        elif rng.random() < 0.6:
            updated = created + int(DAY_MS * rng.random() ** 4)
        else:
            updated = created + int((self.anchor_ms - created) * rng.random() ** 3)
        due = done = 0
        if is_todo:
            if rng.random() < 0.6:
                due = created + int(DAY_MS * rng.uniform(-5, 60))
            if rng.random() < 0.45:
                done = min(self.anchor_ms, (due or created) + int(DAY_MS * rng.uniform(0, 10)))
        source = textgen.url(self.words, rng) if rng.random() < 0.15 else ""
        note_id = f"{rng.getrandbits(128):032x}"
        return BenchNote(
            index, note_id, folder, title, body, tags, created, updated, is_todo, due, done, source
        )

    def _title(self, rng: random.Random, is_todo: bool) -> str:
        words = self.words.content(rng, rng.randint(2, 6))
        if is_todo:
            return (
                rng.choice(("Call", "Fix", "Write", "Review", "Buy", "Send", "Plan")) + " " + " ".join(words)
            )
        roll = rng.random()
        if roll < 0.08:
            day = datetime.fromtimestamp(rng.randint(1_600_000_000, 1_750_000_000), UTC)
            return f"Meeting notes {day:%Y-%m-%d} " + " ".join(words[:2])
        if roll < 0.12:
            return "Re: " + " ".join(words)
        text = " ".join(words)
        return text[:1].upper() + text[1:]

    def notes(self, start: int = 0, stop: int | None = None) -> Iterator[BenchNote]:
        """The notes in order, from ``start`` up to ``stop`` (all of them by default)."""
        for i in range(start, self.count if stop is None else stop):
            yield self.note(i)


def _cumulative(weights: list[float]) -> list[float]:
    total, out = 0.0, []
    for w in weights:
        total += w
        out.append(total)
    return out


def _unique(title: str, taken: set[str]) -> str:
    candidate, n = title, 1
    while candidate.casefold() in taken:
        n += 1
        candidate = f"{title} {n}"
    taken.add(candidate.casefold())
    return candidate


# Outputs -----------------------------------------------------------------------------------
Progress = Callable[[int], None]


def fill_store(
    store: SqliteStore,
    corpus: Corpus,
    notes: Iterator[BenchNote] | None = None,
    progress: Progress | None = None,
) -> dict[int, str]:
    """Create the corpus's notebooks and notes in ``store``; returns notebook index → id.

    Notes go in through ``create_note`` (so the change feed, revisions and FTS triggers all run,
    as for a real import) in one transaction per ``BATCH`` notes.
    """
    ids: dict[int, str] = {}
    with store.batch():
        for folder in corpus.folders:
            parent = ids[folder.parent] if folder.parent >= 0 else ""
            ids[folder.index] = store.create_folder(folder.title, parent_id=parent, actor=ACTOR_IMPORT).id
    pending = iter(notes if notes is not None else corpus.notes())
    done = 0
    while True:
        chunk = [n for _, n in zip(range(BATCH), pending, strict=False)]
        if not chunk:
            return ids
        with store.batch():
            for note in chunk:
                store.create_note(_draft(note, ids[note.folder]), actor=ACTOR_IMPORT)
        done += len(chunk)
        if progress:
            progress(done)


def _draft(note: BenchNote, folder_id: str) -> NoteDraft:
    return NoteDraft(
        title=note.title,
        body=note.body,
        parent_id=folder_id,
        is_todo=note.is_todo,
        todo_due=note.todo_due,
        todo_completed=note.todo_completed,
        source_url=note.source_url,
        id=note.id,
        user_created_time=note.created,
        user_updated_time=note.updated,
        tags=note.tags,
    )


_UNSAFE = re.compile(r'[<>:"/\\|?*\x00-\x1f]+')


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def front_matter(note: BenchNote) -> dict[str, object]:
    """The YAML front matter of a note's Markdown file."""
    meta: dict[str, object] = {
        "id": note.id,
        "title": note.title,
        "created": _iso(note.created),
        "updated": _iso(note.updated),
    }
    if note.tags:
        meta["tags"] = list(note.tags)
    if note.is_todo:
        meta["is_todo"] = True
        if note.todo_due:
            meta["todo_due"] = _iso(note.todo_due)
        if note.todo_completed:
            meta["todo_completed"] = _iso(note.todo_completed)
    if note.source_url:
        meta["source_url"] = note.source_url
    return meta


def write_markdown(corpus: Corpus, out: Path, progress: Progress | None = None, *, links: int = 0) -> int:
    """Write the corpus as ``out/<notebook>/<sub-notebook>/<title>.md`` files; returns the file count.

    ``links``: each note ends with links, by relative path, to that many other notes of the corpus
    picked at random, so about half of them lead to a file an import reads after it.
    """
    dirs = {
        f.index: out.joinpath(*(_UNSAFE.sub("_", t) for t in corpus.folder_path(f.index)))
        for f in corpus.folders
    }
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    used: set[Path] = set()
    for note in corpus.notes():
        stem = _UNSAFE.sub("_", note.title).strip(" .")[:80] or "untitled"
        path, n = dirs[note.folder] / f"{stem}.md", 1
        while path in used:
            n += 1
            path = dirs[note.folder] / f"{stem} ({n}).md"
        used.add(path)
        paths.append(path)
    for note in corpus.notes():
        path = paths[note.index]
        rng = random.Random(corpus.seed * 7_919 + note.index)
        others = [i for i in rng.sample(range(corpus.count), min(links + 1, corpus.count)) if i != note.index]
        tail = "".join(
            f"\n- see [{i}]({quote(os.path.relpath(paths[i], path.parent))})" for i in others[:links]
        )
        head = yaml.safe_dump(front_matter(note), allow_unicode=True, sort_keys=False)
        path.write_text(f"---\n{head}---\n\n{note.body}\n{tail}", encoding="utf-8")
        if progress and (note.index + 1) % BATCH == 0:
            progress(note.index + 1)
    return corpus.count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000, help="how many notes (default 10000)")
    parser.add_argument(
        "--out", type=Path, required=True, help="profile folder, or Markdown folder with --markdown"
    )
    parser.add_argument("--markdown", action="store_true", help="write Markdown files instead of a database")
    parser.add_argument("--seed", type=int, default=1, help="the corpus seed (default 1)")
    parser.add_argument("--links", type=int, default=0, help="with --markdown: links to other notes in each")
    args = parser.parse_args(argv)
    corpus = Corpus(args.notes, seed=args.seed)
    start = time.perf_counter()

    def progress(done: int) -> None:
        print(
            f"\r{done:,}/{args.notes:,} notes  {time.perf_counter() - start:.0f} s", end="", file=sys.stderr
        )

    if args.markdown:
        if args.out.exists() and any(args.out.iterdir()):
            parser.error(f"{args.out} is not empty")
        write_markdown(corpus, args.out, progress, links=args.links)
    else:
        if (args.out / "notes.db").exists():
            parser.error(f"{args.out / 'notes.db'} exists already")
        store = SqliteStore.open(args.out / "notes.db", args.out / "resources")
        try:
            fill_store(store, corpus, progress=progress)
        finally:
            store.close()
    print(
        f"\n{args.notes:,} notes in {len(corpus.folders):,} notebooks written to {args.out} "
        f"in {time.perf_counter() - start:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
