"""The query noted sends Joplin's ``/search`` (``noted.search.joplin_query``): each term written so
that Joplin reads it as noted does. Sending the query as typed gave, for every note older than
the recent window, what Joplin makes of noted's extensions: ``-type:todo`` listed the to-dos too,
``created:2026-12-01`` found nothing, ``--force`` left out every note holding "force"."""

from __future__ import annotations

from datetime import datetime

import pytest

from noted.search.joplin_query import joplin_asked, joplin_query
from noted.search.query import parse_query

NOW = datetime(2026, 12, 9, 15, 30)  # a Wednesday


@pytest.mark.parametrize(
    ("typed", "sent"),
    [
        ("budget travel", "budget travel"),
        ('"change feed" -draft', '"change feed" -draft'),
        ('"shop*" swim*', '"shop*" swim'),
        ("-type:todo", "type:note"),
        ("-type:note", "type:todo"),
        ("-iscompleted:1", "iscompleted:0"),
        ("-iscompleted:0 tag:work", "iscompleted:1 tag:work"),
        ("type:todo iscompleted:0", "type:todo iscompleted:0"),
        ("created:2026-12-01", "created:20261201"),
        ("updated:202611", "updated:20261101"),
        ("-created:day-1", "-created:20261208"),
        ("updated:week-0", "updated:20261207"),  # noted's weeks start on Monday, Joplin's on Sunday
        ("-due:day+7", "-due:20261216 due:19700102"),
        ("any:1 -due:day+7 budget", "any:1 -due:20261216 budget"),
        ("--force", "force"),
        ("-f rebase", "f rebase"),
        ("psql: quote", "psql quote"),
        ("resource:image", "resource:image/*"),
        ('tag:"two words" notebook:"v1.2 notes"', 'tag:"two words" notebook:"v1.2 notes"'),
        ("-tag:* notebook:Work*", "-tag:* notebook:Work*"),
        ('title:"budget plan" -body:hotel', 'title:"budget plan" -body:hotel'),
        ("std::vector localhost:8080", "std::vector localhost:8080"),
        ("東京 café", "東京 café"),
        ("🎉 party -✅ title:⭐", "🎉 party -✅ title:⭐"),  # a symbol: a word of Joplin's index
        ("❤️", "❤"),  # without its presentation selector, so that Joplin's prefix finds both
        ("any:1 budget tickets", "any:1 budget tickets"),
    ],
)
def test_each_term_is_written_as_joplin_reads_it_the_way_noted_does(typed: str, sent: str) -> None:
    assert joplin_query(parse_query(typed, now=NOW)) == sent


@pytest.mark.parametrize(
    ("typed", "sent", "checked"),
    [
        ("budget travel", "budget travel", None),  # read as noted does: Joplin's answer stands
        ("-due:day+7", "-due:20261216 due:19700102", None),
        ("a budget", "a budget", "a"),  # Joplin: every word starting with "a"
        ("sw*ing pool", "sw pool", "sw*ing"),  # Joplin: a literal "*"
        ('title:"plan budget"', 'title:"plan budget"', 'title:"plan budget"'),  # any order
        ("€ budget", "budget", "€"),  # Joplin finds no "5€" for "€": left out, checked
        ("€", "/€", "€"),  # alone: Joplin's substring search
        ("€ -draft", "/€", "€ -draft"),  # the other terms: checked
        ("title:€", "/€", "title:€"),  # in the title: checked
        ("-€ plan", "plan", "-€"),  # Joplin leaves out less than noted: checked
        ("any:1 budget -due:day+7", "any:1 budget -due:20261216", "any:1 budget -due:day+7"),
        ("any:1 sw*ing budget", "any:1 sw budget", "any:1 sw*ing budget"),
    ],
)
def test_joplin_is_asked_for_every_note_noted_finds_and_its_answer_checked(
    typed: str, sent: str, checked: str | None
) -> None:
    """Not vacuous: each query but the first two was sent as typed, and Joplin's answer stood."""
    asked = joplin_asked(parse_query(typed, now=NOW))
    assert asked.query == sent
    assert asked.check == (None if checked is None else parse_query(checked, now=NOW))
