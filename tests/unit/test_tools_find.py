"""find_notes: the hybrid search, for the assistant and MCP clients."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.tools_env import Env, make_env

from noted.store.sqlite import SqliteStore


@pytest.fixture
def env(store: SqliteStore, tmp_path: Path) -> Env:
    return make_env(store, tmp_path)


async def test_find_notes_ranks_by_words_and_meaning_and_names_the_section(env: Env) -> None:
    garden = env.folder("Garden")
    kitchen = env.folder("Kitchen")
    roses = env.note(garden, "Roses", "# Pruning\nprune the roses in early spring before buds")
    bread = env.note(kitchen, "Bread", "# Dough\nknead the dough and let it rise overnight")
    env.index()
    got = await env.ok("find_notes", query="prune roses spring", relevance="loose")
    best = got["results"][0]
    assert best["id"] == roses and best["notebook"] == "Garden"
    assert set(best["found_by"]) == {"keyword", "semantic"}
    assert best["section"] == "1" and best["section_heading"] == "Pruning" and "prune" in best["snippet"]
    assert got["index"] == {"notes_indexed": 2, "notes_total": 2, "complete": True, "notes_changed": 0}
    assert "score" not in best  # BM25 weighs words by the whole index: no trace of other notes
    # Filters restrict, as in search_notes; words need not all match.
    only = await env.ok("find_notes", query="notebook:Kitchen dough pastry", relevance="loose")
    assert [r["id"] for r in only["results"]] == [bread]
    assert len((await env.ok("find_notes", query="the", limit=1, relevance="loose"))["results"]) <= 1


async def test_find_notes_corrects_misspellings_and_searches_other_languages_in_english(env: Env) -> None:
    folder = env.folder("Ops")
    backup = env.note(folder, "Backups", "restore the database from last night's backup")
    env.note(folder, "Backup notes", "backup of the database runs nightly")
    env.note(folder, "Lunch", "soup and bread")
    env.index()
    spanish = await env.ok("find_notes", query="restaurar una copia de seguridad", relevance="loose")
    assert spanish["searched_as"] == "restore backup"
    assert spanish["results"][0]["id"] == backup
    typo = await env.ok("find_notes", query="restroe databse", relevance="loose")
    assert backup in [r["id"] for r in typo["results"]]  # no note holds either word as typed
    assert "searched_as" not in typo


async def test_find_notes_without_an_index_is_keyword_search_and_says_why(env: Env) -> None:
    folder = env.folder("Main")
    note = env.note(folder, "Rebase", "rebase your branch interactively")
    got = await env.ok("find_notes", query="rebase branch")  # no semantic search here at all
    assert [r["id"] for r in got["results"]] == [note] and got["results"][0]["found_by"] == ["keyword"]
    assert "unavailable" in got["semantic_error"] and "index" not in got
    from noted.search.semantic import SemanticSearch

    search = SemanticSearch(env.store, env.store.db, env.embedder)  # the index never built
    env.ctx.semantic = lambda: search
    built = await env.ok("find_notes", query="rebase branch")
    assert [r["id"] for r in built["results"]] == [note] and "not been built" in built["semantic_error"]


async def test_find_notes_refuses_a_bad_query_with_a_clear_message(env: Env) -> None:
    bad = await env.error("find_notes", query="tags:red roses", relevance="loose")
    assert bad.message and 'unknown filter "tags:"; did you mean tag:?' in bad.message
    assert (await env.error("find_notes", query="x", relevance="fuzzy")).field == "relevance"
    assert (await env.error("find_notes", query="x", limit=51)).field == "limit"


@pytest.mark.parametrize("tool", ["find_notes", "semantic_search_notes"])
async def test_each_search_tool_offers_up_to_three_sections_best_first(env: Env, tool: str) -> None:
    folder = env.folder("Zoo")
    body = (
        "intro about the farm\n# Birds\nthe puffin nests on cliffs\n# Fish\ncod and haddock\n"
        "# Puffins again\npuffin chicks leave the cliffs\n# Mammals\nseals on the rocks\n# Trees\nbirch\n"
    )
    note = env.note(folder, "Zoo", body)
    env.index()
    best = (await env.ok(tool, query="puffin nests cliffs", relevance="loose"))["results"][0]
    assert best["id"] == note and len(best["sections"]) == 3
    assert [s["section_heading"] for s in best["sections"][:2]] == ["Birds", "Puffins again"]
    assert (best["section"], best["section_heading"]) == ("1", "Birds")  # the first, for read_note


async def test_the_search_by_meaning_tool_searches_another_language_in_english_too(env: Env) -> None:
    # The same reading as the app's and the CLI's: semantic_search_notes did not translate before.
    folder = env.folder("Ops")
    backup = env.note(folder, "Backups", "restore the database from last night's backup")
    env.note(folder, "Lunch", "soup and bread")
    env.index()
    got = await env.ok("semantic_search_notes", query="restaurar una copia de seguridad", relevance="loose")
    assert got["searched_as"] == "restore backup" and got["results"][0]["id"] == backup
    assert "read as Spanish" in got["read_as"]
