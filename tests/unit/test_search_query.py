"""The search grammar: what each kind of term parses into, and each way a query is refused."""

from __future__ import annotations

from datetime import datetime

import pytest

from noted.errors import QueryError
from noted.search.dates import resolve_date
from noted.search.query import (
    DateField,
    DateFilter,
    Filter,
    FilterKind,
    TextField,
    TextTerm,
    parse_query,
)

NOW = datetime(2024, 3, 14, 15, 9, 26)  # a Thursday


def ms(year: int, month: int, day: int) -> int:
    """Local midnight of a day, in epoch milliseconds."""
    return int(datetime(year, month, day).timestamp() * 1000)


def test_bare_words_are_prefix_terms_combined_with_and() -> None:
    query = parse_query("cat  Dog")
    assert query.terms == (TextTerm("cat"), TextTerm("Dog"))
    assert not query.any
    assert query.ranked


def test_a_one_letter_word_is_whole_unless_starred() -> None:
    assert parse_query("c c*").terms == (TextTerm("c", prefix=False), TextTerm("c"))


def test_phrase_is_exact_and_a_trailing_star_makes_its_last_word_a_prefix() -> None:
    exact, prefixed = parse_query('"shopping list" "shop lis*"').terms
    assert exact == TextTerm("shopping list", phrase=True, prefix=False)
    assert prefixed == TextTerm("shop lis", phrase=True, prefix=True)


def test_unterminated_quote_runs_to_the_end() -> None:
    assert parse_query('"half open').terms == (TextTerm("half open", phrase=True, prefix=False),)


def test_minus_negates_words_phrases_and_filters() -> None:
    word, phrase, tag = parse_query('-spam -"junk mail" -tag:old').terms
    assert word == TextTerm("spam", negated=True)
    assert phrase == TextTerm("junk mail", phrase=True, prefix=False, negated=True)
    assert tag == Filter(FilterKind.TAG, "old", negated=True)


def test_a_query_of_negations_only_is_not_ranked() -> None:
    assert not parse_query("-spam").ranked


def test_wildcards_leading_is_ignored_trailing_is_prefix_inner_is_one_word() -> None:
    leading, trailing, inner, dotted = parse_query("*swim swim* ast*rix foo.b*r").terms
    assert isinstance(inner, TextTerm) and isinstance(dotted, TextTerm)
    assert leading == TextTerm("swim")
    assert trailing == TextTerm("swim")
    assert inner.text == "ast*rix" and inner.infix
    assert not dotted.infix  # "*" between word pieces cannot be one index word


def test_filter_values_may_be_quoted_and_filter_names_ignore_case() -> None:
    tag, notebook = parse_query('TAG:"my tag" notebook:"Work stuff"').terms
    assert tag == Filter(FilterKind.TAG, "my tag")
    assert notebook == Filter(FilterKind.NOTEBOOK, "Work stuff")


def test_notebook_values_keep_wildcards_and_are_listed_by_polarity() -> None:
    query = parse_query("notebook:Wheel*time notebook:books -notebook:Archive")
    assert query.notebooks(negated=False) == ("Wheel*time", "books")
    assert query.notebooks(negated=True) == ("Archive",)
    assert Filter(FilterKind.NOTEBOOK, "Wheel*time").wildcard


def test_title_and_body_filters_are_text_terms_in_one_column() -> None:
    title, body, phrase = parse_query('title:hello body:world title:"hello world"').terms
    assert title == TextTerm("hello", TextField.TITLE)
    assert body == TextTerm("world", TextField.BODY)
    assert phrase == TextTerm("hello world", TextField.TITLE, phrase=True, prefix=False)


def test_type_and_iscompleted_are_normalised() -> None:
    todo, done = parse_query("type:TODO iscompleted:1").terms
    assert todo == Filter(FilterKind.TYPE, "todo")
    assert done == Filter(FilterKind.ISCOMPLETED, "1")


def test_sourceurl_keeps_its_colons_and_a_bare_url_is_text() -> None:
    url, text = parse_query("sourceurl:https://example.com/* https://joplinapp.org").terms
    assert url == Filter(FilterKind.SOURCEURL, "https://example.com/*")
    assert text == TextTerm("https://joplinapp.org")


