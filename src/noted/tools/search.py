"""The search tools: ``search_notes`` (keyword grammar) and ``semantic_search_notes`` (by meaning).

Both honour the caller's scope *inside* the search, before ranking and counting: keyword search
gets the visible notebooks as ``folder_ids`` and semantic search the visible notes' ids, so the
best match of a scoped search is the best match among visible notes, and ``total`` counts only
those. Keyword scores are not returned: BM25 weights words by how rare they are in the whole
index, so a score would carry a trace of notes the caller cannot see.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noted.errors import UnavailableError
from noted.models import descendants
from noted.search.results import Hit, Mode, Results
from noted.search.semantic import Relevance
from noted.tools import schema as s
from noted.tools.base import READ, Payload, Tool, ToolContext, ToolError
from noted.tools.payloads import iso, offset_page, scoped_notes, view, visible_folder
from noted.tools.scope import ScopeView
from noted.tools.tags import visible_tag

SEARCH_MAX = 100
SEARCH_DEFAULT = 20
SEMANTIC_MAX = 50
SEMANTIC_DEFAULT = 10
CHUNK_TEXT_MAX = 2_000

# search_notes -------------------------------------------------------------------------------------


HIT_FIELDS: dict[str, Payload] = {
    **s.NOTE_REF,
    "is_todo": s.boolean(),
    "todo_completed": s.boolean(),
    "found_by": s.array(s.string(enum=["keyword", "semantic"]), "The searches that found the note."),
    "snippet": s.string("The passage that matched best by meaning, or text around the first word found."),
    "sections": s.array(
        s.obj({"section": s.string(), "section_heading": s.string()}, ("section", "section_heading")),
        "Up to three sections, best first: pass a path to read_note(section=...).",
    ),
    "section": s.string("Path (like 1.2) of the best section, the first of sections."),
    "section_heading": s.string(),
}
"""A hit's fields in every search tool's results."""
HIT_REQUIRED = (*s.NOTE_REF, "is_todo", "todo_completed", "found_by", "snippet", "sections")
READING_FIELDS: dict[str, Payload] = {
    "searched_as": s.string("The English also searched for a query taken for Spanish, German or French."),
    "corrected": {
        "type": "object",
        "additionalProperties": s.string(),
        "description": "Misspelt words, and the word the notes hold searched beside each.",
    },
    "read_as": s.string("One line on how the query was read."),
}
"""How the query was read, in the results of a search by meaning or both."""


def hit_payload(hit: Hit) -> Payload:
    """One hit as every search tool gives it (no keyword score: BM25 weighs words by the whole
    index, so it would carry a trace of notes the caller cannot see)."""
    item: Payload = {
        "id": hit.note_id,
        "title": hit.title,
        "notebook_id": hit.notebook_id,
        "notebook": hit.notebook,
        "updated_time": iso(hit.updated_time),
        "is_todo": hit.is_todo,
        "todo_completed": bool(hit.todo_completed),
        "found_by": [str(a) for a in hit.arms],
        "snippet": hit.snippet,
        "sections": [{"section": x.path, "section_heading": x.heading} for x in hit.sections],
    }
    if hit.section is not None:
        item["section"] = hit.section.path
        item["section_heading"] = hit.section.heading
    return item


def hit_payloads(results: Results, scope: ScopeView) -> list[Payload]:
    """The hits the caller may see, as payloads. The scope was applied inside the search, so this
    drops nothing; it is kept so that a regression there cannot leak a note."""
    return [hit_payload(h) for h in results.hits if scope.allows_folder(h.notebook_id)]


def reading_payload(results: Results) -> Payload:
    """How the query was read, as the tools report it beside the results."""
    out: Payload = {}
    reading = results.reading
    if reading.translation is not None:
        out["searched_as"] = reading.translation.text
    if reading.corrections:
        out["corrected"] = dict(reading.corrections)
    if reading.keyword_only is not None:
        out["semantic_error"] = reading.keyword_only
    elif results.coverage is not None:
        out["index"] = dict(results.coverage.as_json())
    if line := reading.line():
        out["read_as"] = line
    return out


def _search_notes(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    offset = int(args.get("offset", 0))
    scope = view(ctx)
    found = ctx.finder.search(
        args["query"],
        mode=Mode.KEYWORD,
        limit=int(args.get("limit", SEARCH_DEFAULT)),
        offset=offset,
        folder_ids=scope.folder_ids,
    )
    return offset_page(offset, found.total, "results", hit_payloads(found, scope))


SEARCH_NOTES = Tool(
    name="search_notes",
    title="Search notes by keyword",
    description=(
        "Find notes by words and filters; best matches first (newest first for filters alone). "
        'Words match as prefixes (cat finds catalog); "exact phrase"; -word excludes; filters: '
        "notebook:NAME (sub-notebooks included), tag:NAME, title:WORD, body:WORD, type:todo|note, "
        "iscompleted:0|1, created:/updated:/due: with 20240131, day-7, week-1, month-2 or year-1 "
        "(-updated:X means before X), any:1 to match any term instead of all; quote values with "
        'spaces (notebook:"Work stuff") and use * as a wildcard (tag:proj*). Each result has the note '
        "id, title, notebook, updated_time, a ~240-character snippet around the first match and, "
        "when the match is in the body, the section (path like 1.2) and section_heading holding it "
        "(also as sections): pass that path to read_note(section=...) to read just that part. "
        "total counts every match; "
        "page with offset (next_offset) when has_more is true."
    ),
    input_schema=s.obj(
        {
            "query": s.string("Words, phrases and filters.", minLength=1, maxLength=s.MAX_QUERY),
            "limit": s.integer(
                f"The most results to return (default {SEARCH_DEFAULT}).",
                minimum=1,
                maximum=SEARCH_MAX,
                default=SEARCH_DEFAULT,
            ),
            "offset": s.integer("Results to skip, for the next page.", minimum=0, maximum=100_000, default=0),
        },
        ("query",),
    ),
    output_schema=s.obj(
        {
            **s.OFFSET_PAGE,
            "results": s.array(s.obj(HIT_FIELDS, HIT_REQUIRED)),
        },
        (*s.OFFSET_PAGE_REQUIRED, "results"),
    ),
    annotations=READ,
    handler=_search_notes,
    examples=(
        {"query": "budget meeting"},
        {"query": 'tag:work "quarterly report" updated:month-1', "limit": 10},
        {"query": "type:todo iscompleted:0 notebook:Home", "limit": 50, "offset": 50},
    ),
)


# semantic_search_notes ------------------------------------------------------------------------------

RELEVANCE = s.string(
    "How close in meaning a passage must be; the person's search setting when omitted.",
    enum=[r.value for r in Relevance],
)
INDEX_COVERAGE = s.obj(
    {
        "notes_indexed": s.integer("Notes (of those searched) with vectors."),
        "notes_total": s.integer("Notes searched."),
        "complete": s.boolean("False while indexing is under way: results may be missing."),
        "notes_changed": s.integer(
            "Indexed notes (of those searched) changed since: they may rank by their older text."
        ),
    },
    ("notes_indexed", "notes_total", "complete", "notes_changed"),
)
"""How much of the notes searched the semantic index covers, in the results of a search by meaning."""


def scope_note_ids(ctx: ToolContext, scope: ScopeView, args: Mapping[str, Any]) -> list[str] | None:
    """The notes a semantic search may return, or None for every note."""
    folder_arg, tag_arg = args.get("notebook_id"), args.get("tag_id")
    if folder_arg is not None and tag_arg is not None:
        raise ToolError('give "notebook_id" or "tag_id", not both', field="tag_id")
    if folder_arg is not None:
        root = visible_folder(ctx, scope, folder_arg)
        live = ctx.store.list_folders()
        folder_ids = descendants(live, root.id)
    elif tag_arg is not None:
        tag = visible_tag(ctx, scope, tag_arg, field="tag_id")
        return [n.id for n in scoped_notes(ctx, scope, tag_id=tag.id)]
    elif scope.unrestricted:
        return None
    else:
        folder_ids = [f.id for f in scope.visible_folders(ctx.store.list_folders())]
    return [n.id for f in folder_ids for n in ctx.store.list_notes(folder_id=f)]


def _semantic_search_notes(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    if ctx.semantic is None:
        raise ToolError("semantic search is unavailable here (no index)", advice="use search_notes instead")
    scope = view(ctx)
    note_ids = scope_note_ids(ctx, scope, args)
    try:
        found = ctx.finder.search(
            args["query"],
            mode=Mode.SEMANTIC,
            relevance=args.get("relevance"),
            limit=int(args.get("limit", SEMANTIC_DEFAULT)),
            note_ids=note_ids,
            folder_ids=scope.folder_ids,
        )
    except UnavailableError as exc:
        raise ToolError(str(exc), advice="search_notes (keyword search) still works") from exc
    scores = {h.note_id: h for h in found.hits}
    results = [
        {**p, "score": scores[p["id"]].score, "text": _capped(scores[p["id"]].passage)}
        for p in hit_payloads(found, scope)
    ]
    return {"relevance": found.reading.relevance, "results": results, **reading_payload(found)}


def _capped(text: str) -> str:
    return text if len(text) <= CHUNK_TEXT_MAX else text[:CHUNK_TEXT_MAX] + "…"


SEMANTIC_SEARCH_NOTES = Tool(
    name="semantic_search_notes",
    title="Search notes by meaning",
    description=(
        'Find notes about something even when they use other words ("notes about saving money" '
        "finds a note on budgeting). One result per note, best first, with the passage (text) that "
        "matched best, its section path and heading (pass the path to read_note(section=...)), up to "
        "three sections best first, and a score from 0 to 1. A query in Spanish, German or French is "
        "also searched in English (searched_as says how). relevance: strict (fewer, surer), normal, loose (more, vaguer). Limit "
        "to one notebook (sub-notebooks included) with notebook_id or to one tag with tag_id. For "
        "exact words, names or filters use search_notes. Fails with a clear message when the index "
        "is not built yet; index.complete false means it covers only index.notes_indexed of "
        "index.notes_total notes so far (results may be missing)."
    ),
    input_schema=s.obj(
        {
            "query": s.string("What to look for, in plain words.", minLength=1, maxLength=s.MAX_QUERY),
            "notebook_id": s.notebook_id("Only notes in this notebook and its sub-notebooks."),
            "tag_id": s.string("Only notes with this tag (an id from list_tags).", minLength=1, maxLength=64),
            "relevance": RELEVANCE,
            "limit": s.integer(
                f"The most notes to return (default {SEMANTIC_DEFAULT}).", minimum=1, maximum=SEMANTIC_MAX
            ),
        },
        ("query",),
    ),
    output_schema=s.obj(
        {
            "relevance": s.string(),
            "results": s.array(
                s.obj(
                    {
                        **HIT_FIELDS,
                        "score": s.number("Cosine similarity of the best passage, 1 = same meaning."),
                        "text": s.string("The best-matching passage."),
                    },
                    (*HIT_REQUIRED, "score", "text"),
                )
            ),
            "index": INDEX_COVERAGE,
            **READING_FIELDS,
        },
        ("relevance", "results", "index"),
    ),
    annotations=READ,
    handler=_semantic_search_notes,
    examples=(
        {"query": "ideas for saving money"},
        {
            "query": "how we deploy the app",
            "relevance": "strict",
            "notebook_id": s.EXAMPLE_ID,
        },
        {"query": "travel plans", "tag_id": "fedcba9876543210fedcba9876543210", "limit": 5},
    ),
)

TOOLS = (SEARCH_NOTES, SEMANTIC_SEARCH_NOTES)
