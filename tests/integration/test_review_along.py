"""One change of a model is settled in one place: the notes a notebook took to the trash, or a
deleted tag came off, are folded under the notebook's or the tag's entry and settled with it; a
tag a model made with a note goes when the note's making is reverted.

Every change is made through the real tool registry as the assistant (``tests.support.tools_env``),
on the embedded store, the Markdown folder and a real Joplin, and checked in the store afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import open_backend
from tests.support.tools_env import MANAGE_TOOLS, WRITE_TOOLS, Env, make_env, review_of

from noted.models import ACTOR_USER, Tag
from noted.ops import review, review_actions
from noted.ops.review import Review
from noted.ops.review_list import items
from noted.store.review import EntryState


@pytest.fixture(params=("sqlite", "vault", "joplin"))
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield make_env(store, tmp_path, enabled=(*WRITE_TOOLS, *MANAGE_TOOLS))


def _states(found: Review, note_ids: list[str]) -> dict[str, EntryState]:
    return {e.note_id: e.state for e in found.rows.entries(state=None) if e.note_id in note_ids}


def _tagged(env: Env, folder: str, count: int) -> tuple[list[str], Tag]:
    """``count`` notes in ``folder``, each tagged "urgent" by the person."""
    notes = [env.note(folder, f"Note {i}") for i in range(count)]
    for note in notes:
        env.store.tag_note(note, ["urgent"], actor=ACTOR_USER)
    tag = env.store.find_tag("urgent")
    assert tag is not None
    return notes, tag


async def test_a_trashed_notebooks_notes_are_folded_under_it_and_reverted_with_it(env: Env) -> None:
    """Only the notes that went to the trash with the notebook: the note the model also edited
    keeps its own entry, and the note the person had trashed is neither listed nor brought back."""
    work = env.folder("Work")
    inner = env.folder("Inner", parent=work)
    a, b, c = env.note(work, "A", "a\n"), env.note(work, "B", "b\n"), env.note(inner, "C", "c\n")
    mine = env.note(work, "Mine", "the person's\n")
    env.store.trash_note(mine, actor=ACTOR_USER)
    found = review_of(env.store)
    await env.ok("update_note", id=b, append="the model's line")
    await env.ok("delete_notebook", id=work)
    found.refresh()

    top = {e.note_id: e for e in found.pending(along=False)}
    assert set(top) == {work, b}  # B was edited too: its entry stands on its own
    along = {e.note_id: e.id for _, e in found.rows.along([top[work].id])}
    assert set(along) == {a, c, inner}  # (C was in a sub-notebook, which went along too)
    listing = items(found)
    assert listing.total == 2  # the notebook's change and B's
    assert {r.note_id: r.under for r in listing.rows if r.under} == dict.fromkeys(along, str(top[work].id))

    reverted = review_actions.revert(found, top[work].id)
    assert sorted(reverted.along) == sorted(along.values())
    assert _states(found, [a, c, inner]) == dict.fromkeys([a, c, inner], EntryState.REVERTED)
    assert found.rows.entry(top[b].id).state is EntryState.PENDING
    assert not any(env.store.get_note(n).is_trashed for n in (a, b, c))
    assert env.store.get_note(mine).is_trashed
    found.refresh()
    assert [e.note_id for e in found.pending()] == [b]


async def test_a_deleted_tags_notes_are_accepted_with_it_and_one_can_still_be_reverted_alone(
    env: Env,
) -> None:
    folder = env.folder("Work")
    notes, tag = _tagged(env, folder, 3)
    found = review_of(env.store)
    await env.ok("delete_tag", id=tag.id)
    found.refresh()
    (entry,) = found.pending(along=False)
    under = {e.note_id: e.id for _, e in found.rows.along([entry.id])}
    assert set(under) == set(notes)

    assert review_actions.revert(found, under[notes[0]]).kept == ()  # one note alone
    assert [t.title for t in env.store.note_tags(notes[0])] == ["urgent"]
    assert [t.title for t in env.store.note_tags(notes[1])] == []
    marked = review_actions.accept(found, [entry.id])
    assert sorted(marked) == sorted([entry.id, under[notes[1]], under[notes[2]]])
    assert found.pending() == []


@pytest.mark.parametrize("notebook_first", (True, False))
async def test_a_notebook_and_its_notes_reverted_together_are_each_undone_once(
    env: Env, notebook_first: bool
) -> None:
    work = env.folder("Work")
    a, b = env.note(work, "A", "a\n"), env.note(work, "B", "b\n")
    found = review_of(env.store)
    await env.ok("delete_notebook", id=work)
    found.refresh()
    ids = {e.note_id: e.id for e in found.pending()}
    asked = [ids[work], ids[a], ids[b]] if notebook_first else [ids[b], ids[a], ids[work]]
    done = list(review_actions.revert_together(found, asked))
    assert [r.entry.id for r in done] == [ids[work]]  # its notes were settled with it
    assert found.pending() == []
    assert not env.store.get_note(a).is_trashed and not env.store.get_note(b).is_trashed


async def test_a_tag_the_model_made_with_its_note_goes_when_the_notes_making_is_reverted(env: Env) -> None:
    work = env.folder("Work")
    found = review_of(env.store)
    note = (await env.ok("create_note", title="N", body="x\n", notebook_id=work, tags=["fresh"]))["id"]
    found.refresh()
    (entry,) = found.pending()  # the tag has no entry: the note's says "tagged fresh"
    assert review_actions.revert(found, entry.id).kept == ()
    assert env.store.get_note(note).is_trashed
    assert env.store.find_tag("fresh") is None


async def test_a_tag_the_model_made_goes_when_the_person_takes_it_off_by_hand(env: Env) -> None:
    """Settled by hand as a revert is settled: the tag the change made goes once nothing holds it,
    and stays while another note does (not vacuous: before, the settled entry left "botmade" in
    the tag list with no note, where ``noted changes revert`` deleted it)."""
    work = env.folder("Work")
    note, other = env.note(work, "N", "x\n"), env.note(work, "Other", "y\n")
    found = review_of(env.store)
    await env.ok("manage_tags", note_id=note, add=["botmade", "kept"])
    found.refresh()
    (entry,) = found.pending()
    assert entry.detail.get("tags_made")  # the precondition: the change made both tags
    env.store.tag_note(other, ["kept"], actor=ACTOR_USER)
    env.store.untag_note(note, ["botmade", "kept"], actor=ACTOR_USER)
    found.refresh()
    assert found.rows.entry(entry.id).state is EntryState.REVERTED
    assert env.store.find_tag("botmade") is None
    assert env.store.find_tag("kept") is not None


@pytest.mark.parametrize("tag_first", (True, False))
async def test_a_tag_and_a_note_the_model_made_reverted_together_both_go(env: Env, tag_first: bool) -> None:
    work = env.folder("Work")
    found = review_of(env.store)
    tag = (await env.ok("create_tag", title="later"))["id"]
    note = (await env.ok("create_note", title="N", body="x\n", notebook_id=work, tags=["later"]))["id"]
    found.refresh()
    ids = {e.note_id: e.id for e in found.pending()}
    asked = [ids[tag], ids[note]] if tag_first else [ids[note], ids[tag]]
    # In the order ``noted changes revert`` and Space + r take them (``revert_together``).
    assert [
        k for i in review_actions.in_order(found, asked) for k in review_actions.revert(found, i).kept
    ] == []
    assert env.store.get_note(note).is_trashed
    assert env.store.find_tag("later") is None


async def test_a_tag_on_a_note_the_person_trashed_stays(env: Env) -> None:
    """The unused check still counts a note in the trash that is not an undone making (not
    vacuous on Joplin: its ``/tags/ID/notes`` leaves the trashed note out, and the tag went)."""
    work = env.folder("Work")
    found = review_of(env.store)
    await env.ok("create_tag", title="later")
    mine = env.note(work, "Mine")
    env.store.tag_note(mine, ["later"], actor=ACTOR_USER)
    env.store.trash_note(mine, actor=ACTOR_USER)
    found.refresh()
    (entry,) = found.pending()
    kept = review_actions.revert(found, entry.id).kept
    assert kept == ("it is on 1 note now, so it stays (delete it yourself if you want it gone)",)
    assert env.store.find_tag("later") is not None


async def test_a_change_split_across_pages_of_the_feed_is_read_whole(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = env.folder("Work")
    notes, tag = _tagged(env, folder, 4)
    found = review_of(env.store)
    env.note(folder, "Late", "after the tag\n")  # the person's, first on the page
    await env.ok("delete_tag", id=tag.id)
    monkeypatch.setattr(review, "PAGE", 3)  # the tag's row and its notes' rows fall on two pages
    found.refresh()
    (entry,) = found.pending(along=False)
    assert {e.note_id for _, e in found.rows.along([entry.id])} == set(notes)
