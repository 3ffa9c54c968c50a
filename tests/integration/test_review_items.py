"""What a model does to notebooks and tags, reviewed and reverted like its changes to notes.

Every change is made through the real tool registry as the assistant (``tests.support.tools_env``),
on the embedded store, the Markdown folder (whose mirror keeps the feed) and a real Joplin (whose
sidecar's feed keeps the state noted's own writes left).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import body_with_ids, open_backend
from tests.support.tools_env import ACTOR, MANAGE_TOOLS, WRITE_TOOLS, Env, make_env, review_of

from noted.errors import NotedError
from noted.models import ACTOR_SYNC, ACTOR_USER, NotePatch
from noted.ops import notebooks, review_actions
from noted.ops.review import Review, summary
from noted.store.history.thinning import DAY_MS
from noted.store.review import EntryRow, EntryState


@pytest.fixture(params=("sqlite", "vault", "joplin"))
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield make_env(store, tmp_path, enabled=(*WRITE_TOOLS, *MANAGE_TOOLS))


def _only(review: Review, kind: str) -> EntryRow:
    review.refresh()
    found = [e for e in review.pending() if e.detail.get("kind", "note") == kind]
    assert len(found) == 1, review.pending()
    return found[0]


def _line(review: Review, entry: EntryRow) -> str:
    return summary(entry, {f.id: f.title for f in review.store.list_folders(include_trashed=True)})


async def test_a_rename_and_a_move_are_one_entry_and_revert_puts_both_back(env: Env) -> None:
    top = env.folder("Top")
    work = env.folder("Projects")
    review = review_of(env.store)
    await env.ok("update_notebook", id=work, title="Work")
    await env.ok("update_notebook", id=work, parent_id=top)
    entry = _only(review, "notebook")
    assert entry.actor == ACTOR and entry.note_id == work
    assert _line(review, entry) == 'renamed from "Projects", moved into "Top"'
    assert 'title: "Projects" → "Work"' in review_actions.show(review, entry.id).text

    reverted = review_actions.revert(review, entry.id)
    assert reverted.kept == ()
    folder = env.store.get_folder(work)
    assert (folder.title, folder.parent_id) == ("Projects", "")
    assert review.rows.entry(entry.id).state is EntryState.REVERTED
    review.refresh()
    assert review.pending() == []  # the revert is the person's: nothing new to review


async def test_a_notebook_the_person_renamed_and_moved_since_keeps_the_persons_change(env: Env) -> None:
    elsewhere = env.folder("Elsewhere")
    work = env.folder("Projects")
    review = review_of(env.store)
    await env.ok("update_notebook", id=work, title="Work", parent_id=env.folder("Top"))
    notebooks.update_notebook(env.store, work, title="Mine", parent_id=elsewhere, actor=ACTOR_USER)
    entry = _only(review, "notebook")
    reverted = review_actions.revert(review, entry.id)
    assert any('renamed again since: it stays "Mine"' in k for k in reverted.kept), reverted.kept
    assert any('moved again since: it stays in "Elsewhere"' in k for k in reverted.kept), reverted.kept
    folder = env.store.get_folder(work)
    assert (folder.title, folder.parent_id) == ("Mine", elsewhere)


async def test_a_trashed_notebook_comes_back_with_its_notes_and_a_restored_one_goes_back(env: Env) -> None:
    old = env.folder("Old")
    note = env.note(old, "Inside", "text\n")
    review = review_of(env.store)
    await env.ok("delete_notebook", id=old)
    entry = _only(review, "notebook")
    assert _line(review, entry) == "moved to the trash"
    # The note went with it, and its own entry says so (its feed row keeps it in the trash now).
    (note_entry,) = [e for e in review.pending() if e.note_id == note]
    assert "trashed" in _line(review, note_entry)
    review_actions.revert(review, entry.id)
    assert not env.store.get_folder(old).is_trashed and not env.store.get_note(note).is_trashed

    notebooks.trash_notebook(env.store, old, actor=ACTOR_USER)
    review.refresh()
    await env.ok("restore_notebook", id=old)
    review.refresh()
    restored = [e for e in review.pending() if e.note_id == old]
    assert [_line(review, e) for e in restored] == ["restored from the trash"]
    review_actions.revert(review, restored[0].id)
    assert env.store.get_folder(old).is_trashed and env.store.get_note(note).is_trashed


async def test_reverting_a_models_restore_keeps_the_notebook_the_person_put_a_note_in_since(
    env: Env,
) -> None:
    home = env.folder("Home")
    old = env.note(home, "Old", "text\n")
    notebooks.trash_notebook(env.store, home, actor=ACTOR_USER)
    review = review_of(env.store)
    await env.ok("restore_notebook", id=home)
    mine = env.note(home, "Mine", "the person's\n")  # after the model's restore
    entry = _only(review, "notebook")
    reverted = review_actions.revert(review, entry.id)
    assert reverted.kept == (
        "1 note was put or changed in it since, so it stays "
        "(trash it yourself, with what it holds, if you want it gone)",
    )
    assert not env.store.get_folder(home).is_trashed
    assert not env.store.get_note(mine).is_trashed and not env.store.get_note(old).is_trashed


async def test_a_tag_renamed_then_deleted_in_one_burst_comes_back_under_its_first_title(env: Env) -> None:
    note = env.note(env.folder("Work"), "W1")
    env.store.tag_note(note, ["alpha"], actor=ACTOR_USER)
    tag = env.store.find_tag("alpha")
    assert tag is not None
    review = review_of(env.store)
    await env.ok("rename_tag", id=tag.id, title="beta")
    await env.ok("delete_tag", id=tag.id)
    review.refresh()
    (entry,) = review.pending(along=False)  # the note's "untagged" went with the tag's deletion
    (untagged,) = [e.id for e in review.pending() if e.note_id == note]
    assert review_actions.revert(review, entry.id).along == (untagged,)
    assert review.pending() == []
    assert [t.title for t in env.store.note_tags(note)] == ["alpha"]
    assert env.store.find_tag("beta") is None


def _revert_together(review: Review, ids: list[int]) -> list[str]:
    """Revert entries in one go, as ``noted changes revert`` and the Changes view's Space + r do."""
    return [k for reverted in review_actions.revert_together(review, ids) for k in reverted.kept]


