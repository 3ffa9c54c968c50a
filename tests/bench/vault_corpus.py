"""A 10,000-file Markdown folder made from the Git and PostgreSQL manuals, with links and front matter.

The pages are those of the search evaluation (``eval_corpus.convert_all``, git-doc) and of the
full-index benchmark (``pgdoc_corpus.pages``, postgresql-doc-15). Each page is cut at its level-2
headings into notes (``page.md``, ``page - Section.md``…) until there are ``--files`` of them; each
note gets front matter (``tags``, ``created``, and ``aliases`` on the first), a first-line
``# Title``, and wiki links to the page's first note and to the next page (``[[Next]]``,
``[[Page#Section|…]]``), so the folder looks like a vault that has been written in for a while.
Folders: ``git/<kind>/`` and ``postgres/<part>/``.

Usage: ``python3 tests/bench/vault_corpus.py [--files 10000] [--out DIR]`` (prints where it is).
Install the manuals with ``apt-get install git-doc postgresql-doc-15``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from eval_corpus import convert_all  # noqa: E402
from pgdoc_corpus import pages as pg_pages  # noqa: E402

from noted.store.transfer.common import safe_name  # noqa: E402

OUT = Path(__file__).resolve().parent / "out" / "vault10k"
_H2 = re.compile(r"^## +(.+)$", re.MULTILINE)


def sources() -> list[tuple[str, str, str]]:
    """``(folder, title, markdown)`` of every page of both manuals."""
    found = [(f"git/{p.kind}", p.title, p.body) for p in convert_all()]
    found += [(f"postgres/{part}", title, body) for part, title, body in pg_pages()]
    return found


def split(title: str, body: str) -> list[tuple[str, str]]:
    """The page cut at its ``##`` headings: ``(title, text)`` of each piece, the first the intro."""
    cuts = [m.start() for m in _H2.finditer(body)]
    if not cuts:
        return [(title, body)]
    pieces = [(title, body[: cuts[0]])]
    for start, end in zip(cuts, [*cuts[1:], len(body)], strict=True):
        text = body[start:end]
        heading = text.split("\n", 1)[0].lstrip("# ").strip()
        pieces.append((f"{title} - {heading}"[:150], text.split("\n", 1)[1] if "\n" in text else ""))
    return pieces


def build(out: Path, files: int) -> int:
    """Write the folder afresh; returns how many notes it holds."""
    if out.exists():
        shutil.rmtree(out)
    pages = sources()
    notes: list[tuple[str, str, str, str]] = []  # folder, name, title, text
    for (folder, title, body), nxt in zip(pages, [*pages[1:], pages[0]], strict=True):
        pieces = split(title, body)
        first = safe_name(title)
        for n, (piece_title, text) in enumerate(pieces):
            name = safe_name(piece_title)
            links = (
                f"Part of [[{first}]]; next: [[{safe_name(nxt[1])}]]."
                if n
                else f"Next: [[{safe_name(nxt[1])}]]."
            )
            notes.append((folder, name, piece_title, f"{text.strip()}\n\n{links}\n"))
    # Fewer pieces than asked: the folder is copied as a second edition, as a vault keeps old versions.
    edition = 2
    base = list(notes)
    while len(notes) < files:
        notes += [(f"edition {edition}/{f}", n, t, x) for f, n, t, x in base]
        edition += 1
    seen: set[str] = set()
    written = 0
    for i, (folder, name, title, text) in enumerate(notes[:files]):
        path = f"{folder}/{name}"
        while path.casefold() in seen:
            path += " 2"
        seen.add(path.casefold())
        tag = folder.split("/")[1] if "/" in folder else folder
        created = f"20{20 + i % 6}-0{1 + i % 9}-1{i % 10}T09:00:00Z"
        front = f"---\ntags: [{tag.replace(' ', '-')}, manual]\ncreated: {created}\n---\n"
        target = out / f"{path}.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"{front}# {title}\n\n{text}", encoding="utf-8")
        written += 1
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    count = build(args.out, args.files)
    size = sum(p.stat().st_size for p in args.out.rglob("*.md"))
    print(f"{args.out}: {count} notes, {size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
