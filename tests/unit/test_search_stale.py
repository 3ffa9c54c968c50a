"""A chunk found by meaning in a note edited since it was indexed is shown where it is now.

The index keeps each chunk's offsets and the hash of its text; an edit the indexer has not
followed yet moves the text, so the old offsets would cut the new body anywhere.
"""

from __future__ import annotations

from noted.indexer.chunking import content_hash
from noted.search.stale import Place, current_place
from noted.settings.handles import LARGE_NOTE_CHARS

LEAD = "Trip\n\n"
PART = LARGE_NOTE_CHARS.default
OLD = "# Plan\n\nFly on Monday.\n\n# Packing\n\nLight clothes, a rain jacket, comfortable shoes.\n"
PACKING = Place("2", "Packing", OLD.index("# Packing"), len(OLD) - 1)
STORED = content_hash(OLD[PACKING.start : PACKING.end])


def test_a_chunk_whose_text_is_still_there_keeps_its_place() -> None:
    assert current_place(PACKING, OLD, lead=LEAD, index=1, embedded=STORED, limit=PART) == PACKING
    first = Place("1", "Plan", 0, OLD.index("\n\n# Packing"))
    led = content_hash(LEAD + OLD[first.start : first.end])  # the first chunk is led by the title
    assert current_place(first, OLD, lead=LEAD, index=0, embedded=led, limit=PART) == first


def test_after_text_was_added_above_a_chunk_is_found_at_its_heading() -> None:
    new = OLD.replace("Fly on Monday.", "Fly on Monday, early, with a stop in Lisbon for two days.")
    place = current_place(PACKING, new, lead=LEAD, index=1, embedded=STORED, limit=PART)
    # The old offsets now cut "…days.\n\n# Packing\n\nLight clothes, a rain jacket, comfortable sh".
    assert new[place.start : place.end] == "# Packing\n\nLight clothes, a rain jacket, comfortable shoes."
    assert (place.path, place.heading) == ("2", "Packing")


def test_without_its_heading_a_chunk_is_shown_at_the_opening_cut_between_words() -> None:
    new = "Nothing about a trip any more. " * 20
    place = current_place(PACKING, new, lead=LEAD, index=1, embedded=STORED, limit=PART)
    text = new[place.start : place.end]
    assert place.start == 0 and (place.path, place.heading) == ("0", "")
    assert new.startswith(text) and 0 < len(text) < len(new) and new[place.end] == " "


def test_a_note_emptied_since_has_nothing_to_show() -> None:
    assert current_place(PACKING, "", lead=LEAD, index=1, embedded=STORED, limit=PART) == Place("0", "", 0, 0)


def test_a_heading_written_twice_is_found_at_the_same_place() -> None:
    old = "# Day 1\n\n## Notes\n\nRain.\n\n# Day 2\n\n## Notes\n\nSun all day.\n"
    second = Place("2.1", "Notes", old.rindex("## Notes"), len(old) - 1)
    stored = content_hash(old[second.start : second.end])
    new = old.replace("Rain.", "Rain, then wind.")
    place = current_place(second, new, lead=LEAD, index=2, embedded=stored, limit=PART)
    assert (place.path, new[place.start : place.end]) == ("2.1", "## Notes\n\nSun all day.")
