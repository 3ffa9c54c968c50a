"""A diff of a note's first revision, or of a note an assistant created, is against nothing.

The history's first revision showed ``--- (nothing before)`` and then ``-#``: the empty note it was
compared with still had its ``# title`` line, so a line was said to be taken away from nothing.
"""

from __future__ import annotations

from noted.ops.diffs import text_diff


def test_a_diff_against_nothing_only_adds() -> None:
    diff = text_diff(None, ("Plan", "one\ntwo\n"), ("(nothing before)", "revision 1"))
    body = diff.splitlines()[2:]  # after the ---/+++ labels
    # Not vacuous: "-#" was among them.
    assert [line for line in body if line.startswith("-")] == []
    assert "+# Plan" in body and "+one" in body and "+two" in body


def test_a_diff_against_an_empty_note_still_shows_its_title_line() -> None:
    diff = text_diff(("", ""), ("Plan", ""), ("before", "after"))
    assert "-# " in diff.splitlines() and "+# Plan" in diff.splitlines()