@pytest.mark.parametrize("notebook_first", (True, False))
async def test_a_notebook_the_model_made_and_filled_goes_with_its_note_in_either_order(
    env: Env, notebook_first: bool
) -> None:
    review = review_of(env.store)
    trip = (await env.ok("create_notebook", title="Trip"))["id"]
    note = (await env.ok("create_note", title="Packing", body="tent\n", notebook_id=trip))["id"]
    review.refresh()
    by_item = {e.note_id: e.id for e in review.pending()}
    ids = [by_item[trip], by_item[note]] if notebook_first else [by_item[note], by_item[trip]]
    assert _revert_together(review, ids) == []
    assert env.store.get_folder(trip).is_trashed and env.store.get_note(note).is_trashed


@pytest.mark.parametrize("notebook_first", (True, False))
async def test_a_notebook_the_model_trashed_comes_back_whole_in_either_order(
    env: Env, notebook_first: bool
) -> None:
    work = env.folder("Work")
    a, b = env.note(work, "A", "a\n"), env.note(work, "B", "b\n")
    review = review_of(env.store)
    await env.ok("delete_notebook", id=work)
    review.refresh()
    by_item = {e.note_id: e.id for e in review.pending()}
    ids = [by_item[work], by_item[a]] if notebook_first else [by_item[a], by_item[work]]
    assert _revert_together(review, ids) == []
    # B has an entry of its own, not reverted: it still came back with its notebook, as it went.
    assert not env.store.get_folder(work).is_trashed
    assert not env.store.get_note(a).is_trashed and not env.store.get_note(b).is_trashed


async def test_a_trashed_notebook_reverted_after_one_of_its_notes_brings_back_the_others(env: Env) -> None:
    """Reverting note A's entry alone brings its notebook back; the notebook's own revert, later,
    still brings back B, which went to the trash with it."""
    work = env.folder("Work")
    a, b = env.note(work, "A", "a\n"), env.note(work, "B", "b\n")
    review = review_of(env.store)
    await env.ok("delete_notebook", id=work)
    review.refresh()
    by_item = {e.note_id: e.id for e in review.pending()}
    assert review_actions.revert(review, by_item[a]).kept == ()
    assert not env.store.get_folder(work).is_trashed and env.store.get_note(b).is_trashed
    assert review_actions.revert(review, by_item[work]).kept == ()
    assert not env.store.get_note(b).is_trashed


