"""``noted search QUERY``: keyword search with the Joplin filter grammar.

Search by meaning and the hybrid mode join this command later as a ``--mode`` option.
"""

from __future__ import annotations

import argparse

from noted.cli import render
from noted.cli.args import Subparsers, command
from noted.cli.context import CliContext
from noted.errors import InvalidInputError
from noted.search.keyword import KeywordHit

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
        "Search notes by keyword; each result names the section that matched.",
        epilog=_GRAMMAR,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("query", help="the query, e.g. 'tag:howto \"change feed\"'")
    p.add_argument(
        "--limit", type=int, default=DEFAULT_LIMIT, metavar="N", help=f"at most N results ({DEFAULT_LIMIT})"
    )
    p.add_argument("--offset", type=int, default=0, metavar="N", help="skip the first N results")


def _hit_json(hit: KeywordHit) -> render.JsonDict:
    return {
        "id": hit.note_id,
        "title": hit.title,
        "notebook_id": hit.notebook_id,
        "notebook": hit.notebook_title,
        "updated_time": hit.updated_time,
        "is_todo": hit.is_todo,
        "todo_completed": hit.todo_completed,
        "section": hit.section,
        "section_heading": hit.section_heading,
        "snippet": hit.snippet,
        "score": hit.score,
    }


def cmd_search(args: argparse.Namespace, ctx: CliContext) -> int:
    if not 1 <= args.limit <= MAX_LIMIT:
        raise InvalidInputError(f"--limit must be between 1 and {MAX_LIMIT}")
    if args.offset < 0:
        raise InvalidInputError("--offset must be 0 or more")
    results = ctx.services.keyword.search(args.query, limit=args.limit, offset=args.offset)
    if ctx.json:
        ctx.emit({"query": args.query, "total": results.total, "hits": [_hit_json(h) for h in results.hits]})
        return 0
    if not results.hits:
        ctx.out("No notes match." if results.total == 0 else f"No more results ({results.total} in all).")
        return 0
    for hit in results.hits:
        where = f"  § {hit.section} {hit.section_heading}".rstrip() if hit.section else ""
        when = render.fmt_time(hit.updated_time)
        ctx.out(f"{hit.note_id[:8]}  {hit.title}  · {hit.notebook_title}  · {when}{where}")
        snippet = " ".join(hit.snippet.split())
        if snippet:
            ctx.out(f"          {snippet}")
    shown = args.offset + len(results.hits)
    if results.total > shown:
        ctx.out(f"({shown} of {results.total}; --limit or --offset for more)")
    return 0
