"""``noted.ops.conflicts.clean_merge`` over small texts, with and without a final newline.

The final newline was a line of its own (``"a\\n".split("\\n")`` ends with ``""``), which the line
diff paired with a blank line the other side added: an editor adding the final newline that noted's
text lacked (a Markdown folder's file saved by it) clashed with a blank line added at the end
elsewhere, or doubled it. Not vacuous: the texts are made of blank and non-blank lines, so blank
lines and final newlines meet in every arrangement.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from noted.ops.conflicts import clean_merge

TEXTS = st.builds(
    lambda lines, final: "\n".join(lines) + ("\n" if final else ""),
    st.lists(st.sampled_from(["a", "b", ""]), max_size=4),
    st.booleans(),
)


def _toggled(text: str) -> str:
    """``text`` with its final newline added, or taken off."""
    return text[:-1] if text.endswith("\n") else text + "\n"


@given(TEXTS, TEXTS, TEXTS)
def test_a_side_that_changed_nothing_gives_the_other_and_the_sides_merge_alike(
    base: str, theirs: str, mine: str
) -> None:
    assert clean_merge(base, base, mine) == mine
    assert clean_merge(base, theirs, base) == theirs
    assert clean_merge(base, mine, mine) == mine
    assert clean_merge(base, theirs, mine) == clean_merge(base, mine, theirs)


@given(TEXTS, TEXTS)
def test_a_final_newline_added_or_dropped_merges_with_any_change_of_the_lines(base: str, mine: str) -> None:
    """One side only adds or drops the final newline; the other changes lines and keeps the final
    newline as it was: the merge is the other side's lines, its final newline as the first made it.
    (A base ending in a blank line is left out: there, dropping the final newline *is* dropping
    that blank line, a change of lines.)"""
    if base.removesuffix("\n").endswith("\n") or base.endswith("\n") != mine.endswith("\n"):
        return
    assert clean_merge(base, _toggled(base), mine) == _toggled(mine)
    assert clean_merge(base, mine, _toggled(base)) == _toggled(mine)


def test_blank_lines_beside_a_final_newline_added_or_dropped_elsewhere() -> None:
    """The cases the properties found on the old pairing, written out."""
    assert clean_merge("a", "a\n", "a\n\nb") == "a\n\nb\n"  # was a clash
    assert clean_merge("", "\n", "a\n") == "a\n"  # both added it: was "a\n\n", a blank line doubled
    assert clean_merge("a\n", "a", "a\n\nb\n") == "a\n\nb"  # was "a\nb\n": the blank line lost
    assert clean_merge("a\nb", "a\nb\n", "a\nc") == "a\nc\n"
