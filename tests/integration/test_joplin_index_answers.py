"""Notes older than noted's recent window are found by Joplin's own index, and found as noted finds
them: Joplin is asked for at least every note noted would find, and its answer is narrowed by
noted's matcher (``noted.search.joplin_query.joplin_asked``).

Sent as before, Joplin found no "5€" for ``€`` (it glues a symbol to the word beside it), every
word starting with "a" for ``a``, nothing for ``sw*ing`` (a literal ``*``), "Budget plan
review" for ``title:"plan budget"`` (any order), and the undated to-do for ``any:1 W -due:X``.
A Joplin of the test's own is restarted after the notes are made, so that its index holds them
(the terminal app indexes when it starts), and noted's recent window is closed, so that every
answer is Joplin's. Not vacuous: each query is checked to find the notes it should, not only to
leave out the others.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.joplin import JoplinServer, own_server, wait_until

from noted.search import joplin as joplin_search
from noted.search.joplin import JoplinKeywordSearch

pytestmark = pytest.mark.slow

NOTES = {
    "Price": "price 5€ total",
    "Cost": "€10 cost",
    "Letter": "x1 a apple",
    "Words": "about and apple",
    "Pool": "swimming pool",
    "Plan budget 2027": "the year",
    "Budget plan review": "the review",
    "Marker": "zqmarker",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JoplinServer]:
    with own_server(tmp_path_factory.mktemp("index-answers") / "joplin") as joplin:
        folder = str(joplin.api("POST", "/folders", {"title": "Old"})["id"])
        for title, body in NOTES.items():
            joplin.api("POST", "/notes", {"title": title, "body": body, "parent_id": folder})
        todo = {"parent_id": folder, "is_todo": 1, "body": "things"}
        joplin.api("POST", "/notes", {**todo, "title": "Dated", "todo_due": 1_767_225_600_000})  # 2026-01-01
        joplin.api("POST", "/notes", {**todo, "title": "Undated"})
        joplin.stop()
        joplin.start()  # the terminal app indexes the notes as it starts
        wait_until(
            lambda: joplin.api("GET", "/search", params={"query": "zqmarker"})["items"],
            what="Joplin's index to hold the notes",
            timeout=120,
        )
        yield joplin


@pytest.mark.parametrize(
    ("query", "titles"),
    [
        ("€", ["Cost", "Price"]),
        ("€ total", ["Price"]),
        ("a", ["Letter"]),
        ("a apple", ["Letter"]),
        ("sw*ing", ["Pool"]),
        ('title:"plan budget"', ["Plan budget 2027"]),
        ("any:1 zqmarker -due:20300101", ["Dated", "Marker"]),
        ("apple", ["Letter", "Words"]),  # a query Joplin reads as noted does: its answer stands
    ],
)
def test_joplins_index_answers_as_noted_reads_the_query(
    server: JoplinServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str, titles: list[str]
) -> None:
    monkeypatch.setattr(joplin_search, "RECENT_MS", 0)  # no note is searched by noted itself
    store = server.store(tmp_path / "profile")
    try:
        found = JoplinKeywordSearch(store).search(query)
    finally:
        store.close()
    assert sorted(hit.title for hit in found.hits) == titles
