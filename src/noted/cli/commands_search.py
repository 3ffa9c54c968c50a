"""``noted search QUERY``: keyword search with the Joplin filter grammar.

Search by meaning and the hybrid mode join this command later as a ``--mode`` option.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from noted.cli import render
from noted.cli.args import Subparsers, command
from noted.cli.context import CliContext
from noted.errors import InvalidInputError
from noted.markdown import section_label
from noted.search.keyword import KeywordHit
from noted.search.plain import readable
from noted.search.translate import Translation, to_english
from noted.settings.handles import SEARCH_DEFAULT_MODE, SEARCH_RELEVANCE

if TYPE_CHECKING:
    from noted.indexer.coverage import IndexCoverage

DEFAULT_LIMIT = 20
MAX_LIMIT = 1000

_GRAMMAR = """\
query grammar (Joplin's):
  word "a phrase" prefix* -excluded any:1 (OR instead of AND)
  notebook:NAME  tag:NAME  title:WORD  body:WORD  type:note|todo  iscompleted:0|1
  created:|updated:|due: YYYY[MM[DD]] or day|week|month|year-N (on or after; -created: before)
  sourceurl:URL  resource:MIME  id:ID
"""


def register(sub: Subparsers) -> None:
    """Add ``search``."""
    p = command(
        sub,
        "search",
        cmd_search,
        "Search notes by keyword, by meaning, or both; each result names the section that matched.",
        epilog=_GRAMMAR,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("query", help="the query, e.g. 'tag:howto \"change feed\"'")
    p.add_argument(
        "--mode",
        choices=("keyword", "semantic", "hybrid"),
        help="keyword: all words must match; semantic: by meaning; hybrid: both, fused "
        "(default: the search.defaultMode setting)",
    )
    p.add_argument(
        "--limit", type=int, default=DEFAULT_LIMIT, metavar="N", help=f"at most N results ({DEFAULT_LIMIT})"
    )
    p.add_argument("--offset", type=int, default=0, metavar="N", help="skip the first N results (keyword)")


@dataclass(frozen=True, slots=True)
class _Row:
    """One result, whatever the mode."""

    id: str
    title: str
    notebook_id: str
    updated_time: int
    section: str | None
    section_heading: str | None
    snippet: str
    score: float
    extra: render.JsonDict


def cmd_search(args: argparse.Namespace, ctx: CliContext) -> int:
    if not 1 <= args.limit <= MAX_LIMIT:
        raise InvalidInputError(f"--limit must be between 1 and {MAX_LIMIT}")
    if args.offset < 0:
        raise InvalidInputError("--offset must be 0 or more")
    services = ctx.services
    mode = args.mode or services.settings.get(SEARCH_DEFAULT_MODE)
    relevance = services.settings.get(SEARCH_RELEVANCE)
    total: int | None = None
    coverage: IndexCoverage | None = None
    searched_as: Translation | None = None
    if mode == "semantic":
        searched_as = to_english(args.query, services.keyword)
        text = args.query if searched_as is None else searched_as.text
        hits = services.semantic().search(text, relevance=relevance, limit=args.limit)
        coverage = _coverage(ctx)
        rows = [_Row(h.note_id, h.title, h.notebook_id, h.updated_time, h.section, h.section_heading,
                     h.snippet, h.score, {}) for h in hits]  # fmt: skip
    elif mode == "hybrid":
        found = services.hybrid().search(args.query, limit=args.limit, relevance=relevance)
        if found.semantic_error:
            ctx.error(f"searching by keyword only: {found.semantic_error}")
        else:
            coverage = _coverage(ctx)
        searched_as = found.searched_as
        rows = [_Row(h.note_id, h.title, h.notebook_id, h.updated_time, h.section, h.section_heading,
                     h.snippet, h.score, {"arms": [str(a) for a in h.arms]}) for h in found.hits]  # fmt: skip
    else:
        results = services.keyword.search(args.query, limit=args.limit, offset=args.offset)
        total = results.total
        rows = [_keyword_row(h) for h in results.hits]
        translation = to_english(args.query, services.keyword) if not results.hits else None
        if translation is not None:  # keyword search takes the words as typed; hybrid translates them
            ctx.error(f'no notes match; `--mode hybrid` searches it in English as "{translation.text}"')
        elif results.suggestion:
            ctx.error(f'no notes match; did you mean "{results.suggestion}"?')
    if searched_as is not None:
        ctx.error(f'searched in English as "{searched_as.text}"')
    return _print(ctx, args, mode, rows, total, coverage, searched_as)


def _coverage(ctx: CliContext) -> IndexCoverage:
    return ctx.services.index_coverage()


def _keyword_row(hit: KeywordHit) -> _Row:
    extra: render.JsonDict = {
        "notebook": hit.notebook_title,
        "is_todo": hit.is_todo,
        "todo_completed": hit.todo_completed,
    }
    return _Row(hit.note_id, hit.title, hit.notebook_id, hit.updated_time, hit.section,
                hit.section_heading, hit.snippet, hit.score, extra)  # fmt: skip


def _print(
    ctx: CliContext,
    args: argparse.Namespace,
    mode: str,
    rows: list[_Row],
    total: int | None,
    coverage: IndexCoverage | None,
    searched_as: Translation | None = None,
) -> int:
    if any("notebook" not in r.extra for r in rows):
        titles = {f.id: f.title for f in ctx.services.store.list_folders(include_trashed=True)}
        rows = [r if "notebook" in r.extra else _with_notebook(r, titles) for r in rows]
    if ctx.json:
        hits = [
            {
                "id": r.id,
                "title": r.title,
                "notebook_id": r.notebook_id,
                "updated_time": r.updated_time,
                "section": r.section,
                "section_heading": r.section_heading,
                "snippet": r.snippet,
                "score": r.score,
                **r.extra,
            }
            for r in rows
        ]
        payload: render.JsonDict = {
            "query": args.query,
            "mode": mode,
            "total": len(rows) if total is None else total,
            "hits": hits,
        }
        if coverage is not None:  # results by meaning come from an index that may be partial
            payload["index"] = coverage.as_json()
        if searched_as is not None:  # a query in Spanish, German or French, searched in English
            payload["searched_as"] = {"language": searched_as.language, "text": searched_as.text}
        ctx.emit(payload)
        return 0
    notice = coverage.notice() if coverage is not None else None
    if notice:
        ctx.out(f"({notice}: results may be missing)")
    if not rows:
        ctx.out("No notes match." if not total else f"No more results ({total} in all).")
        return 0
    for r in rows:
        where = f"  {section_label(r.section, r.section_heading)}" if r.section else ""
        notebook = str(r.extra.get("notebook") or "")
        ctx.out(
            f"{r.id[:8]}  {r.title}{'  · ' + notebook if notebook else ''}  · {render.fmt_time(r.updated_time)}{where}"
        )
        snippet = readable(r.snippet, r.section_heading)
        if snippet:
            ctx.out(f"          {snippet}")
    shown = args.offset + len(rows)
    if total is not None and total > shown:
        ctx.out(f"({shown} of {total}; --limit or --offset for more)")
    return 0


def _with_notebook(row: _Row, titles: dict[str, str]) -> _Row:
    return dataclasses.replace(row, extra={**row.extra, "notebook": titles.get(row.notebook_id, "")})