async def test_a_notebook_made_by_the_model_is_trashed_only_while_empty(env: Env) -> None:
    review = review_of(env.store)
    made = (await env.ok("create_notebook", title="Scratch"))["id"]
    kept = (await env.ok("create_notebook", title="Ideas"))["id"]
    env.note(kept, "The person's note")  # the person put a note in it
    review.refresh()
    entries = {e.note_id: e for e in review.pending()}
    assert _line(review, entries[made]) == "created"

    assert review_actions.revert(review, entries[made].id).kept == ()
    assert env.store.get_folder(made).is_trashed
    reverted = review_actions.revert(review, entries[kept].id)
    assert reverted.kept == (
        "it holds 1 note now, so it stays (trash it yourself, with what it holds, if you want it gone)",
    )
    assert not env.store.get_folder(kept).is_trashed


async def test_a_tag_made_by_the_model_is_deleted_unless_a_note_carries_it_now(env: Env) -> None:
    folder = env.folder("Work")
    note = env.note(folder, "Plan")
    review = review_of(env.store)
    await env.ok("create_tag", title="later")
    await env.ok("create_tag", title="urgent")
    env.store.tag_note(note, ["urgent"], actor=ACTOR_USER)
    review.refresh()
    entries = {e.title: e for e in review.pending()}
    assert _line(review, entries["later"]) == "created"
    assert review_actions.revert(review, entries["later"].id).kept == ()
    assert env.store.find_tag("later") is None
    kept = review_actions.revert(review, entries["urgent"].id).kept
    assert kept == ("it is on 1 note now, so it stays (delete it yourself if you want it gone)",)
    assert [t.title for t in env.store.note_tags(note)] == ["urgent"]


async def test_tagging_a_note_with_a_new_tag_is_the_notes_entry_only(env: Env) -> None:
    note = env.note(env.folder("Work"), "Plan")
    review = review_of(env.store)
    await env.ok("manage_tags", note_id=note, add=["fresh"])
    review.refresh()
    assert [(e.note_id, _line(review, e)) for e in review.pending()] == [(note, "tagged fresh")]


async def test_a_tag_rename_is_reverted_unless_renamed_again(env: Env) -> None:
    note = env.note(env.folder("Work"), "Plan")
    env.store.tag_note(note, ["todo", "misc"], actor=ACTOR_USER)
    todo, misc = (env.store.find_tag(t) for t in ("todo", "misc"))
    assert todo is not None and misc is not None
    review = review_of(env.store)
    await env.ok("rename_tag", id=todo.id, title="tasks")
    await env.ok("rename_tag", id=misc.id, title="other")
    notebooks.rename_tag(env.store, misc.id, "various", actor=ACTOR_USER)
    review.refresh()
    entries = {e.note_id: e for e in review.pending() if e.detail.get("kind") == "tag"}
    assert _line(review, entries[todo.id]) == 'renamed from "todo"'
    assert review_actions.revert(review, entries[todo.id].id).kept == ()
    kept = review_actions.revert(review, entries[misc.id].id).kept
    assert kept == ('it was renamed again since: it stays "various"',)
    assert sorted(t.title for t in env.store.note_tags(note)) == ["todo", "various"]


async def test_a_deleted_tag_comes_back_on_the_notes_that_had_it(env: Env) -> None:
    folder = env.folder("Work")
    notes = [env.note(folder, f"Note {i}") for i in range(3)]
    for note in notes:
        env.store.tag_note(note, ["urgent"], actor=ACTOR_USER)
    tag = env.store.find_tag("urgent")
    assert tag is not None
    review = review_of(env.store)
    await env.ok("delete_tag", id=tag.id)
    entry = _only(review, "tag")
    assert _line(review, entry) == "deleted (was on 3 notes)"
    # Each note's own entry names the tag it lost (its feed row is written after the delete).
    assert {_line(review, e) for e in review.pending() if e.note_id in notes} == {"untagged urgent"}
    # The person deletes one of the notes for good: the tag comes back on the other two.
    env.store.trash_note(notes[0], actor=ACTOR_USER)
    env.store.empty_trash(actor=ACTOR_USER)

    reverted = review_actions.revert(review, entry.id)
    assert reverted.kept == ("1 note that carried it was deleted for good since",)
    for note in notes[1:]:
        assert [t.title for t in env.store.note_tags(note)] == ["urgent"]


