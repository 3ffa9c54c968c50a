"""A hit's snippet reads as words in the result list: Markdown's marks left out, nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from noted.search.plain import readable


def test_a_chunks_heading_is_not_repeated_beside_its_section() -> None:
    # A semantic hit's chunk opens with its section's heading, which the list already shows.
    chunk = "## DROP VIEW DROP VIEW — remove a view ## Synopsis ``` DROP VIEW [ IF EXISTS ] name"
    assert readable(chunk, "DROP VIEW") == "DROP VIEW — remove a view Synopsis DROP VIEW [ IF EXISTS ] name"
    # Another section's heading is kept (without its marks): it is not shown beside the hit.
    assert readable(chunk, "Synopsis").startswith("DROP VIEW DROP VIEW — remove")
    # A snippet that is the heading alone stays the heading, not nothing.
    assert readable("## Only a heading", "Only a heading") == "Only a heading"


@pytest.mark.parametrize(
    ("markdown", "shown"),
    [
        ("See [the guide](:/0f3abc) now", "See the guide now"),  # a link: its text
        ('![screenshot](:/123 "title") below', "screenshot below"),  # an image: its alt text
        ("an `INSERT` or `UPDATE`", "an INSERT or UPDATE"),
        ("this is **important** and __so__ is this", "this is important and so is this"),
        ("bold, _italic_ and *em* too", "bold, italic and em too"),  # were kept as typed
        ("```sql SELECT 1; ``` done", "SELECT 1; done"),  # a fence and its language
        ("> quoted text *** after a rule", "quoted text after a rule"),
        ("…cut   across\n\nlines…", "…cut across lines…"),
    ],
)
def test_markdown_marks_are_left_out(markdown: str, shown: str) -> None:
    assert readable(markdown) == shown


@pytest.mark.parametrize(
    "text",
    [
        "x*y and *.txt",
        "snake_case_name",
        "C# and #tag",
        "a --- b",
        "1 > 0",
        "5 * 3",
        "[not a link]",
        "a*b*c",
        "2 * 3 * 4",
        "my_var and _lead",
    ],  # fmt: skip
)
def test_text_that_only_looks_like_markdown_stays(text: str) -> None:
    assert readable(text) == text


@given(st.text(max_size=300), st.one_of(st.none(), st.text(max_size=40)))
def test_any_snippet_gives_text_without_failing_or_growing(snippet: str, heading: str | None) -> None:
    shown = readable(snippet, heading)
    assert len(shown) <= len(snippet)
    assert shown == shown.strip() and "  " not in shown


@pytest.mark.parametrize(
    ("snippet", "shown"),
    [
        ("…## Q1 The quarterly budget", "…Q1 The quarterly budget"),
        ("…> quoted advice here…", "…quoted advice here…"),
        ("…``` sql DROP VIEW v", "…sql DROP VIEW v"),
        ("…*** next part", "…next part"),
    ],
)
def test_a_mark_the_cut_left_at_the_snippets_start_is_left_out(snippet: str, shown: str) -> None:
    """A snippet cut just before a heading (``catal*`` on a note whose first match follows
    ``## Q1``) showed ``…## Q1``: the marks are found after a space or at the start, and the
    ``…`` of the cut stood before them."""
    assert readable(snippet) == shown