def test_resource_without_subtype_means_any_subtype() -> None:
    image, pdf = parse_query("resource:image -resource:application/pdf").terms
    assert image == Filter(FilterKind.RESOURCE, "image/*")
    assert pdf == Filter(FilterKind.RESOURCE, "application/pdf", negated=True)


def test_id_filter() -> None:
    (term,) = parse_query("id:9CBC1B4F242043A9B8A50627508BCCD5").terms
    assert term == Filter(FilterKind.ID, "9CBC1B4F242043A9B8A50627508BCCD5")


def test_any_1_switches_to_or_and_is_not_a_term() -> None:
    query = parse_query("any:1 cat dog")
    assert query.any
    assert query.terms == (TextTerm("cat"), TextTerm("dog"))
    assert not parse_query("any:0 cat").any


def test_absolute_dates_are_local_midnight_at_the_start_of_the_period() -> None:
    created, updated, due = parse_query("created:2020 -updated:202003 due:20201218", now=NOW).terms
    assert created == DateFilter(DateField.CREATED, "2020", ms(2020, 1, 1))
    assert updated == DateFilter(DateField.UPDATED, "202003", ms(2020, 3, 1), negated=True)
    assert due == DateFilter(DateField.DUE, "20201218", ms(2020, 12, 18))
    assert resolve_date("2020-12-18") == ms(2020, 12, 18)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("day-0", (2024, 3, 14)),
        ("day-1", (2024, 3, 13)),
        ("day+7", (2024, 3, 21)),
        ("week-0", (2024, 3, 11)),  # Monday of this week
        ("week-1", (2024, 3, 4)),
        ("month-0", (2024, 3, 1)),
        ("month-3", (2023, 12, 1)),
        ("year-1", (2023, 1, 1)),
        ("YEAR+1", (2025, 1, 1)),
    ],
)
def test_relative_dates_count_whole_periods_from_the_start_of_the_current_one(
    value: str, expected: tuple[int, int, int]
) -> None:
    assert resolve_date(value, NOW) == ms(*expected)


# Failure paths: each names the problem ---------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_empty_query_is_an_error(query: str) -> None:
    with pytest.raises(QueryError, match="empty"):
        parse_query(query)


def test_query_without_any_letter_or_digit_is_an_error() -> None:
    with pytest.raises(QueryError, match='nothing to search for in "&& -"'):
        parse_query("&& -")


@pytest.mark.parametrize("query", ["-", "--", "- -", "&& -"])
def test_a_query_of_only_dashes_needs_letters_and_names_no_any(query: str) -> None:
    # ``noted search -- -`` said "any: only says whether any term may match", of a query with no
    # any: (nothing in it was read as a term, and "all of no terms are any:" held).
    with pytest.raises(QueryError) as caught:
        parse_query(query)
    said = str(caught.value) + (caught.value.hint or "")
    assert "letter or digit" in said and "any:" not in said, said


@pytest.mark.parametrize("query", ["any:1", "any:0", " any:1 any:1 "])
def test_a_query_of_any_alone_says_it_needs_terms_not_letters(query: str) -> None:
    # "any:1" holds a digit, yet the answer said words need at least one letter or digit.
    with pytest.raises(QueryError) as caught:
        parse_query(query)
    assert "any: only says whether any term may match" in str(caught.value)
    assert "letter or digit" not in str(caught.value) + (caught.value.hint or "")


@pytest.mark.parametrize(
    ("query", "meant"),
    [
        ("cat tags:work", "tag:"),
        ("notebok:Work", "notebook:"),
        ("Titel:plan", "title:"),
        ("completed:1", "iscompleted:"),
        ("source:x", "resource: or sourceurl:"),
    ],
)
def test_a_misspelt_filter_says_which_it_probably_meant(query: str, meant: str) -> None:
    with pytest.raises(QueryError) as caught:
        parse_query(query)
    name = query.split()[-1].split(":")[0]
    assert str(caught.value).startswith(f'unknown filter "{name}:"; did you mean {meant}?')
    token = query.split()[-1]
    assert caught.value.hint == f'to search for the text {token}, put it in double quotes: "{token}"'
    assert parse_query(f'"{token}"').terms == (TextTerm(token, phrase=True, prefix=False),)


