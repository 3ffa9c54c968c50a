"""The outline and sections of a note over ``notes.largeNoteChars`` are those of its opening, said so.

Parsing all of a 39 MB note took 20 s for ``noted show --outline`` and for ``read_note`` with
``outline=true`` or ``section``; the reader, snippets and indexer already looked at the opening only.
The notes here are small (60,000 characters) with a small limit, so the same code runs as on a huge
note: each test names a section past the opening too, which a whole parse would list, so it can fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.tools_env import Env, make_env
from tests.unit.test_large_notes import long_body

from noted.markdown import opening, outline
from noted.ops.links import note_links
from noted.search.stale import Place, current_place
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.store.sqlite import SqliteStore

PART = 20_000


def test_the_outline_of_a_long_body_is_its_openings_and_says_so() -> None:
    body = long_body()
    tree, whole = outline(body, PART), outline(body)
    shown = opening(body, PART)
    assert tree.sections == outline(shown).sections  # right for the part it covers
    assert [s.heading for s in tree.headings][:2] == ["Section 0", "Section 1"]
    assert "The end" in [s.heading for s in whole.headings] and not tree.find("The end")
    assert tree.partial == (
        f"Partial outline: of the first {len(shown):,} of {len(body):,} characters "
        "(notes.largeNoteChars); headings further down are not listed."
    )
    assert tree.cut(tree.sections[-1]) and not tree.cut(tree.sections[1])
    assert whole.partial is None and outline(body, len(body)).partial is None


@pytest.fixture
def env(store: SqliteStore, tmp_path: Path) -> Env:
    made = make_env(store, tmp_path)
    made.settings.set(LARGE_NOTE_CHARS, PART)
    return made


async def test_read_note_outline_and_sections_of_a_large_note(env: Env) -> None:
    body = long_body()
    note = env.note(env.folder("Big"), "Huge manual", body)
    got = await env.ok("read_note", id=note, outline=True)
    lines = got["outline"].split("\n")
    assert lines[0].endswith("\t(top)") and lines[1].endswith("\tSection 0")
    assert not any(line.endswith("\tThe end") for line in lines)  # past the opening
    assert got["partial"] == outline(body, PART).partial and got["body_length"] == len(body)
    section = await env.ok("read_note", id=note, section="Section 2")
    assert section["section"]["path"] == "3" and section["body"].startswith("## Section 2\n")
    assert "partial" not in section  # a section inside the opening is whole
    last = outline(body, PART).sections[-1]
    cut = await env.ok("read_note", id=note, section=last.path)
    assert cut["partial"] == got["partial"]  # it may go on past the opening
    missing = await env.error("read_note", id=note, section="The end")
    assert "Partial outline: of the first" in (missing.message or "")
    whole = await env.ok("read_note", id=note, max_chars=0)
    assert whole["body"] == body  # the text itself is still given whole


async def test_a_small_note_has_a_whole_outline(env: Env) -> None:
    note = env.note(env.folder("F"), "Doc", "# One\ntext\n")
    got = await env.ok("read_note", id=note, outline=True)
    assert got["outline"] == "1\t11\tOne" and "partial" not in got


def test_a_stale_chunk_of_a_large_note_is_placed_again_in_its_opening() -> None:
    body = long_body()
    section = outline(body).find("Section 3")[0]
    place = Place(section.path, section.heading, section.start, section.end)
    # The text at the chunk's offsets changed (the hash is another's): placed again by heading.
    again = current_place(place, body, lead="", index=1, embedded="not this text", limit=PART)
    assert (again.path, again.heading) == ("4", "Section 3") and body[again.start :].startswith(
        "## Section 3\n"
    )
    far = outline(body).find("The end")[0]
    gone = Place(far.path, far.heading, far.start, far.end)
    moved = current_place(gone, body, lead="", index=1, embedded="not this text", limit=PART)
    assert moved.path == "0" and moved.end <= PART  # past the opening: its first section


def test_a_link_to_a_heading_of_a_large_note_is_looked_for_in_its_opening(env: Env) -> None:
    folder = env.folder("Links")
    env.note(folder, "Huge manual", long_body())
    source = env.note(
        folder, "Index", "[[Huge manual#Section 2]] [[Huge manual#The end]] [[Huge manual#Nowhere]]"
    )
    links = note_links(env.store, env.ctx.keyword, source, part_chars=PART).outgoing
    assert [(k.heading, k.section, k.broken) for k in links] == [
        ("Section 2", "3", ""),  # the right section, in the opening
        ("The end", "", ""),  # past the opening: neither named nor called broken
        ("Nowhere", "", 'no heading "Nowhere" in "Huge manual"'),  # its words are nowhere
    ]
    whole = note_links(env.store, env.ctx.keyword, source, part_chars=None).outgoing
    assert whole[1].section != "" and whole[2].broken  # parsed whole, both are known
