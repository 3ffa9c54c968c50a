"""``noted search QUERY``: by keyword (Joplin's filter grammar), by meaning, or both.

The search itself is ``noted.search.finder.Finder``'s, as for the app and the tools; this only
prints its results (``--json``: every hit with up to three sections, and how the query was read).
"""

from __future__ import annotations

import argparse

from noted.cli import render
from noted.cli.args import MAX_COUNT, Commands, check_range
from noted.cli.context import CliContext
from noted.search.keyword import MAX_LIMIT
from noted.search.plain import readable
from noted.search.results import Mode, Results
from noted.wording import local_time

DEFAULT_LIMIT = 20

_GRAMMAR = """\
query grammar (Joplin's):
  word "a phrase" prefix* -excluded any:1 (OR instead of AND)
  notebook:NAME  tag:NAME  title:WORD  body:WORD  type:note|todo  iscompleted:0|1
  created:|updated:|due: YYYY[MM[DD]] or day|week|month|year-N (on or after; -created: before)
  sourceurl:URL  resource:MIME  id:ID
"""


def register(sub: Commands) -> None:
    """Add ``search``."""
    p = sub.add(
        "search",
        cmd_search,
        "Search notes by keyword, by meaning, or both; each result names the section that matched.",
        epilog=_GRAMMAR,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,  # a word such as -home is a query's, not -h with "ome" (cli.parse keeps -h)
    )
    p.add_argument("--help", action="help", help="show this help message and exit")
    p.add_argument(
        "query",
        nargs="*",
        help="the query, one argument or several, e.g. 'tag:howto \"change feed\"' or budget -tag:done",
    )
    p.set_defaults(dashed_words=True)  # -tag:done, -draft: words of the query, not options (cli.parse)
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


def cmd_search(args: argparse.Namespace, ctx: CliContext) -> int:
    check_range("--limit", args.limit, 1, MAX_LIMIT)
    check_range("--offset", args.offset, 0, MAX_COUNT)
    query = " ".join(args.query)
    found = ctx.services.finder().search(query, mode=args.mode, limit=args.limit, offset=args.offset)
    for line in found.lines():  # how the query was read, a partial index, why nothing matched
        ctx.error(line)
    if ctx.json:
        ctx.emit(_payload(query, found))
    else:
        _print(ctx, args, found)
    return 0


def _payload(query: str, found: Results) -> render.JsonDict:
    hits = [
        {
            "id": h.note_id,
            "title": h.title,
            "notebook_id": h.notebook_id,
            "notebook": h.notebook,
            "updated_time": h.updated_time,
            "section": None if h.section is None else h.section.path,
            "section_heading": None if h.section is None else h.section.heading,
            "sections": [{"section": x.path, "section_heading": x.heading} for x in h.sections],
            "snippet": h.snippet,
            "score": h.score,
            "arms": [str(a) for a in h.arms],
            "is_todo": h.is_todo,
            "todo_completed": h.todo_completed,
        }
        for h in found.hits
    ]
    payload: render.JsonDict = {"query": query, "mode": str(found.mode), "total": found.total, "hits": hits}
    if found.coverage is not None:  # results by meaning come from an index that may be partial
        payload["index"] = found.coverage.as_json()
    reading = found.reading
    if reading.translation is not None:  # also searched in English
        payload["searched_as"] = {"language": reading.translation.language, "text": reading.translation.text}
    if reading.corrections:
        payload["corrected"] = dict(reading.corrections)
    if reading.keyword_only is not None:
        payload["semantic_error"] = reading.keyword_only
    return payload


def _print(ctx: CliContext, args: argparse.Namespace, found: Results) -> None:
    for h in found.hits:
        where = f"  {h.section.label()}" if h.section is not None else ""
        notebook = f"  · {h.notebook}" if h.notebook else ""
        ctx.line(f"{h.note_id[:8]}  {h.title}{notebook}  · {local_time(h.updated_time)}{where}")
        snippet = readable(h.snippet, h.section.heading if h.section else None)
        if snippet:
            ctx.line(f"          {snippet}")
        if len(h.sections) > 1:
            ctx.out(f"          also {', '.join(x.label() for x in h.sections[1:])}")
    shown = args.offset + len(found.hits)
    if found.mode is Mode.KEYWORD and found.total > shown and found.hits:
        ctx.out(f"({shown} of {found.total}; --limit or --offset for more)")