async def test_the_persons_own_changes_make_no_entry(env: Env) -> None:
    folder = env.folder("Work")
    review = review_of(env.store)
    notebooks.update_notebook(env.store, folder, title="Job", actor=ACTOR_USER)
    notebooks.create_tag(env.store, "mine", actor=ACTOR_USER)
    review.refresh()
    assert review.pending() == []


async def test_a_notebook_deleted_for_good_by_another_actor_says_it_cannot_be_reverted(env: Env) -> None:
    gone = env.folder("Gone")
    env.store.trash_folder(gone, actor=ACTOR_USER)
    review = review_of(env.store)
    env.store.empty_trash(actor=ACTOR_SYNC)  # as a sync from another device would
    entry = _only(review, "notebook")
    assert "cannot be reverted" in _line(review, entry)
    with pytest.raises(NotedError, match="cannot be reverted"):
        review_actions.revert(review, entry.id)
    assert review.rows.entry(entry.id).state is EntryState.PENDING  # nothing was marked


async def test_a_model_rename_of_a_note_keeps_working_beside_notebook_entries(env: Env) -> None:
    folder = env.folder("Work")
    note = env.note(folder, "Plan", "one\n")
    review = review_of(env.store)
    await env.ok("update_notebook", id=folder, title="Job")
    await env.ok("update_note", id=note, append="two")
    review.refresh()
    assert {e.detail.get("kind", "note") for e in review.pending()} == {"note", "notebook"}
    env.store.update_note(note, NotePatch(append="three"), actor=ACTOR_USER)
    for entry in review.pending():
        review_actions.accept(review, [entry.id])
    assert review.pending() == []


# Attachments ---------------------------------------------------------------------------------


def _attachment(env: Env, data: bytes = b"first bytes") -> tuple[str, str]:
    """An attachment the person attached to a note of theirs: (attachment id, note id)."""
    res = env.store.add_resource(data, filename="plan.txt", mime="text/plain", actor=ACTOR_USER)
    note = env.note(env.folder("Docs"), "Plan", f"[plan.txt](:/{res.id})")
    return res.id, note


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode()


async def test_a_replaced_attachment_is_reviewed_and_revert_brings_the_old_file_back(env: Env) -> None:
    res_id, _ = _attachment(env)
    review = review_of(env.store)
    await env.ok("replace_attachment", id=res_id, content_base64=_b64(b"model's bytes"), filename="plan2.txt")
    entry = _only(review, "attachment")
    assert entry.actor == ACTOR and entry.note_id == res_id
    assert _line(review, entry) == 'replaced by another file (was "plan.txt")'
    shown = review_actions.show(review, entry.id).text
    assert 'before it: "plan.txt", 11 bytes' in shown

    reverted = review_actions.revert(review, entry.id)
    assert reverted.kept == ()
    assert env.store.read_resource(res_id) == b"first bytes"
    assert env.store.get_resource(res_id).filename == "plan.txt"
    review.refresh()
    assert review.pending() == []  # the revert is the person's


async def test_a_deleted_attachment_is_brought_back_by_revert_under_its_id(env: Env) -> None:
    res_id, note = _attachment(env)
    review = review_of(env.store)
    await env.ok("delete_attachment", id=res_id)
    entry = _only(review, "attachment")
    assert "deleted" in _line(review, entry)
    review_actions.revert(review, entry.id)
    assert env.store.read_resource(res_id) == b"first bytes"
    assert f":/{res_id}" in body_with_ids(env.store, note)  # the link works again


