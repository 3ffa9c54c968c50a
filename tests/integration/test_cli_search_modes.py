"""`noted index` and `noted search --mode` from the command line (with the fake embedding model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.cli import Cli


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "fake")
    return Cli(tmp_path / "profile", capsys)


def test_semantic_and_hybrid_find_a_note_that_keyword_search_misses(cli: Cli) -> None:
    cli.ok("create", "Boats", "--body", "sailing ships harbour wind")
    # Keyword search needs every word; this query has one the note lacks.
    assert cli.json("search", "sailing ships dinosaurs", "--mode", "keyword")["hits"] == []
    status = cli.json("index", "status")
    assert status["built"] is False
    indexed = cli.json("index")
    assert indexed["notes"] >= 1 and indexed["chunks"] >= indexed["notes"]
    semantic = cli.json("search", "sailing ships dinosaurs", "--mode", "semantic")
    assert semantic["hits"][0]["title"] == "Boats"
    hybrid = cli.json("search", "sailing ships dinosaurs", "--mode", "hybrid")
    assert hybrid["mode"] == "hybrid" and hybrid["hits"][0]["title"] == "Boats"
    assert "semantic" in hybrid["hits"][0]["arms"]


def test_hybrid_before_any_index_falls_back_to_keyword_and_says_so(cli: Cli) -> None:
    cli.ok("create", "Boats", "--body", "sailing ships")
    result = cli.ok("search", "sailing", "--mode", "hybrid")
    assert "Boats" in result.out
    assert "keyword results only" in result.err and "not been built" in result.err


def test_semantic_search_before_any_index_says_how_to_build_it(cli: Cli) -> None:
    result = cli("search", "anything", "--mode", "semantic")
    assert result.code == 1
    assert "noted index" in result.err and result.err.count("\n") == 1


def test_index_status_reports_the_lease_and_counts(cli: Cli) -> None:
    cli.ok("create", "Boats", "--body", "sailing ships harbour wind")
    # Issue 39: before (or during) the first scan the status gave no total to measure it against.
    before = cli.json("index", "status")
    total = len(cli.json("notes"))  # the welcome notes and Boats
    assert before["notes"] == 0 and before["notes_total"] == total > 1
    assert f"notes total: {total}" in cli.ok("index", "status").out
    cli.ok("index")
    status = cli.json("index", "status")
    assert status["notes"] == status["notes_total"] == total
    assert status["built"] is True and status["behind_by_changes"] == 0
    assert status["lease_holder"] is None  # given back when `noted index` finished
    assert status["sqlite_vec"] == "loaded"


def test_index_rebuild_with_the_lease_free_indexes_every_note_again(cli: Cli) -> None:
    cli.ok("create", "Boats", "--body", "sailing ships harbour wind")
    first = cli.json("index")
    # Not vacuous: an up-to-date index looks at nothing, so only a real rebuild looks at them all.
    assert cli.json("index")["looked_at"] == 0
    rebuilt = cli.json("index", "--rebuild")
    assert rebuilt["looked_at"] >= first["notes"] > 0
    assert (rebuilt["notes"], rebuilt["chunks"]) == (first["notes"], first["chunks"])
    assert cli.json("index", "status")["lease_holder"] is None  # given back after the rebuild


def test_keyword_search_that_finds_nothing_suggests_a_spelling(cli: Cli) -> None:
    cli.ok("create", "Rebasing", "--body", "rebase the branch")
    cli.ok("create", "Rebase again", "--body", "why rebase")
    result = cli.ok("search", "rebse", "--mode", "keyword")
    assert "Rebas" not in result.out  # nothing matched: the suggestion is a hint, not a result
    assert 'did you mean "rebase"?' in result.err
    assert "did you mean" not in cli.ok("search", "rebase", "--mode", "keyword").err


def test_keyword_search_of_a_question_that_finds_nothing_says_every_word_was_asked_for(cli: Cli) -> None:
    cli.ok("create", "Pancakes", "--body", "Quick breakfast for four.")
    asked = cli.ok("search", "breakfast for four hungry people", "--mode", "keyword")
    assert asked.out == ""
    assert "no note holds every word; any:1 finds notes with any of them" in asked.err
    # any:1 finds it; one word, or words OR'ed, that match nothing just say so.
    assert "Pancakes" in cli.ok("search", "any:1 breakfast hungry people", "--mode", "keyword").out
    for query in ("hungry", "any:1 hungry people"):
        err = cli.ok("search", query, "--mode", "keyword").err
        assert "no notes match" in err and "every word" not in err


def test_search_by_meaning_says_when_the_index_is_partial(cli: Cli) -> None:
    cli.ok("create", "Boats", "--body", "sailing ships harbour wind")
    cli.ok("index")
    full = cli.json("search", "sailing ships", "--mode", "semantic")["index"]
    assert full["complete"] is True
    indexed = full["notes_indexed"]
    cli.ok("create", "Ships", "--body", "sailing ships at sea")  # written after the index was built
    partial = cli.json("search", "sailing ships", "--mode", "semantic")["index"]
    assert partial == {
        "notes_indexed": indexed,
        "notes_total": full["notes_total"] + 1,
        "complete": False,
        "notes_changed": 0,
    }
    assert cli.json("search", "sailing ships", "--mode", "hybrid")["index"]["complete"] is False
    for mode in ("semantic", "hybrid"):
        # Said beside the results, on stderr, where a script reading stdout is not misled by it.
        err = cli.ok("search", "sailing ships", "--mode", mode).err
        assert err.count(f"the index covers {indexed} of {full['notes_total'] + 1} notes") == 1
        # Nothing is indexing (a `noted index` killed midway looks the same): it said "still indexing".
        assert "still indexing" not in err and "(run `noted index` to finish it)" in err
    from noted.indexer.lease import Lease

    lease = Lease(cli.store().db, label="tui")
    assert lease.acquire()
    try:
        assert "(still indexing): results may be missing" in cli.ok("search", "sailing ships").err
    finally:
        lease.release()
    assert "index" not in cli.json("search", "sailing", "--mode", "keyword")  # keyword needs no index
    # Filters alone are listed by keyword in hybrid too: the index does not matter, so no line.
    filters_only = cli("search", "title:Ships", "--mode", "hybrid")
    assert "Ships" in filters_only.out and "the index covers" not in filters_only.err
    cli.ok("index")
    assert "the index covers" not in cli.ok("search", "sailing ships", "--mode", "semantic").err


def test_hybrid_search_in_spanish_says_what_it_searched_in_english(cli: Cli) -> None:
    cli.ok("create", "Restoring", "--body", "restore the database from a backup")
    cli.ok("index")
    found = cli.json("search", "restaurar una copia de seguridad", "--mode", "hybrid")
    assert found["hits"][0]["title"] == "Restoring"
    assert found["searched_as"] == {"language": "es", "text": "restore backup"}
    result = cli.ok("search", "restaurar una copia de seguridad", "--mode", "hybrid")
    assert "Restoring" in result.out
    assert 'read as Spanish: searched as typed and in English as "restore backup"' in result.err
    semantic = cli.json("search", "restaurar una copia de seguridad", "--mode", "semantic")
    assert semantic["hits"][0]["title"] == "Restoring" and semantic["searched_as"]["text"] == "restore backup"
    # Keyword mode searches what was typed (Joplin's grammar, every word): nothing here, and it
    # says what hybrid search would search.
    keyword = cli("search", "restaurar una copia de seguridad", "--mode", "keyword", "--json")
    assert json.loads(keyword.out)["hits"] == []
    assert 'by meaning or both it is also searched in English as "restore backup"' in keyword.err


def test_the_listing_shows_snippets_as_words_and_json_keeps_the_markdown(cli: Cli) -> None:
    body = "# Sailing\n\nRead [the harbour guide](https://example.org/g) and `tide-table` **first**.\n"
    cli.ok("create", "Boats", "--body", body)
    cli.ok("index")
    for mode in ("keyword", "semantic", "hybrid"):
        lines = cli.ok("search", "read the harbour guide first", "--mode", mode).out.splitlines()
        # The note's snippet is the line after its title (the Welcome notebook's notes are there too).
        shown = next(lines[i + 1] for i, line in enumerate(lines) if "  Boats  " in line)
        assert shown.strip() == "Read the harbour guide and tide-table first.", mode
    # A program reading the JSON gets the note's text as written.
    snippet = cli.json("search", "harbour guide", "--mode", "keyword")["hits"][0]["snippet"]
    assert "[the harbour guide](https://example.org/g)" in snippet


def test_json_offers_up_to_three_sections_best_first_and_the_text_lists_the_others(cli: Cli) -> None:
    body = (
        "intro about the farm\n# Birds\nthe puffin nests on cliffs\n# Fish\ncod and haddock\n"
        "# Puffins again\npuffin chicks leave the cliffs\n# Mammals\nseals on the rocks\n"
    )
    cli.ok("create", "Zoo", "--body", body)
    cli.ok("index")
    for mode in ("semantic", "hybrid"):
        hit = next(
            h
            for h in cli.json("search", "puffin nests cliffs", "--mode", mode)["hits"]
            if h["title"] == "Zoo"
        )
        assert len(hit["sections"]) == 3, mode
        assert hit["sections"][0] == {"section": hit["section"], "section_heading": hit["section_heading"]}
        assert [s["section_heading"] for s in hit["sections"][:2]] == ["Birds", "Puffins again"], mode
    out = cli.ok("search", "puffin nests cliffs", "--mode", "hybrid").out
    assert "§ 1 Birds" in out and "also § 3 Puffins again" in out


def test_search_by_meaning_after_an_edit_shows_the_note_as_it_is_now(cli: Cli, tmp_path: Path) -> None:
    cli.ok("create", "Wombat", "--body", "Wombat burrow notes")
    cli.ok("index")
    new_body = tmp_path / "nb.txt"
    new_body.write_text("# New heading\n\nAnother body entirely.\n")
    cli.ok("edit", "Wombat", "--body-file", str(new_body))  # not indexed since
    for mode in ("semantic", "hybrid"):
        found = cli.json("search", "Wombat burrow notes", "--mode", mode)
        hit = next(h for h in found["hits"] if h["title"] == "Wombat")
        # The index still places the old text at 0:19, where the new body reads "# New heading Anot".
        assert hit["snippet"] == "# New heading Another body entirely."
        assert hit["sections"][0] == {"section": "1", "section_heading": "New heading"}
        err = cli.ok("search", "Wombat burrow notes", "--mode", mode).err
        # Every note has vectors: not "covers N of N notes: results may be missing".
        assert (
            "1 note changed since indexed: results may be out of date (run `noted index` to catch up)" in err
        )
        assert "covers" not in err and "missing" not in err
        # The same count in --json, and in `noted index status`.
        assert found["index"]["notes_changed"] == 1 and found["index"]["complete"] is False
    status = cli.json("index", "status")
    assert status["notes_changed"] == 1 and status["behind_by_changes"] >= 1


def test_a_model_folder_set_wrong_leaves_keyword_results_and_says_why(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model folder whose tokenizer.json is damaged (or that lacks a file) failed every search,
    keyword matches included (exit 2), where a missing default model gives the keyword results and
    says why. Not vacuous: the note matches by keyword, so only the model's failure can hide it."""
    cli.ok("create", "Boats", "--body", "sailing ships")
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"not a model")
    (folder / "tokenizer.json").write_text("{damaged")
    monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "onnx")
    monkeypatch.setenv("NOTED_AI_EMBEDDING_MODEL", str(folder))
    result = cli("search", "sailing")
    assert result.code == 0 and "Boats" in result.out, result.err
    assert "keyword results only" in result.err and "tokenizer.json" in result.err, result.err
    semantic = cli("search", "sailing", "--mode", "semantic")
    assert semantic.code == 1 and "tokenizer.json" in semantic.err and "Boats" not in semantic.out


