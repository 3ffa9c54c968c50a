"""Keyword search over a real SQLite store: each filter, negation, ranking, snippets, sections, scope.

Every test puts at least one note in the store that must *not* be returned, so that a search
that ignored the filter under test would fail.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from noted.errors import QueryError
from noted.markdown import outline
from noted.models import NoteDraft
from noted.search.keyword import HIDDEN_INDEX, KeywordResults, KeywordSearch
from noted.search.snippet import section_at
from noted.store.sqlite import SqliteStore


def ms(year: int, month: int, day: int) -> int:
    """Local midnight of a day, in epoch milliseconds."""
    return int(datetime(year, month, day).timestamp() * 1000)


class Book:
    """A store with helpers to add notes tersely."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self.search = KeywordSearch(store)
        self.inbox = store.create_folder("Inbox", actor="user").id

    def folder(self, title: str, parent: str = "") -> str:
        return self.store.create_folder(title, parent_id=parent, actor="user").id

    def note(self, title: str, body: str = "", folder: str | None = None, **kw: object) -> str:
        draft = NoteDraft(title, body, parent_id=folder or self.inbox, **kw)  # type: ignore[arg-type]
        return self.store.create_note(draft, actor="user").id

    def titles(self, query: str, **kw: object) -> list[str]:
        return [h.title for h in self.find(query, **kw).hits]

    def find(self, query: str, **kw: object) -> KeywordResults:
        return self.search.search(query, **kw)  # type: ignore[arg-type]


@pytest.fixture(params=[False, True], ids=["without-hidden-index", "hidden-index"])
def book(store: SqliteStore, request: pytest.FixtureRequest) -> Book:
    """A store, with or without the partial index that lets search skip reading hidden rows
    (a profile made by schema 1 lacks it until it migrates; both paths must give the same results)."""
    if not request.param:
        with store.db.write() as conn:
            conn.execute(f"DROP INDEX IF EXISTS {HIDDEN_INDEX}")
    return Book(store)


# Words, phrases, wildcards ----------------------------------------------------------------------


def test_a_word_matches_as_a_token_prefix_not_a_substring(book: Book) -> None:
    book.note("Catalog of parts")
    book.note("Scattered thoughts")  # contains "cat" only inside a word
    book.note("Dogs")
    assert book.titles("cat") == ["Catalog of parts"]


def test_a_one_letter_word_matches_whole_unless_starred(book: Book) -> None:
    book.note("C", "the language")
    book.note("Cobol", "another language")
    assert book.titles("c") == ["C"]
    assert sorted(book.titles("c*")) == ["C", "Cobol"]


def test_several_words_must_all_match(book: Book) -> None:
    book.note("Red apple", "a fruit")
    book.note("Red car", "a vehicle")
    assert book.titles("red fruit") == ["Red apple"]


def test_phrase_is_exact_and_in_order(book: Book) -> None:
    book.note("A", "my shopping list for today")
    book.note("B", "list of shopping places")
    book.note("C", "going shopping with my list")
    assert book.titles('"shopping list"') == ["A"]
    assert book.titles('"shopping lis"') == []  # a phrase is not a prefix unless it ends in *
    assert book.titles('"shopping lis*"') == ["A"]


def test_inner_wildcard_matches_one_word_of_that_shape(book: Book) -> None:
    book.note("Asterix the Gaul")
    book.note("Astronomy")
    book.note("Obelix")
    assert book.titles("ast*rix") == ["Asterix the Gaul"]
    assert book.titles("zz*zz") == []


def test_diacritics_are_folded_both_ways(book: Book) -> None:
    book.note("Café menu")
    book.note("Cafe hours")
    book.note("Tea room")
    assert sorted(book.titles("cafe")) == ["Cafe hours", "Café menu"]
    assert sorted(book.titles("café")) == ["Cafe hours", "Café menu"]
    assert sorted(book.titles("CAFÉ")) == ["Cafe hours", "Café menu"]


@pytest.mark.parametrize(
    "query",
    [
        "e-mail",
        "foo.bar",
        'a"b',
        '"unbalanced',
        "AND",
        "OR NOT",
        "NEAR(x y)",
        "title:(x",
        "^start",
        "{title}",
    ],
)
def test_fts_syntax_in_input_is_searched_as_text_never_an_error(book: Book, query: str) -> None:
    book.note("Contact", "send an e-mail to foo.bar, a b, start x y title")
    book.find(query)  # must not raise an apsw error


def test_separated_word_is_found_as_its_pieces(book: Book) -> None:
    book.note("Contact", "send an e-mail to foo.bar")
    book.note("Other", "mail from e")
    assert book.titles("e-mail") == ["Contact"]
    assert book.titles("foo.bar") == ["Contact"]


# Ranking, snippets, sections --------------------------------------------------------------------


