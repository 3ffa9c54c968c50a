"""PostgreSQL 15's manual (Debian's ``postgresql-doc-15``) as notes: the second corpus of the search evaluation.

A book rather than man pages: Git's docs are short pages named after commands, this is chapters of
prose in long pages (a page is a ``sect1`` of the manual, up to 100 k characters with many ``sect2``
and ``sect3`` sections) beside the SQL command reference. Each HTML page becomes one note, as an
import of the HTML would give it: the title is the page's ``<title>`` without its section number
("20.7. Query Planning" becomes "Query Planning", "CREATE INDEX" stays), the body is Markdown with
the page's headings (numbers dropped) kept. The conversion is git-doc's (``eval_corpus``).

Only the parts a user of the database reads are kept (the tutorial, the SQL language, server
administration, PL/pgSQL, triggers, the SQL command reference and the main client programs); the
C interfaces, internals, catalogs and release notes are left out to keep the corpus a few hundred
notes. Pages that are only a table of contents (a chapter's first page) are dropped.

The profile is cached in ``tests/bench/out/eval_pg_profile`` and rebuilt only when the converter
changes. Usage: ``python3 tests/bench/eval_pg_corpus.py [--rebuild]``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from eval_corpus import OUT, GitDocMissing, Page, build_profile, cached_profile, convert_html, corpus_main

PG_DOC = Path("/usr/share/doc/postgresql-doc-15/html")
PROFILE = OUT / "eval_pg_profile"
CONVERTER_VERSION = 2
NOTEBOOKS = ("tutorial", "sql", "admin", "programming", "reference")

_PARTS: dict[str, tuple[str, ...]] = {
    "tutorial": ("tutorial",),
    "sql": ("ddl", "dml", "queries", "datatype", "typeconv", "indexes", "textsearch", "mvcc",
            "explicit-locking", "applevel", "locking", "transaction-iso", "performance-tips",
            "using-explain", "planner-stats", "populate", "non-durability", "parallel", "sql-syntax",
            "sql-expressions", "rowtypes", "arrays", "rangetypes", "domains", "functions-textsearch"),
    "admin": ("runtime", "config-setting", "auth", "client-auth", "user-manag", "role", "default-roles",
              "predefined-roles", "manage-ag", "charset", "locale", "collation", "multibyte",
              "maintenance", "routine", "backup", "continuous-archiving", "high-availability",
              "warm-standby", "hot-standby", "monitoring", "wal", "logical-replication", "jit",
              "kernel-resources", "server-", "ssl-tcp", "encryption", "upgrading", "preventing"),
    "programming": ("plpgsql", "triggers", "trigger-", "event-trigger", "rules"),
    "reference": ("sql-", "app-psql", "app-pgdump", "app-pgrestore", "app-pgbasebackup", "app-pg-dumpall",
                  "app-createdb", "app-vacuumdb", "app-initdb", "app-pg-ctl", "pgupgrade", "pgstatstatements",
                  "pgtrgm"),
}  # fmt: skip
"""Notebook -> the file-name prefixes of its pages (longest prefix wins: ``sql-syntax`` is SQL, not reference)."""

_NUMBER = re.compile(r"^(?:(?:Chapter|Part|Appendix) [\dIVXA-Z]+\. |[\dA-Z]+(?:\.\d+)+\.? |\d+\. )")
_NUMBERED_HEADING = re.compile(r"^(#+ )(?:[\dA-Z]+(?:\.\d+)+\.? |\d+\. )", re.M)
_ADMONITION = re.compile(r"^#+ (Note|Tip|Warning|Caution|Important)$", re.M)
"""DocBook gives a note its own ``<h3>``: kept as a heading it would end the section it sits in."""
MIN_BODY = 400
"""Shorter pages are a chapter's table of contents."""


def _notebook(name: str) -> str | None:
    best: tuple[int, str] | None = None
    for notebook, prefixes in _PARTS.items():
        for prefix in prefixes:
            if name.startswith(prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), notebook)
    return best[1] if best else None


def convert_page(path: Path) -> Page | None:
    """One page of the manual as a note, or None when it is not in the corpus."""
    notebook = _notebook(path.stem)
    if notebook is None:
        return None
    page = convert_html(path, path.stem)
    body = _ADMONITION.sub(r"**\1**", _NUMBERED_HEADING.sub(r"\1", page.body))
    if len(body) < MIN_BODY:
        return None
    return Page(path.stem, _NUMBER.sub("", page.title).strip(), notebook, body)


def convert_all(root: Path = PG_DOC) -> list[Page]:
    """Every page of the corpus, in file-name order.

    Raises:
        GitDocMissing: the manual is not installed (the same "corpus missing" error as git-doc's).
    """
    if not (root / "index.html").is_file():
        raise GitDocMissing(
            f"postgresql-doc-15 is not installed ({root} has no index.html); "
            "install it with `apt-get install postgresql-doc-15`"
        )
    pages = [p for path in sorted(root.glob("*.html")) if (p := convert_page(path))]
    titles: dict[str, int] = {}
    out = []
    for page in pages:  # a title names one note in the judgements: number the rare repeats
        titles[page.title] = titles.get(page.title, 0) + 1
        n = titles[page.title]
        out.append(page if n == 1 else Page(page.key, f"{page.title} ({n})", page.kind, page.body))
    return out


def ensure_profile(profile: Path = PROFILE, *, rebuild: bool = False) -> tuple[Path, list[dict[str, str]]]:
    """The cached corpus profile and its manifest (one entry a note), built when missing or stale.

    Raises:
        GitDocMissing: the manual is not installed and there is no usable cache.
    """

    def build() -> dict[str, object]:
        return build_profile(profile, convert_all(), NOTEBOOKS, version=CONVERTER_VERSION, source=PG_DOC)

    return cached_profile(profile, CONVERTER_VERSION, build, rebuild=rebuild)


def main() -> int:
    return corpus_main(ensure_profile, NOTEBOOKS, __doc__.split("\n\n")[0])


if __name__ == "__main__":
    sys.exit(main())
