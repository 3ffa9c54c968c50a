"""``find_notes``: notes found by their words and their meaning at once (hybrid search).

The search a person gets in noted's search screen and ``noted search --mode hybrid``, for the
assistant and MCP clients too: the keyword grammar's filters restrict, the words rank in both
arms, misspellings are corrected and a query in Spanish, German or French is searched in English
(``noted.search.hybrid``). On the evaluation's held-out queries it ranks best of the three
(``tests/bench/README.md``: nDCG@10 0.80 against 0.61 by meaning alone and 0.30 for keywords that
must all match). The caller's scope is applied inside the search, as the two other search tools
do; no score is returned, since the keyword arm's BM25 weights words by the whole index.
When the semantic index cannot be used, the result is the keyword search and says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noted.search.results import Mode
from noted.tools import schema as s
from noted.tools.base import READ, Payload, Tool, ToolContext
from noted.tools.payloads import view
from noted.tools.search import (
    HIT_FIELDS,
    HIT_REQUIRED,
    INDEX_COVERAGE,
    READING_FIELDS,
    RELEVANCE,
    hit_payloads,
    reading_payload,
    scope_note_ids,
)

FIND_MAX = 50
FIND_DEFAULT = 10


def _find_notes(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    found = ctx.finder.search(
        args["query"],
        mode=Mode.HYBRID,
        relevance=args.get("relevance"),
        limit=int(args.get("limit", FIND_DEFAULT)),
        note_ids=scope_note_ids(ctx, scope, args),
        folder_ids=scope.folder_ids,
    )
    return {"results": hit_payloads(found, scope), **reading_payload(found)}


FIND_NOTES = Tool(
    name="find_notes",
    title="Find notes by words and meaning",
    description=(
        "The best general search: finds notes by their words and by what they are about at once, "
        "best first, one result per note. Words need not all match; misspelt words are corrected; "
        "a query in Spanish, German or French is also searched in English (searched_as says how). "
        "Filters as in search_notes restrict every result (notebook:NAME, tag:NAME, type:todo, "
        "updated:month-1, -word...). Each result has the note id, title, notebook, found_by "
        "(keyword, semantic or both), a snippet or the passage that matched, and its section path "
        "and heading, with up to three sections best first: pass a path to read_note(section=...). relevance: strict, normal or loose "
        "(how close in meaning). When the index is not built, semantic_error says so and the "
        "results are keyword search's; index.complete false means indexing is under way."
    ),
    input_schema=s.obj(
        {
            "query": s.string(
                "A question or words, with filters if wanted.", minLength=1, maxLength=s.MAX_QUERY
            ),
            "relevance": RELEVANCE,
            "limit": s.integer(
                f"The most notes to return (default {FIND_DEFAULT}).", minimum=1, maximum=FIND_MAX
            ),
        },
        ("query",),
    ),
    output_schema=s.obj(
        {
            "results": s.array(s.obj(HIT_FIELDS, HIT_REQUIRED)),
            "semantic_error": s.string("Why only keyword search ran, when it did."),
            "index": INDEX_COVERAGE,
            **READING_FIELDS,
        },
        ("results",),
    ),
    annotations=READ,
    handler=_find_notes,
    examples=(
        {"query": "how do I undo my last commit"},
        {"query": "tag:work budget for next year", "relevance": "strict"},
        {"query": "copia de seguridad de la base de datos", "limit": 5},
    ),
)

TOOLS = (FIND_NOTES,)