def test_title_match_ranks_above_body_matches(book: Book) -> None:
    book.note("Meeting notes", "agenda " * 5 + "budget budget budget")
    book.note("Budget", "numbers for the year and some other words to make it longer")
    book.note("Unrelated", "nothing here")
    results = book.find("budget")
    assert [h.title for h in results.hits] == ["Budget", "Meeting notes"]
    assert results.hits[0].score > results.hits[1].score > 0


def test_section_is_the_innermost_heading_around_the_first_body_match(book: Book) -> None:
    body = "Intro.\n\n# Trip\n\nPlans.\n\n## Days\n\nMonday.\n\n### Packing\n\nBring the umbrella.\n\n# Other\n\numbrella again\n"
    book.note("Travel", body)
    (hit,) = book.find("umbrella").hits
    assert (hit.section, hit.section_heading) == ("1.1.1", "Packing")


@pytest.mark.parametrize(
    "body",
    [
        "Intro\n\n# A\n\ntext here\n\n## B\n\nmore\n",
        "Foo word\nbar\n===\n\nafter\n",  # a setext heading below the match
        "# A\n\n```\n# not a heading\nword\n\n# still code\n```\n\n## B word\n",
        "- item\n\n  # inside a list\n\nword\n",
        "    # indented code\n\nword\n",
        "plain text only",
    ],
)
def test_section_lookup_agrees_with_the_full_outline(body: str) -> None:
    # section_at parses only up to the match's paragraph; it must never disagree with markdown.py.
    for offset, char in enumerate(body):
        if char.isspace():
            continue
        full, fast = outline(body).at(offset), section_at(body, offset)
        assert (full and (full.path, full.heading)) == (fast and (fast.path, fast.heading)), offset


def test_match_only_in_the_title_has_no_section(book: Book) -> None:
    book.note("Umbrella stand", "# Heading\n\nNothing about it here.")
    (hit,) = book.find("umbrella").hits
    assert hit.section is None
    assert hit.snippet.startswith("# Heading Nothing about it")


def test_snippet_is_anchored_on_the_first_matched_word(book: Book) -> None:
    before = "filler words go here and there\n\n\n" * 60
    after = " and then   more   text follows" * 40
    book.note("Long", before + "The crucial sentence mentions kangaroos." + after)
    (hit,) = book.find("kangaroo").hits
    assert "kangaroos" in hit.snippet
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert 180 <= len(hit.snippet) <= 245
    assert "  " not in hit.snippet and "\n" not in hit.snippet
    lead = hit.snippet.index("kangaroos")
    assert 20 <= lead <= 100  # a little context before, most of it after
    assert not hit.snippet[1].isspace()


def test_filter_only_query_sorts_newest_first_without_section(book: Book) -> None:
    book.note("old", "x", is_todo=True, user_updated_time=ms(2020, 1, 1))
    book.note("new", "x", is_todo=True, user_updated_time=ms(2023, 1, 1))
    book.note("mid", "x", is_todo=True, user_updated_time=ms(2021, 1, 1))
    book.note("plain", "x")
    results = book.find("type:todo")
    assert [h.title for h in results.hits] == ["new", "mid", "old"]
    assert all(h.section is None and h.score == 0.0 for h in results.hits)


def test_total_counts_all_matches_and_pages_follow_the_order(book: Book) -> None:
    for i in range(12):
        book.note(f"Report {i:02}", "quarterly", user_updated_time=ms(2020, 1, 1 + i))
    book.note("Other", "annual")
    first = book.find("quarterly", limit=5)
    third = book.find("quarterly", limit=5, offset=10)
    beyond = book.find("quarterly", limit=5, offset=50)
    assert (first.total, len(first.hits)) == (12, 5)
    assert (third.total, len(third.hits)) == (12, 2)
    assert (beyond.total, beyond.hits) == (12, ())
    seen = {h.note_id for h in first.hits} | {h.note_id for h in third.hits}
    assert len(seen) == 7


def test_hit_carries_notebook_and_todo_state(book: Book) -> None:
    work = book.folder("Work")
    note_id = book.note("Ship it", "release", folder=work, is_todo=True, todo_completed=ms(2024, 1, 1))
    (hit,) = book.find("release").hits
    assert (hit.note_id, hit.notebook_id, hit.notebook_title) == (note_id, work, "Work")
    assert hit.is_todo and hit.todo_completed == ms(2024, 1, 1)


def test_trashed_notes_and_conflicts_are_never_returned(book: Book) -> None:
    book.note("Kept zebra")
    trashed = book.note("Trashed zebra")
    conflict = book.note("Conflict zebra")
    book.store.trash_note(trashed, actor="user")
    with book.store.db.write() as conn:
        conn.execute("UPDATE notes SET is_conflict = 1 WHERE id = ?", (conflict,))
    assert book.titles("zebra") == ["Kept zebra"]
    assert book.find("-tag:*").total == 1