async def test_an_attachment_the_person_replaced_since_stays_as_the_person_left_it(env: Env) -> None:
    res_id, _ = _attachment(env)
    review = review_of(env.store)
    await env.ok("replace_attachment", id=res_id, content_base64=_b64(b"model's bytes"))
    env.store.replace_resource(res_id, b"person's bytes", actor=ACTOR_USER)
    entry = _only(review, "attachment")
    reverted = review_actions.revert(review, entry.id)
    assert any("replaced again since" in k for k in reverted.kept), reverted.kept
    assert env.store.read_resource(res_id) == b"person's bytes"


async def test_the_persons_attachment_changes_and_a_models_attaching_make_no_attachment_entry(
    env: Env,
) -> None:
    res_id, note = _attachment(env)
    review = review_of(env.store)
    env.store.replace_resource(res_id, b"person's bytes", actor=ACTOR_USER)
    await env.ok(
        "attach_file", note_id=note, filename="more.txt", mime="text/plain", content_base64=_b64(b"x")
    )
    review.refresh()
    kinds = [e.detail.get("kind", "note") for e in review.pending()]
    assert kinds == ["note"]  # the note's entry shows the link the model added


async def test_an_attachments_file_name_and_title_changes_are_shown_as_such(env: Env) -> None:
    res_id, _ = _attachment(env)
    review = review_of(env.store)
    await env.ok(
        "replace_attachment",
        id=res_id,
        content_base64=_b64(b"first bytes"),
        filename="plan3.txt",
        title="The plan",
    )
    shown = review_actions.show(review, _only(review, "attachment").id).text
    assert 'file name: "plan.txt" → "plan3.txt"' in shown and 'title: "plan.txt" → "plan3.txt"' not in shown
    assert 'title: "plan.txt" → "The plan"' in shown  # the attachment's title was its file name


async def test_thinning_keeps_what_each_writer_left_so_a_burst_of_the_models_can_be_reverted(
    env: Env,
) -> None:
    """The model attaches and replaces the file, the person restores it, the model replaces it
    twice; once all of it is old and thinned, reverting the model's burst still finds the file as
    the person left it. A version's actor is who took its state away: thinning by that dropped the
    person's restored file (its taker, the model, also took the next one) and kept the model's."""
    store = env.store
    res = store.add_resource(b"MINE", filename="plan.txt", mime="text/plain", actor=ACTOR)
    store.replace_resource(res.id, b"MODEL1", actor=ACTOR)
    [first] = store.resource_versions(res.id)
    store.restore_resource_version(res.id, first.id, actor=ACTOR_USER)
    review = review_of(store)
    store.replace_resource(res.id, b"MODEL2", actor=ACTOR)
    store.replace_resource(res.id, b"MODEL3", actor=ACTOR)
    newest = store.resource_versions(res.id)[0]
    store.prune_history(now=newest.time + 30 * DAY_MS)  # all of them old, on one day
    left = [v.resource.size for v in store.resource_versions(res.id)]
    # MODEL2 (newest), MINE as the person left it, MODEL1 as the model left it before the person.
    assert left == [len(b"MODEL2"), len(b"MINE"), len(b"MODEL1")], left
    review.refresh()
    first_replace, burst = sorted(review.pending(), key=lambda e: e.id)  # MODEL1's; MODEL2 and MODEL3
    review_actions.revert(review, burst.id)
    assert store.read_resource(res.id) == b"MINE"


async def test_reverting_onto_a_name_taken_since_keeps_the_notebook_and_says_why(env: Env) -> None:
    top = env.folder("Top")
    work, plans = env.folder("Projects"), env.folder("Plans")
    review = review_of(env.store)
    await env.ok("update_notebook", id=work, title="Work")
    await env.ok("update_notebook", id=plans, parent_id=top)
    env.folder("Projects")  # the person's, since: the names it would go back to are taken
    env.folder("plans")
    # Not vacuous: the rename back was kept as "a tag is named ...", and the move back raised the refusal.
    review.refresh()
    entries = {e.note_id: e.id for e in review.pending()}
    renamed = review_actions.revert(review, entries[work])
    assert renamed.kept == ('a notebook beside it is named "Projects" now: it stays "Work"',)
    moved = review_actions.revert(review, entries[plans])
    assert moved.kept == ('a notebook where it was is named "Plans" now: it stays in "Top"',)
    assert (env.store.get_folder(plans).parent_id, env.store.get_folder(work).title) == (top, "Work")
