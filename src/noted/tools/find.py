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

from noted.errors import UnavailableError
from noted.search.hybrid import DeferredSemantic, HybridSearch
from noted.search.semantic import SemanticSearch
from noted.settings.handles import SEARCH_RELEVANCE
from noted.tools import schema as s
from noted.tools.base import READ, Payload, Tool, ToolContext
from noted.tools.payloads import iso, view
from noted.tools.search import INDEX_COVERAGE, RELEVANCE, scope_note_ids

FIND_MAX = 50
FIND_DEFAULT = 10


def _unavailable() -> SemanticSearch:
    raise UnavailableError("semantic search is unavailable here (no index)")


def _find_notes(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    note_ids = scope_note_ids(ctx, scope, args)
    relevance = str(args.get("relevance") or ctx.settings.get(SEARCH_RELEVANCE))
    semantic = DeferredSemantic(ctx.semantic or _unavailable)
    found = HybridSearch(ctx.keyword, semantic).search(
        args["query"], limit=int(args.get("limit", FIND_DEFAULT)), note_ids=note_ids, relevance=relevance
    )
    titles = {f.id: f.title for f in ctx.store.list_folders(include_trashed=True)}
    results: list[Payload] = []
    for hit in found.hits:
        if not scope.allows_folder(hit.notebook_id):
            continue  # cannot happen with note_ids given; kept so a regression cannot leak
        item: Payload = {
            "id": hit.note_id,
            "title": hit.title,
            "notebook_id": hit.notebook_id,
            "notebook": titles.get(hit.notebook_id, ""),
            "updated_time": iso(hit.updated_time),
            "found_by": [str(a) for a in hit.arms],
            "snippet": hit.snippet,
        }
        if hit.section is not None:
            item["section"] = hit.section
            item["section_heading"] = hit.section_heading or ""
        results.append(item)
    out: Payload = {"results": results}
    if found.searched_as is not None:
        out["searched_as"] = found.searched_as.text
    if found.semantic_error is not None:
        out["semantic_error"] = found.semantic_error
    elif ctx.semantic is not None:
        out["index"] = dict(ctx.semantic().coverage(note_ids).as_json())
    return out


FIND_NOTES = Tool(
    name="find_notes",
    title="Find notes by words and meaning",
    description=(
        "The best general search: finds notes by their words and by what they are about at once, "
        "best first, one result per note. Words need not all match; misspelt words are corrected; "
        "a query in Spanish, German or French is searched in English (searched_as says how). "
        "Filters as in search_notes restrict every result (notebook:NAME, tag:NAME, type:todo, "
        "updated:month-1, -word...). Each result has the note id, title, notebook, found_by "
        "(keyword, semantic or both), a snippet or the passage that matched, and its section path "
        "and heading: pass the path to read_note(section=...). relevance: strict, normal or loose "
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
            "results": s.array(
                s.obj(
                    {
                        **s.NOTE_REF,
                        "found_by": s.array(s.string(enum=["keyword", "semantic"])),
                        "snippet": s.string("The passage that matched, or text around the first word found."),
                        "section": s.string("Path of the section holding the match."),
                        "section_heading": s.string(),
                    },
                    (*s.NOTE_REF, "found_by", "snippet"),
                )
            ),
            "searched_as": s.string("The English searched for a query in another language."),
            "semantic_error": s.string("Why only keyword search ran, when it did."),
            "index": INDEX_COVERAGE,
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