# Filters ----------------------------------------------------------------------------------------


def test_notebook_filter_includes_sub_notebooks_and_takes_wildcards_and_quotes(book: Book) -> None:
    work = book.folder("Work stuff")
    sub = book.folder("Projects", work)
    deep = book.folder("Alpha", sub)
    book.note("top", folder=work)
    book.note("deep", folder=deep)
    book.note("home", folder=book.folder("Home"))
    assert sorted(book.titles('notebook:"Work stuff"')) == ["deep", "top"]
    assert sorted(book.titles("notebook:work*")) == ["deep", "top"]
    assert book.titles("notebook:alpha") == ["deep"]


def test_several_notebook_filters_mean_any_of_them(book: Book) -> None:
    book.note("a", folder=book.folder("A"))
    book.note("b", folder=book.folder("B"))
    book.note("c", folder=book.folder("C"))
    assert sorted(book.titles("notebook:A notebook:B")) == ["a", "b"]


def test_negated_notebook_excludes_its_sub_notebooks(book: Book) -> None:
    archive = book.folder("Archive")
    book.note("old", "memo", folder=book.folder("2019", archive))
    book.note("current", "memo")
    assert book.titles("memo -notebook:archive") == ["current"]


def test_tag_filters_combine_with_and_and_take_wildcards(book: Book) -> None:
    book.note("both", tags=("office", "important"))
    book.note("office only", tags=("office",))
    book.note("untagged")
    assert book.titles("tag:office tag:important") == ["both"]
    assert sorted(book.titles("tag:off*")) == ["both", "office only"]
    assert sorted(book.titles("tag:*")) == ["both", "office only"]
    assert book.titles('tag:"office"  -tag:important') == ["office only"]
    assert book.titles("-tag:*") == ["untagged"]


def test_tag_with_spaces_in_quotes(book: Book) -> None:
    book.note("spaced", tags=("my tag",))
    book.note("other", tags=("my",))
    assert book.titles('tag:"my tag"') == ["spaced"]


def test_title_and_body_filters_look_in_one_field_only(book: Book) -> None:
    book.note("hello", "world")
    book.note("world", "hello")
    assert book.titles("title:hello") == ["hello"]
    assert book.titles("body:hello") == ["world"]
    assert book.titles("title:hello -body:world") == []


def test_type_filter(book: Book) -> None:
    book.note("task", "item", is_todo=True)
    book.note("page", "item")
    assert book.titles("item type:todo") == ["task"]
    assert book.titles("item type:note") == ["page"]
    assert book.titles("item -type:todo") == ["page"]


def test_iscompleted_filter_matches_todos_only(book: Book) -> None:
    book.note("done", "job", is_todo=True, todo_completed=ms(2024, 1, 2))
    book.note("open", "job", is_todo=True)
    book.note("page", "job")
    assert book.titles("job iscompleted:1") == ["done"]
    assert book.titles("job iscompleted:0") == ["open"]
    assert book.titles("job -iscompleted:1") == ["open"]


def test_created_and_updated_filters_mean_on_or_after_and_negated_before(book: Book) -> None:
    book.note("2019", user_created_time=ms(2019, 6, 1), user_updated_time=ms(2019, 6, 1))
    book.note("2020", user_created_time=ms(2020, 6, 1), user_updated_time=ms(2022, 6, 1))
    book.note("2021", user_created_time=ms(2021, 6, 1), user_updated_time=ms(2021, 6, 1))
    assert sorted(book.titles("created:2020 -created:2021")) == ["2020"]
    assert sorted(book.titles("created:202006")) == ["2020", "2021"]
    assert book.titles("updated:20220101") == ["2020"]
    assert book.titles("-updated:2020") == ["2019"]


def test_relative_dates(book: Book) -> None:
    book.note("today")
    book.note("long ago", user_created_time=ms(2001, 1, 1))
    assert book.titles("created:day-1") == ["today"]
    assert book.titles("-created:year-0") == ["long ago"]


def test_due_filter_only_counts_todos_with_a_due_date(book: Book) -> None:
    book.note("due soon", is_todo=True, todo_due=ms(2030, 1, 5))
    book.note("overdue", is_todo=True, todo_due=ms(2020, 1, 5))
    book.note("undated", is_todo=True)
    book.note("page")
    assert book.titles("due:2025") == ["due soon"]
    assert book.titles("-due:2025") == ["overdue"]


def test_sourceurl_filter_with_wildcards(book: Book) -> None:
    book.note("clip", source_url="https://joplinapp.org/help")
    book.note("other clip", source_url="https://example.com/")
    book.note("typed")
    assert book.titles("sourceurl:*joplinapp.org*") == ["clip"]
    assert book.titles("sourceurl:https://example.com/") == ["other clip"]
    assert sorted(book.titles("-sourceurl:*joplinapp*")) == ["other clip", "typed"]


