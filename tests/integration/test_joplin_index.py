"""Search on the Joplin backend: Joplin's own keyword search, and the indexer following ``/events``."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.joplin import JoplinServer, shared_server, wait_until

from noted.embeddings.fake import FakeEmbedder
from noted.errors import QueryError
from noted.indexer.coverage import index_coverage
from noted.indexer.engine import Indexer
from noted.models import NoteDraft, NotePatch
from noted.search.finder import Finder
from noted.search.joplin import JoplinKeywordSearch
from noted.search.semantic import SemanticSearch
from noted.settings import Settings
from noted.store.joplin import JoplinStore

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


@pytest.fixture
def store(joplin: JoplinServer, tmp_path: Path) -> Iterator[JoplinStore]:
    s = joplin.store(tmp_path / "profile")
    yield s
    s.close()


def test_keyword_search_has_noteds_results_and_scope(store: JoplinStore) -> None:
    word = "zq" + secrets.token_hex(4)  # a word no other note of the shared Joplin has
    garden = store.create_folder(f"Garden {word}", actor="user")
    other = store.create_folder(f"Other {word}", actor="user")
    body = f"# Plan\n\nIntro.\n\n## Water\n\nWater the {word}tomatoes daily.\n"
    note = store.create_note(NoteDraft("Tomatoes", body, garden.id, tags=("veg",)), actor="user")
    store.create_note(NoteDraft(f"About {word}", "nothing else", other.id), actor="user")
    trashed = store.create_note(NoteDraft("Old", f"{word}tomatoes too", garden.id), actor="user")
    store.trash_note(trashed.id, actor="user")
    search = JoplinKeywordSearch(store)

    results = search.search(f"{word}tomat")  # a prefix, as in noted's grammar
    assert [h.note_id for h in results.hits] == [note.id]  # the trashed one is left out
    hit = results.hits[0]
    assert (hit.section, hit.section_heading, hit.notebook_title) == ("1.1", "Water", garden.title)
    assert f"{word}tomatoes daily" in hit.snippet
    about = search.search(f"About {word}").hits[0].note_id
    assert {h.note_id for h in search.search(word).hits} == {note.id, about}
    assert [h.note_id for h in search.search(f"{word} tag:veg").hits] == [note.id]
    assert [h.note_id for h in search.search(f"{word} -tag:veg").hits] == [about]
    assert search.search(word, folder_ids=frozenset({other.id})).total == 1
    with pytest.raises(QueryError):
        search.search("tags:bar")


def test_keyword_search_finds_a_chinese_word_inside_a_run(store: JoplinStore) -> None:
    """Joplin's index, like noted's, keeps a run of Chinese as one word; the notes changed lately
    are searched by noted, which finds the word anywhere in the run (as Joplin's own search does)."""
    folder = store.create_folder(f"Budget {secrets.token_hex(4)}", actor="user")
    cn = store.create_note(NoteDraft("cn", "我们明天开会讨论预算", folder.id), actor="user")
    store.create_note(NoteDraft("jp", "東京の会議メモ", folder.id), actor="user")  # must not come back
    search = JoplinKeywordSearch(store)
    results = search.search("预算", folder_ids=frozenset({folder.id}))
    assert [h.note_id for h in results.hits] == [cn.id]
    assert "预算" in results.hits[0].snippet


def test_keyword_search_weighs_headings_and_follows_a_heading_edited_away(store: JoplinStore) -> None:
    word = "zq" + secrets.token_hex(4)
    folder = store.create_folder(f"Headings {word}", actor="user")
    filler = "notes about the week and what to bring, written at some length. "
    text = store.create_note(
        NoteDraft("Text", filler + f"{word} and {word} again.\n", folder.id), actor="user"
    )
    heading = store.create_note(
        NoteDraft("Heading", f"## {word}\n\n" + filler + "more\n", folder.id), actor="user"
    )
    search = JoplinKeywordSearch(store)
    assert [h.note_id for h in search.search(word).hits] == [heading.id, text.id]

    # The same search object again: the note it read before changed, so its headings are read again.
    store.update_note(heading.id, NotePatch(body="## Days\n\n" + filler), actor="user")
    assert [h.note_id for h in search.search(word).hits] == [text.id]
    assert heading.id in {h.note_id for h in search.search(f'days notebook:"{folder.title}"').hits}


def test_the_indexer_follows_joplins_events(joplin: JoplinServer, store: JoplinStore) -> None:
    folder = store.create_folder("Index " + secrets.token_hex(3), actor="user")
    first = store.create_note(NoteDraft("Compost", "Turn the compost heap weekly.", folder.id), actor="user")
    embedder = FakeEmbedder()
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()  # the first full scan
    semantic = SemanticSearch(store, store.db, embedder)
    ours = [first.id]  # the worker's Joplin holds every other Joplin test's notes too: searches are scoped

    def found(query: str) -> list[str]:
        return [h.note_id for h in semantic.search(query, note_ids=ours)]

    assert found("compost heap")[0] == first.id
    assert index_coverage(store, store.db).complete  # Joplin's own feed and counts say so

    # A note Joplin has that the index has not seen yet makes the index partial.
    late = joplin.api("POST", "/notes", {"title": "Late", "body": "Water the ferns.", "parent_id": folder.id})
    ours.append(late["id"])
    wait_until(lambda: not index_coverage(store, store.db).complete, what="Joplin's feed to show the note")
    partial = index_coverage(store, store.db)
    assert partial.notes_indexed < partial.notes_total
    indexer.run_until_idle()
    assert index_coverage(store, store.db).complete and found("water ferns")[0] == late["id"]

    # Then only the feed: a note written through noted, and one written in Joplin itself.
    second = store.create_note(NoteDraft("Bees", "The beehive needs sugar water.", folder.id), actor="user")
    outside = joplin.api(
        "POST", "/notes", {"title": "Apples", "body": "Prune the apple trees.", "parent_id": folder.id}
    )
    ours += [second.id, outside["id"]]
    store.update_note(first.id, NotePatch(body="Nothing about that any more."), actor="user")

    def caught_up() -> bool:
        indexer.run_until_idle()
        ids = {found(q)[0] for q in ("beehive sugar", "prune apple trees") if found(q)}
        return ids == {second.id, outside["id"]} and first.id not in found("compost heap")

    wait_until(caught_up, what="the indexer to follow Joplin's events")
    store.trash_note(second.id, actor="user")
    wait_until(
        lambda: indexer.run_until_idle() >= 0 and second.id not in found("beehive sugar"),
        what="the trashed note to leave the index",
    )


def test_hybrid_search_on_joplin_takes_a_misspelt_and_a_spanish_query(
    store: JoplinStore, tmp_path: Path
) -> None:
    """Joplin gives no vocabulary: no correction and senses by the glossary, but no failure (before,
    both queries raised: the SQLite search's vocabulary was looked up on a Joplin profile).

    The searches are scoped to this test's two notes: the worker's Joplin holds every other Joplin
    test's notes too, and the fake embedder's hashed words let any of them outrank the one shared
    word of a misspelt query (CI once saw it). The other note keeps the ranking a real one."""
    folder = store.create_folder("Ops " + secrets.token_hex(3), actor="user").id
    note = store.create_note(
        NoteDraft("Restoring", "restore the database from a backup", parent_id=folder), actor="user"
    )
    other = store.create_note(
        NoteDraft("Watering", "water the tomatoes from the rain barrel", parent_id=folder), actor="user"
    )
    embedder = FakeEmbedder(dim=256)
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    semantic = SemanticSearch(store, store.db, embedder)
    # The one entry point, over Joplin's keyword search: it needs nothing of the SQLite backend.
    finder = Finder(
        store, JoplinKeywordSearch(store), lambda: semantic, Settings(tmp_path / "c.toml", environ={})
    )
    scope = {note.id, other.id}
    found = finder.search(
        "restaurar una copia de seguridad", mode="hybrid", relevance="loose", note_ids=scope
    )
    assert found.reading.translation is not None and found.reading.translation.text == "restore backup"
    assert found.hits[0].note_id == note.id and found.hits[0].notebook == store.get_folder(folder).title
    misspelt = finder.search("restroe databse backup", mode="hybrid", relevance="loose", note_ids=scope)
    assert misspelt.reading.translation is None and misspelt.hits[0].note_id == note.id