def test_index_status_says_when_the_model_cannot_be_used(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the model unusable, the status said 'not built: run `noted index` to build it', which
    then fails. Not vacuous: the same profile with the fake model keeps the old advice."""
    cli.ok("create", "Boats", "--body", "sailing ships")
    assert "run `noted index`" in cli.json("index", "status")["state"]
    monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "onnx")
    monkeypatch.setenv("NOTED_AI_EMBEDDING_MODEL", str(tmp_path / "no-such-model"))
    state = cli.json("index", "status")["state"]
    assert state.startswith("cannot index: ") and "no-such-model" in state, state


def test_every_mode_dates_a_hit_as_the_note_list_does(cli: Cli, tmp_path: Path) -> None:
    """A search by meaning or both dated an imported note by when noted wrote it (``updated_time``)
    while keyword search, ``noted notes`` and the app date it by its own time (``user_updated_time``):
    one note, two dates, by the mode. Not vacuous: the import's time is years before the write's."""
    folder = tmp_path / "in" / "Sea"
    folder.mkdir(parents=True)
    (folder / "Boats.md").write_text("---\nupdated: 2020-01-02T03:04:05Z\n---\nsailing ships harbour wind\n")
    cli.ok("import", str(tmp_path / "in"))
    listed = {n["title"]: n["updated_time"] for n in cli.json("notes")}["Boats"]
    assert listed < 1_600_000_000_000  # 2020: the note's own time, not the import's
    cli.ok("index")
    for mode in ("keyword", "semantic", "hybrid"):
        hit = cli.json("search", "sailing ships", "--mode", mode)["hits"][0]
        assert (mode, hit["title"], hit["updated_time"]) == (mode, "Boats", listed)


def test_with_the_indexer_off_search_by_meaning_does_not_say_to_wait_for_it(cli: Cli) -> None:
    """With ``search.indexer.enabled`` off, an index never built told the person to "keep noted
    open while it indexes": nothing indexes then, however long it stays open."""
    cli.ok("config", "set", "search.indexer.enabled", "false")
    result = cli("search", "anything", "--mode", "semantic")
    assert result.code == 1 and "noted index" in result.err
    assert "keep noted open" not in result.err and "search.indexer.enabled" in result.err
    cli.ok("config", "set", "search.indexer.enabled", "true")  # the control: on, it does say so
    assert "keep noted open" in cli("search", "anything", "--mode", "semantic").err