@pytest.mark.parametrize(
    "token",
    ["std::vector", "localhost:8080", "gitdir:~/work/", "C:\\Users\\me", "TODO:fix", "key:value", "url:x"],
)
def test_any_other_name_and_colon_is_text_as_in_joplin(token: str) -> None:
    # They were refused as unknown filters, a question holding one too.
    assert parse_query(f"where {token} -not:this").terms == (
        TextTerm("where"),
        TextTerm(token),
        TextTerm("not:this", negated=True),
    )


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("psql: quote a variable", ["psql", "quote", "a", "variable"]),
        ("COPY CSV import: empty strings", ["COPY", "CSV", "import", "empty", "strings"]),
        ("Note:", ["Note"]),
    ],
)
def test_a_word_the_colon_ends_is_text_as_in_prose(query: str, words: list[str]) -> None:
    # A question typed into hybrid search ("psql: …") was refused as an unknown filter.
    assert [t.text for t in parse_query(query).text_terms] == words


@pytest.mark.parametrize(
    ("query", "words", "excluded"),
    [
        ("push with --force", ["push", "with", "force"], []),
        ("move the tag with -f", ["move", "the", "tag", "with", "f"], []),
        ("plan -draft", ["plan"], ["draft"]),  # a word after "-" is still left out, as in Joplin
        ('-"old plan" budget', ["budget"], ["old plan"]),
    ],
)
def test_an_option_as_a_question_writes_it_is_a_word_not_an_exclusion(
    query: str, words: list[str], excluded: list[str]
) -> None:
    # Joplin's grammar would leave out every note with "force", or with "f".
    terms = parse_query(query).text_terms
    assert [t.text for t in terms if not t.negated] == words
    assert [t.text for t in terms if t.negated] == excluded


def test_a_known_filter_the_colon_ends_still_asks_for_its_value() -> None:
    with pytest.raises(QueryError, match='filter "tag:" needs a value'):
        parse_query("tag: work")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("created:2020-13", 'bad date "2020-13" (no month 13): use YYYY, YYYYMM, YYYYMMDD or day-N'),
        ("updated:20200230", 'bad date "20200230" (no such day)'),
        ("due:yesterday", 'bad date "yesterday": use YYYY'),
        ("created:day-", 'bad date "day-"'),
        ("created:1969", "years start at 1970"),
    ],
)
def test_bad_dates(query: str, message: str) -> None:
    with pytest.raises(QueryError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_query(query)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("type:task", 'bad value "task" for filter "type:"; use type:note or type:todo'),
        ("iscompleted:yes", 'bad value "yes" for filter "iscompleted:"; use iscompleted:0 or iscompleted:1'),
        ("any:2 cat", 'bad value "2" for filter "any:"'),
        ("-any:1 cat", 'filter "any:" cannot be negated'),
        ("tag:", 'filter "tag:" needs a value, e.g. tag:work'),
        ('notebook:""', 'filter "notebook:" needs a value'),
        ("title:!!", 'filter "title:" needs a word with letters or digits'),
        ("id:not-an-id", 'bad note id "not-an-id"'),
    ],
)
def test_bad_filter_values(query: str, message: str) -> None:
    with pytest.raises(QueryError) as caught:
        parse_query(query)
    assert message in str(caught.value)


def test_queries_at_the_limits_parse_and_beyond_them_are_refused() -> None:
    # The limits live in the parser, so the CLI, the app and the MCP tools all get them.
    from noted.search.query import MAX_QUERY_CHARS, MAX_TERMS, MAX_WORD_CHARS

    assert len(parse_query(" ".join(["tag:x"] * MAX_TERMS)).terms) == MAX_TERMS
    assert parse_query("a" * MAX_WORD_CHARS).text_terms[0].text == "a" * MAX_WORD_CHARS
    assert len(parse_query(" ".join(["w" * 99] * (MAX_QUERY_CHARS // 100))).terms) == MAX_QUERY_CHARS // 100
    for query, message in (
        (" ".join(["tag:x"] * (MAX_TERMS + 1)), "too many terms"),
        ("a" * (MAX_WORD_CHARS + 1), "too long to search for"),
        ('"' + "ab " * 20 + "b" * (MAX_WORD_CHARS + 1) + '"', "too long to search for"),
        ("x " * (MAX_QUERY_CHARS // 2 + 1), "too long"),
    ):
        with pytest.raises(QueryError, match=message):
            parse_query(query)
