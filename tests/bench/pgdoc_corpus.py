"""PostgreSQL's manual (Debian's ``postgresql-doc-15``) as notes: the corpus of the full-index benchmark.

Each HTML page becomes one note titled by the page's ``<title>``, its body the page converted to
Markdown (``markdownify``, ATX headings, so the chunker sees the manual's sections), without the
navigation header and footer. Pages whose text is under ``MIN_CHARS`` (tables of contents made
of links alone) are left out. Notes go into one notebook per part of the file name before the
first ``-`` (``sql``, ``app``, ``functions``…), so the profile looks like an imported folder tree.

The profile is cached in ``tests/bench/out/pgdoc_profile`` and made again with ``--rebuild``.

Usage: ``python3 tests/bench/pgdoc_corpus.py [--rebuild] [--limit N]`` (prints where the profile is
and its size). Install the manual with ``apt-get install postgresql-doc-15``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from bs4 import BeautifulSoup
from markdownify import markdownify

from noted.models import ACTOR_IMPORT, NoteDraft
from noted.store.sqlite import SqliteStore

PG_DOC = Path("/usr/share/doc/postgresql-doc-15/html")
OUT = Path(__file__).resolve().parent / "out"
PROFILE = OUT / "pgdoc_profile"
MIN_CHARS = 1_500


class PgDocMissing(Exception):
    """postgresql-doc-15 is not installed."""


def pages(root: Path = PG_DOC) -> list[tuple[str, str, str]]:
    """``(notebook, title, markdown)`` of every page worth a note, in file name order."""
    if not (root / "index.html").is_file():
        raise PgDocMissing(f"{root} has no index.html; install it with `apt-get install postgresql-doc-15`")
    out = []
    for path in sorted(root.glob("*.html")):
        soup = BeautifulSoup(path.read_text(encoding="utf-8", errors="replace"), "html.parser")
        for nav in soup.select("div.navheader, div.navfooter"):
            nav.decompose()
        title = soup.title.get_text(" ", strip=True) if soup.title else path.stem
        body = markdownify(str(soup.body or soup), heading_style="ATX").strip()
        body = "\n".join(line.rstrip() for line in body.splitlines())
        while "\n\n\n" in body:
            body = body.replace("\n\n\n", "\n\n")
        if len(body) >= MIN_CHARS:
            out.append((path.stem.split("-")[0], title, body))
    return out


def build(profile: Path = PROFILE, *, limit: int | None = None) -> tuple[int, int]:
    """Make the profile afresh; returns (notes, characters)."""
    found = pages()[:limit]
    if profile.exists():
        shutil.rmtree(profile)
    profile.mkdir(parents=True)
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        folders: dict[str, str] = {}
        with store.batch():
            for notebook, title, body in found:
                if notebook not in folders:
                    folders[notebook] = store.create_folder(notebook, actor=ACTOR_IMPORT).id
                store.create_note(NoteDraft(title, body, parent_id=folders[notebook]), actor=ACTOR_IMPORT)
    finally:
        store.close()
    return len(found), sum(len(t) + len(b) for _, t, b in found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rebuild", action="store_true", help="convert the manual again")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    parser.add_argument("--out", type=Path, default=PROFILE, help="where to write the profile")
    args = parser.parse_args()
    if (args.out / "notes.db").is_file() and not args.rebuild:
        print(f"cached: {args.out}")
        return 0
    try:
        notes, chars = build(args.out, limit=args.limit)
    except PgDocMissing as exc:
        print(f"skipped: {exc}")
        return 0
    print(f"{args.out}: {notes} notes, {chars:,} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