def test_resource_filter_by_mime(book: Book) -> None:
    image = book.store.add_resource(b"\x89PNG", filename="a.png", mime="image/png", actor="user")
    pdf = book.store.add_resource(b"%PDF", filename="a.pdf", mime="application/pdf", actor="user")
    book.note("with image", f"![pic](:/{image.id})")
    book.note("with pdf", f"[doc](:/{pdf.id})")
    book.note("bare", "nothing attached")
    assert book.titles("resource:image/*") == ["with image"]
    assert book.titles("resource:image") == ["with image"]
    assert book.titles("resource:application/pdf") == ["with pdf"]
    assert sorted(book.titles("-resource:application/pdf")) == ["bare", "with image"]


def test_id_filter(book: Book) -> None:
    wanted = book.note("wanted")
    book.note("other")
    assert book.titles(f"id:{wanted}") == ["wanted"]
    assert book.titles(f"id:{wanted.upper()}") == ["wanted"]
    assert book.titles(f"id:{wanted[:8]}*") == ["wanted"]
    assert book.titles(f"-id:{wanted}") == ["other"]


# Negation and any:1 -----------------------------------------------------------------------------


def test_negated_words_and_phrases(book: Book) -> None:
    book.note("office", "work and spam")
    book.note("office too", "work only")
    book.note("home", "junk mail")
    assert book.titles("office -spam") == ["office too"]
    assert sorted(book.titles("-spam")) == ["home", "office too"]
    assert sorted(book.titles('-"junk mail"')) == ["office", "office too"]


def test_any_1_matches_any_term_including_filters(book: Book) -> None:
    book.note("cat", "")
    book.note("dog", "")
    book.note("tagged", tags=("pets",))
    book.note("fish", "")
    assert book.titles("cat dog") == []
    assert sorted(book.titles("any:1 cat dog")) == ["cat", "dog"]
    assert sorted(book.titles("any:1 cat tag:pets")) == ["cat", "tagged"]
    assert sorted(book.titles("any:1 cat -tag:pets")) == ["cat", "dog", "fish"]


def test_any_1_still_restricts_to_the_notebook(book: Book) -> None:
    zoo = book.folder("Zoo")
    book.note("cat", folder=zoo)
    book.note("dog")  # matches a word, but outside the notebook
    assert book.titles("any:1 notebook:zoo cat dog") == ["cat"]


# Scope ------------------------------------------------------------------------------------------


def test_folder_ids_confine_results_even_when_the_best_match_is_outside(book: Book) -> None:
    inside = book.folder("Shared")
    outside = book.folder("Private")
    book.note("Salary salary", "salary salary salary", folder=outside)  # the best match, out of scope
    book.note("Notes", "salary mentioned once", folder=inside)
    assert book.titles("salary")[0] == "Salary salary"  # not vacuous: it would win unscoped
    scoped = book.find("salary", folder_ids=frozenset({inside}))
    assert [h.title for h in scoped.hits] == ["Notes"] and scoped.total == 1
    assert book.find("tag:*", folder_ids=frozenset()).total == 0


def test_a_notebook_filter_cannot_name_a_notebook_outside_the_scope(book: Book) -> None:
    hidden = book.folder("Secret parent")
    allowed = book.folder("Visible child", parent=hidden)
    book.note("inside", "text", folder=allowed)
    # Unscoped, the hidden parent's title finds the child's notes (sub-notebooks are included)…
    assert book.titles('notebook:"Secret parent"') == ["inside"]
    # …so a scoped caller must not be able to probe the parent's name that way.
    assert book.find('notebook:"Secret parent"', folder_ids=frozenset({allowed})).total == 0
    assert book.titles('notebook:"Visible child"', folder_ids=frozenset({allowed})) == ["inside"]


# Errors -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "the search query is empty"),
        ("tags:bar", 'unknown filter "tags:"; did you mean tag:?'),
        ("created:2020-13", 'bad date "2020-13"'),
        ("type:task", 'bad value "task" for filter "type:"'),
        ("iscompleted:maybe", 'bad value "maybe" for filter "iscompleted:"'),
    ],
)
def test_bad_queries_raise_query_error_not_an_empty_result(book: Book, query: str, message: str) -> None:
    book.note("foo bar task")
    with pytest.raises(QueryError) as caught:
        book.find(query)
    assert message in str(caught.value)


def test_bad_page_is_refused(book: Book) -> None:
    with pytest.raises(QueryError, match="bad page"):
        book.find("x", limit=0)
    with pytest.raises(QueryError, match="bad page"):
        book.find("x", offset=-1)
