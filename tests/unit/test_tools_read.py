"""The read tools through the registry, on a real store: every parameter and every error it documents."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.tools_env import Env, make_env

from noted.models import NotePatch
from noted.ops.notes import restore_revision
from noted.store.sqlite import SqliteStore
from noted.tools.notes import share_budget
from noted.tools.payloads import iso, parse_time

LONG_BODY = "# Intro\n" + "intro words " * 100 + "\n## Details\n" + "detail " * 2000 + "\n# End\nbye\n"


@pytest.fixture
def env(store: SqliteStore, tmp_path: Path) -> Env:
    return make_env(store, tmp_path)


# read_note --------------------------------------------------------------------------------------


async def test_read_note_returns_metadata_and_a_short_body_whole(env: Env) -> None:
    folder = env.folder("Home")
    note = env.note(folder, "Groceries", "- eggs\n- milk", is_todo=True, tags=("shopping", "weekly"))
    got = await env.ok("read_note", id=note)
    stored = env.store.get_note(note)
    assert got["body"] == "- eggs\n- milk" and got["title"] == "Groceries"
    assert (got["notebook_id"], got["notebook"]) == (folder, "Home")
    assert got["tags"] == ["shopping", "weekly"]
    assert got["is_todo"] is True and got["todo_completed"] is False and got["todo_due"] is None
    assert got["updated_time"] == iso(stored.updated_time)
    assert parse_time(got["updated_time"], "t") == stored.updated_time  # exact to the millisecond
    assert (got["body_length"], got["body_offset"], got["body_returned_chars"], got["has_more"]) == (
        13,
        0,
        13,
        False,
    )
    assert "truncated" not in got and got["in_trash"] is False


@pytest.mark.parametrize("ms", [-62_135_424_000_000, -61_783_066_440_000, -1, 0, 253_402_214_399_999])
def test_a_time_the_tools_give_reads_back_exactly_the_year_in_four_digits(ms: int) -> None:
    """``strftime("%Y")`` wrote the year 12 as ``12`` on Linux, which ``parse_time`` refused."""
    assert iso(ms)[:5].rstrip("-").isdigit() and len(iso(ms)) == 24
    assert parse_time(iso(ms), "t") == ms


async def test_read_note_caps_the_body_at_8000_and_says_how_to_read_on(env: Env) -> None:
    note = env.note(env.folder("F"), "Long", LONG_BODY)
    first = await env.ok("read_note", id=note)
    assert first["body"] == LONG_BODY[:8000]
    assert first["body_length"] == len(LONG_BODY) and first["body_returned_chars"] == 8000
    assert first["has_more"] is True
    message = first["truncated"]
    assert (
        "offset=8000" in message
        and "outline" in message
        and "section" in message
        and "max_chars=0" in message
    )
    rest = await env.ok("read_note", id=note, offset=8000, max_chars=0)
    assert rest["body"] == LONG_BODY[8000:] and rest["has_more"] is False and rest["body_offset"] == 8000
    small = await env.ok("read_note", id=note, offset=10, max_chars=5)
    assert small["body"] == LONG_BODY[10:15] and small["has_more"] is True
    whole = await env.ok("read_note", id=note, max_chars=0)
    assert whole["body"] == LONG_BODY and whole["has_more"] is False


async def test_read_note_offset_past_the_end_is_an_error(env: Env) -> None:
    note = env.note(env.folder("F"), "Short", "abc")
    assert (await env.ok("read_note", id=note, offset=3))["body"] == ""
    result = await env.error("read_note", id=note, offset=4)
    assert result.field == "offset" and "past the end" in (result.message or "")


async def test_read_note_outline_lists_headings_with_section_0_for_leading_text(env: Env) -> None:
    body = "preface\n# One\ntext\n## One A\nmore\n# Two\nlast\n"
    note = env.note(env.folder("F"), "Doc", body)
    got = await env.ok("read_note", id=note, outline=True)
    lines = got["outline"].split("\n")
    assert [line.split("\t")[0] for line in lines] == ["0", "1", "1.1", "2"]
    assert lines[0] == "0\t8\t(top)" and lines[1].endswith("\tOne") and lines[2] == "1.1\t14\tOne A"
    assert "body" not in got and got["body_length"] == len(body)


async def test_read_note_section_by_path_or_heading_includes_subsections(env: Env) -> None:
    body = "# One\ntext\n## One A\nmore\n# Two\nlast\n"
    note = env.note(env.folder("F"), "Doc", body)
    by_path = await env.ok("read_note", id=note, section="1")
    assert by_path["body"] == "# One\ntext\n## One A\nmore\n"
    assert by_path["section"] == {"path": "1", "heading": "One"}
    by_heading = await env.ok("read_note", id=note, section="One A")
    assert by_heading["body"] == "## One A\nmore\n" and by_heading["section"]["path"] == "1.1"
    paged = await env.ok("read_note", id=note, section="1", max_chars=5)
    assert paged["body"] == "# One" and paged["has_more"] is True and 'section="1"' in paged["truncated"]


async def test_read_note_section_errors_list_candidates(env: Env) -> None:
    body = "# Notes\na\n# Work\n## Notes\nb\n"
    note = env.note(env.folder("F"), "Doc", body)
    several = await env.error("read_note", id=note, section="Notes")
    assert several.field == "section"
    assert "matches 2 sections" in (several.message or "")
    assert '1 "Notes"' in (several.message or "") and '2.1 "Notes"' in (several.message or "")
    missing = await env.error("read_note", id=note, section="Budget")
    assert 'no section "Budget"' in (missing.message or "") and '2 "Work"' in (missing.message or "")


async def test_read_note_outline_and_section_are_mutually_exclusive(env: Env) -> None:
    note = env.note(env.folder("F"), "Doc", "# A\nx\n")
    result = await env.error("read_note", id=note, outline=True, section="1")
    assert result.field == "section" and "cannot be used together" in (result.message or "")


async def test_read_note_of_an_unknown_id_is_not_found(env: Env) -> None:
    result = await env.error("read_note", id="f" * 32)
    assert result.message == f'no note with id "{"f" * 32}"' and result.field == "id"


async def test_read_note_shows_a_trashed_note_as_in_the_trash(env: Env) -> None:
    note = env.note(env.folder("F"), "Old", "x")
    env.store.trash_note(note, actor="user")
    assert (await env.ok("read_note", id=note))["in_trash"] is True


# read_notes -------------------------------------------------------------------------------------


def test_share_budget_lets_short_texts_take_what_they_need() -> None:
    assert share_budget([100, 50_000, 20_000], 8000) == [100, 3950, 3950]
    assert share_budget([10, 20], 8000) == [10, 20]
    assert sum(share_budget([9000] * 3, 8000)) == 8000
    assert share_budget([], 8000) == []


async def test_read_notes_shares_one_budget_and_lists_unknown_ids(env: Env) -> None:
    folder = env.folder("F")
    short = env.note(folder, "Short", "tiny body")
    long_a = env.note(folder, "A", "a" * 20_000)
    long_b = env.note(folder, "B", "b" * 20_000)
    unknown = "0" * 32
    got = await env.ok("read_notes", ids=[long_a, unknown, short, long_b, short])
    assert [n["id"] for n in got["notes"]] == [long_a, short, long_b]  # order kept, duplicates dropped
    assert got["not_found"] == [unknown]
    by_id = {n["id"]: n for n in got["notes"]}
    assert by_id[short]["body"] == "tiny body" and by_id[short]["has_more"] is False
    assert by_id[long_a]["body_returned_chars"] + by_id[long_b]["body_returned_chars"] == 8000 - len(
        "tiny body"
    )
    assert by_id[long_a]["has_more"] is True and f'id="{long_a}"' in by_id[long_a]["truncated"]
    assert by_id[long_a]["tags"] == [] and by_id[long_a]["notebook"] == "F"


async def test_read_notes_with_more_than_20_ids_is_an_error(env: Env) -> None:
    result = await env.error("read_notes", ids=[f"{i:032x}" for i in range(21)])
    assert result.field == "ids" and "at most 20" in (result.message or "")


# note_history -----------------------------------------------------------------------------------


async def test_note_history_lists_revisions_with_actor_and_time(env: Env) -> None:
    note = env.note(env.folder("F"), "Plan", "v1")
    env.store.update_note(note, NotePatch(body="v2"), actor="mcp:zed")
    got = await env.ok("note_history", id=note)
    assert got["total"] == 2 and got["title"] == "Plan"
    assert [r["actor"] for r in got["revisions"]] == ["mcp:zed", "user"]
    revisions = env.store.note_history(note)
    assert [r["time"] for r in got["revisions"]] == [iso(r.time) for r in revisions]
    assert got["revisions"][0]["body_length"] == 2
    assert len((await env.ok("note_history", id=note, limit=1))["revisions"]) == 1
    assert (await env.error("note_history", id="0" * 32)).field == "id"
    first = revisions[-1].id
    restore_revision(env.store, note, first, actor="user")  # a save by user that the label tells apart
    got = await env.ok("note_history", id=note)
    assert got["revisions"][0]["label"] == f"restored from rev {first}" and "label" not in got["revisions"][1]


# list_notebooks, list_tags, list_notebook_notes ---------------------------------------------------


async def test_list_notebooks_is_flat_with_parent_and_direct_note_count(env: Env) -> None:
    work = env.folder("Work")
    sub = env.folder("Projects", work)
    env.note(work, "a")
    env.note(sub, "b")
    env.note(sub, "c")
    trashed = env.folder("Old")
    env.store.trash_folder(trashed, actor="user")
    got = await env.ok("list_notebooks")
    rows = {n["title"]: n for n in got["notebooks"]}
    assert set(rows) == {"Work", "Projects"}
    assert rows["Projects"] == {
        "id": sub,
        "title": "Projects",
        "parent_id": work,
        "note_count": 2,
        "in_trash": False,
    }
    assert rows["Work"]["parent_id"] == "" and rows["Work"]["note_count"] == 1


async def test_list_tags_lists_tags_with_notes_and_their_counts(env: Env) -> None:
    folder = env.folder("F")
    env.note(folder, "a", tags=("red", "blue"))
    env.note(folder, "b", tags=("red",))
    gone = env.note(folder, "c", tags=("green",))
    env.store.trash_note(gone, actor="user")
    env.store.create_tag("unused", actor="user")
    got = await env.ok("list_tags")
    assert [(t["title"], t["note_count"]) for t in got["tags"]] == [("blue", 1), ("red", 2)]


async def test_list_notebook_notes_pages_newest_first_with_total(env: Env) -> None:
    folder = env.folder("F")
    ids = [env.note(folder, f"n{i}", "x" * i) for i in range(5)]
    for i, note in enumerate(ids):  # distinct user times, oldest first
        env.store.update_note(note, NotePatch(user_updated_time=1_000_000 + i), actor="user")
    env.note(env.folder("Sub", folder), "elsewhere")
    page1 = await env.ok("list_notebook_notes", notebook_id=folder, limit=2)
    assert [n["id"] for n in page1["notes"]] == [ids[4], ids[3]]
    assert page1["total"] == 5 and page1["has_more"] is True and page1["next_offset"] == 2
    assert page1["notes"][0]["body_length"] == 4 and page1["notebook"] == "F"
    last = await env.ok("list_notebook_notes", notebook_id=folder, limit=2, offset=4)
    assert [n["id"] for n in last["notes"]] == [ids[0]] and last["has_more"] is False
    assert len((await env.ok("list_notebook_notes", notebook_id=folder))["notes"]) == 5  # default limit 50
    assert (await env.error("list_notebook_notes", notebook_id="0" * 32)).field == "notebook_id"


# search_notes -----------------------------------------------------------------------------------


async def test_search_notes_returns_hits_with_snippet_and_section(env: Env) -> None:
    folder = env.folder("Work")
    note = env.note(folder, "Plan", "# Budget\n## Travel\nthe flights to Lisbon cost a lot\n")
    env.note(folder, "Other", "nothing relevant")
    got = await env.ok("search_notes", query="lisbon")
    assert got["total"] == 1 and got["has_more"] is False and "next_offset" not in got
    hit = got["results"][0]
    assert (hit["id"], hit["title"], hit["notebook"], hit["notebook_id"]) == (note, "Plan", "Work", folder)
    assert "Lisbon" in hit["snippet"] and hit["section"] == "1.1" and hit["section_heading"] == "Travel"
    assert hit["updated_time"].endswith("Z")


async def test_search_notes_total_counts_before_the_limit_and_default_is_20(env: Env) -> None:
    folder = env.folder("F")
    for i in range(25):
        env.note(folder, f"n{i}", "apple pie")
    default = await env.ok("search_notes", query="apple")
    assert default["total"] == 25 and len(default["results"]) == 20 and default["next_offset"] == 20
    limited = await env.ok("search_notes", query="apple", limit=3, offset=22)
    assert limited["total"] == 25 and len(limited["results"]) == 3 and limited["has_more"] is False


async def test_search_notes_omits_section_for_filter_only_queries(env: Env) -> None:
    folder = env.folder("Home")
    env.note(folder, "Chores", "# Kitchen\nclean the oven", is_todo=True)
    got = await env.ok("search_notes", query="type:todo")
    assert got["total"] == 1
    assert "section" not in got["results"][0] and "section_heading" not in got["results"][0]
    assert got["results"][0]["is_todo"] is True


async def test_search_notes_bad_query_is_an_error_the_model_can_fix(env: Env) -> None:
    result = await env.error("search_notes", query="tags:red")
    assert 'unknown filter "tags:"; did you mean tag:?' in (result.message or "")


# semantic_search_notes ----------------------------------------------------------------------------


async def test_semantic_search_without_an_index_is_a_clear_error(env: Env) -> None:
    result = await env.error("semantic_search_notes", query="anything")
    assert "unavailable" in (result.message or "") and "search_notes" in (result.message or "")
    from noted.search.semantic import SemanticSearch

    search = SemanticSearch(env.store, env.store.db, env.embedder)  # index never built
    env.ctx.semantic = lambda: search
    built = await env.error("semantic_search_notes", query="anything")
    assert "not been built" in (built.message or "") and "search_notes" in (built.message or "")


async def test_semantic_search_returns_notes_with_best_passage_section_and_score(env: Env) -> None:
    garden = env.folder("Garden")
    kitchen = env.folder("Kitchen")
    roses = env.note(garden, "Roses", "# Pruning\nprune the roses in early spring before buds")
    env.note(kitchen, "Bread", "# Dough\nknead the dough and let it rise overnight")
    env.index()
    got = await env.ok("semantic_search_notes", query="prune roses spring", relevance="loose")
    assert got["relevance"] == "loose"
    best = got["results"][0]
    assert best["id"] == roses and best["notebook"] == "Garden" and best["section"] == "1"
    assert best["section_heading"] == "Pruning" and "prune the roses" in best["text"]
    assert 0 < best["score"] <= 1
    assert (await env.ok("semantic_search_notes", query="prune roses"))[
        "relevance"
    ] == "normal"  # the setting


async def test_semantic_search_says_how_much_of_the_callers_notes_the_index_covers(env: Env) -> None:
    garden = env.folder("Garden")
    roses = env.note(garden, "Roses", "prune the roses in early spring")
    env.index()
    got = await env.ok("semantic_search_notes", query="prune roses", relevance="loose")
    assert got["index"] == {"notes_indexed": 1, "notes_total": 1, "complete": True, "notes_changed": 0}
    env.note(garden, "Tulips", "plant tulip bulbs in autumn")  # not indexed yet
    got = await env.ok("semantic_search_notes", query="prune roses", relevance="loose")
    assert got["index"] == {"notes_indexed": 1, "notes_total": 2, "complete": False, "notes_changed": 0}
    # An indexed note edited since counts as changed, as the app's and the CLI's line say.
    env.store.update_note(roses, NotePatch(body="prune the roses in late winter"), actor="user")
    got = await env.ok("semantic_search_notes", query="prune roses", relevance="loose")
    assert got["index"] == {"notes_indexed": 1, "notes_total": 2, "complete": False, "notes_changed": 1}
    # Scoped to a notebook, the counts are of that notebook's notes only.
    kitchen = env.folder("Kitchen")
    got = await env.ok("semantic_search_notes", query="prune roses", notebook_id=kitchen)
    assert got["index"]["notes_total"] == 0 and got["index"]["notes_changed"] == 0


async def test_semantic_search_limits_to_a_notebook_with_subnotebooks_or_a_tag(env: Env) -> None:
    garden = env.folder("Garden")
    beds = env.folder("Beds", garden)
    kitchen = env.folder("Kitchen")
    in_sub = env.note(beds, "Tomatoes", "tomato plants need sun and water")
    in_kitchen = env.note(kitchen, "Sauce", "tomato sauce with plants of basil, sun dried", tags=("cooking",))
    env.index()
    query = {"query": "tomato plants sun", "relevance": "loose"}
    by_folder = await env.ok("semantic_search_notes", notebook_id=garden, **query)
    assert [r["id"] for r in by_folder["results"]] == [in_sub]
    tag = env.store.find_tag("cooking")
    assert tag is not None
    by_tag = await env.ok("semantic_search_notes", tag_id=tag.id, **query)
    assert [r["id"] for r in by_tag["results"]] == [in_kitchen]
    both = await env.error("semantic_search_notes", notebook_id=garden, tag_id=tag.id, **query)
    assert both.field == "tag_id" and "not both" in (both.message or "")
    assert (await env.error("semantic_search_notes", tag_id="0" * 32, **query)).field == "tag_id"
    assert (await env.error("semantic_search_notes", notebook_id="0" * 32, **query)).field == "notebook_id"
    assert len((await env.ok("semantic_search_notes", limit=1, **query))["results"]) == 1


async def test_semantic_relevance_strict_drops_a_weak_match_that_loose_keeps(env: Env) -> None:
    folder = env.folder("F")
    weak = env.note(
        folder, "Misc", "rivers mountains valleys forests deserts oceans lakes hills islands roses"
    )
    env.index()
    loose = await env.ok("semantic_search_notes", query="roses", relevance="loose")
    assert [r["id"] for r in loose["results"]] == [weak]
    assert loose["results"][0]["score"] < 0.45  # below the strict floor, so the next line can fail
    strict = await env.ok("semantic_search_notes", query="roses", relevance="strict")
    assert strict["results"] == []
