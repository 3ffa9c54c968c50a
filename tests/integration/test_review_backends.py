"""The review of what other actors changed, on every backend: entries, diffs, accept and revert.

The marks are kept in each backend's local database (the embedded store's own, Joplin's sidecar,
the Markdown folder's mirror), so a new ``Review`` over the same database sees them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, open_backend
from tests.support.cli import Cli

from noted.errors import NotedError, NotFoundError
from noted.models import ACTOR_OUTSIDE, ACTOR_USER, NoteDraft, NotePatch, assistant_actor, mcp_actor, now_ms
from noted.ops import review_actions
from noted.ops.conflicts import Choice, resolve, split_titled
from noted.ops.notebooks import rename_tag
from noted.ops.review import Review, summary
from noted.ops.review_actions import Reverted
from noted.ops.review_items import kind_of
from noted.store.protocol import Store
from noted.store.review import EntryRow, EntryState, ProposalState
from noted.store.sqlite.db import Database
from noted.store.sqlite.review import SqliteReview
from noted.store.vault import VaultStore
from noted.tools import proposal_sides

BOT = mcp_actor("claude")
CHAT = assistant_actor("c1")


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def _review(store: Store) -> Review:
    db: Database = store.db  # type: ignore[attr-defined]  # every backend's local database
    return Review(store, SqliteReview(db))


def _note(store: Store, title: str = "Plan", body: str = "one\ntwo\nthree\n") -> str:
    folder = store.create_folder("Work", actor=ACTOR_USER)
    return store.create_note(NoteDraft(title, body, parent_id=folder.id), actor=ACTOR_USER).id


def test_only_other_actors_changes_wait_in_one_entry_per_burst(store: Store) -> None:
    note_id = _note(store)
    review = _review(store)
    review.refresh()
    store.update_note(note_id, NotePatch(body="one\ntwo\nthree\nfour\n"), actor=ACTOR_USER)
    assert review.refresh() == 0 and review.pending() == []  # the person's own save needs no review

    other = store.create_folder("Elsewhere", actor=ACTOR_USER)
    store.update_note(note_id, NotePatch(title="Plan B", body="one\n2\nthree\nfour\nfive\n"), actor=BOT)
    store.tag_note(note_id, ["urgent"], actor=BOT)
    store.update_note(note_id, NotePatch(parent_id=other.id), actor=BOT)
    review.refresh()
    entry = _one(review)
    assert (entry.note_id, entry.actor, entry.title) == (note_id, BOT, "Plan B")
    line = summary(entry, {other.id: "Elsewhere"})
    assert "+2 −1 lines" in line and 'retitled from "Plan"' in line
    assert 'moved to "Elsewhere"' in line and "tagged urgent" in line

    diff = review_actions.show(review, entry.id)
    assert diff.before == ("Plan", "one\ntwo\nthree\nfour\n")
    assert "-two\n" in diff.text and "+2\n" in diff.text and "+five\n" in diff.text


def test_accept_marks_it_reviewed_for_good_and_refuses_a_second_time(store: Store) -> None:
    note_id = _note(store)
    review = _review(store)
    review.refresh()
    store.update_note(note_id, NotePatch(append="more\n"), actor=CHAT)
    store.trash_note(_note(store, "Other"), actor=BOT)
    review.refresh()
    entries = review.pending()
    assert {e.actor for e in entries} == {CHAT, BOT}
    assert "trashed" in summary(next(e for e in entries if e.actor == BOT))

    with pytest.raises(NotFoundError):  # one unknown id: nothing is marked
        review_actions.accept(review, [entries[0].id, 999_999_999])
    assert len(review.pending()) == 2
    assert review_actions.accept(review, [e.id for e in entries]) == [e.id for e in entries]
    assert _review(store).pending() == []  # kept in the profile, seen by a new reader
    assert _review(store).rows.entry(entries[0].id).state is EntryState.ACCEPTED
    with pytest.raises(NotedError, match="accepted already"):
        review_actions.accept(review, [entries[0].id])


def test_revert_restores_the_version_before_as_a_new_revision(store: Store) -> None:
    note_id = _note(store)
    review = _review(store)
    review.refresh()
    store.update_note(note_id, NotePatch(body="rewritten by a model\n"), actor=BOT)
    store.tag_note(note_id, ["ai"], actor=BOT)
    review.refresh()
    entry = _one(review)
    reverted = review_actions.revert(review, entry.id)
    assert reverted.conflict is None
    note = store.get_note(note_id)
    assert note.body == "one\ntwo\nthree\n"
    assert [t.title for t in store.note_tags(note_id)] == []
    history = store.note_history(note_id)
    assert history[0].actor == ACTOR_USER and history[0].body == "one\ntwo\nthree\n"
    assert any(r.body == "rewritten by a model\n" for r in history)  # the model's version stays
    review.refresh()
    assert review.pending() == [] and review.rows.entry(entry.id).state is EntryState.REVERTED


@pytest.mark.parametrize("actor", [BOT, CHAT])
def test_an_entry_of_several_saves_is_shown_counted_and_reverted_whole(store: Store, actor: str) -> None:
    """Two saves by one actor, each its own revision, are one entry: its diff, counts and revert
    start from the text before the first (not vacuous: the last save alone is "+1 −0")."""
    note_id = _note(store, "Recipe", "flour\n")
    review = _review(store)
    review.refresh()
    store.update_note(note_id, NotePatch(append="sugar"), actor=actor)
    store.update_note(note_id, NotePatch(append="salt"), actor=actor)
    assert len([r for r in store.note_history(note_id) if r.actor == actor]) == 2
    review.refresh()
    entry = _one(review)
    assert summary(entry) == "+2 −0 lines"
    diff = review_actions.show(review, entry.id)
    now = store.get_note(note_id)
    assert diff.before == ("Recipe", "flour\n") and diff.after == ("Recipe", now.body)
    assert "sugar" in now.body and "salt" in now.body
    assert review_actions.revert(review, entry.id).conflict is None
    assert store.get_note(note_id).body == "flour\n"


def test_a_models_move_tags_and_trash_stay_its_own_when_the_person_saves_after(store: Store) -> None:
    """Not vacuous: the person's save is the note's last change before the review reads the feed;
    the review once saw the place only there, and found the person's save moved nothing."""
    note_id = _note(store)
    home = store.get_note(note_id).parent_id
    other = store.create_folder("Elsewhere", actor=ACTOR_USER)
    review = _review(store)
    review.refresh()
    store.update_note(note_id, NotePatch(parent_id=other.id), actor=BOT)
    store.tag_note(note_id, ["later"], actor=BOT)
    store.update_note(note_id, NotePatch(append="mine"), actor=ACTOR_USER)
    trashed = _note(store, "Old")
    store.trash_note(trashed, actor=BOT)
    store.tag_note(trashed, ["seen"], actor=ACTOR_USER)
    review.refresh()
    lines = {e.note_id: summary(e, {other.id: "Elsewhere"}) for e in review.pending()}
    assert lines == {note_id: 'moved to "Elsewhere"; tagged later', trashed: "trashed"}
    for entry in review.pending():
        assert review_actions.revert(review, entry.id).kept == ()
    note = store.get_note(note_id)
    assert (note.parent_id, store.note_tag_titles([note_id]).get(note_id, ())) == (home, ())
    assert note.body.rstrip().endswith("mine")  # the person's save stays
    assert not store.get_note(trashed).is_trashed


def test_a_note_the_person_moved_again_stays_where_they_put_it_and_revert_says_so(store: Store) -> None:
    note_id = _note(store)
    other = store.create_folder("Elsewhere", actor=ACTOR_USER)
    third = store.create_folder("Third", actor=ACTOR_USER)
    review = _review(store)
    review.refresh()
    store.update_note(note_id, NotePatch(parent_id=other.id), actor=BOT)
    store.tag_note(note_id, ["later"], actor=BOT)
    store.update_note(note_id, NotePatch(parent_id=third.id), actor=ACTOR_USER)
    review.refresh()
    reverted = review_actions.revert(review, _one(review).id)
    assert reverted.kept == ('it was moved again since the change: it stays in "Third"',)
    assert store.get_note(note_id).parent_id == third.id
    assert store.note_tag_titles([note_id]).get(note_id, ()) == ()  # the tag is the model's: undone
    assert review.rows.entry(reverted.entry.id).state is EntryState.REVERTED


def test_revert_after_the_person_edited_again_keeps_both_sides(store: Store) -> None:
    note_id = _note(store)
    review = _review(store)
    review.refresh()
    store.update_note(note_id, NotePatch(body="the model's text\n"), actor=CHAT)
    review.refresh()
    entry = _one(review)
    # The person rewrote the line the model wrote: the revert would put other text there.
    store.update_note(note_id, NotePatch(body="the model's text, and mine\n"), actor=ACTOR_USER)

    reverted = review_actions.revert(review, entry.id)
    assert reverted.conflict is not None  # not overwritten: the person's later text is the note
    assert store.get_note(note_id).body == "the model's text, and mine\n"
    assert review.rows.entry(entry.id).state is EntryState.PENDING
    settled = resolve(store, reverted.conflict, Choice.KEEP_BOTH, actor=ACTOR_USER)
    review_actions.finish(review, entry.id)
    assert settled.copy is not None and settled.copy.body.endswith("one\ntwo\nthree\n")
    assert store.get_note(note_id).body == "the model's text, and mine\n"
    assert review.rows.entry(entry.id).state is EntryState.REVERTED


def _reverted_after(store: Store, bots: NotePatch, mine: NotePatch) -> tuple[str, Review, Reverted]:
    """A note "a b c" the client changed (``bots``), then the person (``mine``), and the client's
    change reverted."""
    note_id = _note(store, body="a\nb\nc\n")
    review = _review(store)
    review.refresh()
    store.update_note(note_id, bots, actor=BOT)
    review.refresh()
    entry = _one(review)
    store.update_note(note_id, mine, actor=ACTOR_USER)
    return note_id, review, review_actions.revert(review, entry.id)


def test_revert_of_a_change_the_person_wrote_beside_since_merges_them(store: Store) -> None:
    """The one rule of a write that waited (``carried_text``), as accepting a proposal merges: the
    change's after is the base, the text before it one side, the note now the other. Not vacuous:
    the note changed since the change, which refused the revert with a conflict copy before."""
    note_id, review, reverted = _reverted_after(
        store, NotePatch(body="a\nB by bot\nc\n"), NotePatch(body="a\nB by bot\nc\nmine\n")
    )
    assert reverted.conflict is None and reverted.kept == ()
    assert store.get_note(note_id).body.rstrip("\n") == "a\nb\nc\nmine"
    assert review.rows.entry(reverted.entry.id).state is EntryState.REVERTED
    assert [n.title for n in store.list_notes()] == ["Plan"]  # no conflict copy


def test_revert_of_a_retitle_keeps_a_title_the_person_changed_since_as_a_clash(store: Store) -> None:
    note_id, _, reverted = _reverted_after(
        store, NotePatch(title="Plan by bot", body="a\nB\nc\n"), NotePatch(title="My plan")
    )
    assert reverted.conflict is not None  # both retitled it: only the person can choose
    assert (reverted.conflict.title, reverted.conflict.body) == ("Plan", "a\nb\nc\n")
    note = store.get_note(note_id)
    assert (note.title, note.body.rstrip("\n")) == ("My plan", "a\nB\nc")


def test_reverting_a_note_a_client_made_trashes_it(store: Store) -> None:
    review = _review(store)
    review.refresh()
    folder = store.create_folder("Inbox", actor=ACTOR_USER)
    made = store.create_note(NoteDraft("From the app", "hello\n", parent_id=folder.id), actor=BOT)
    review.refresh()
    entry = _one(review)
    assert summary(entry).startswith("created; +1 −0 lines")
    review_actions.revert(review, entry.id)
    assert store.get_note(made.id).is_trashed


def test_reverting_a_note_a_client_made_that_the_person_edited_since_keeps_it(store: Store) -> None:
    """Not vacuous: the same revert without the person's edit trashes the note (above)."""
    review = _review(store)
    review.refresh()
    folder = store.create_folder("Inbox", actor=ACTOR_USER)
    made = store.create_note(NoteDraft("From the app", "hello\n", parent_id=folder.id), actor=BOT)
    store.update_note(made.id, NotePatch(append="my own words"), actor=ACTOR_USER)
    review.refresh()
    reverted = review_actions.revert(review, _one(review).id)
    assert reverted.kept == (
        "it was edited after it was made, so it stays (trash it yourself if you want it gone)",
    )
    note = store.get_note(made.id)
    assert not note.is_trashed and "my own words" in note.body
    assert review.rows.entry(reverted.entry.id).state is EntryState.REVERTED


def _one(review: Review) -> EntryRow:
    entries = review.pending()
    assert len(entries) == 1, entries
    return entries[0]


def test_an_outside_edit_of_a_markdown_folder_waits_for_review(tmp_path: Path) -> None:
    with open_backend("vault", tmp_path / "store") as store:
        note_id = _note(store)
        review = _review(store)
        review.refresh()
        vault: VaultStore = store  # type: ignore[assignment]
        (path,) = (tmp_path / "store" / "vault").rglob("Plan.md")
        path.write_text(path.read_text(encoding="utf-8").replace("two", "zwei"), encoding="utf-8")
        vault.follower.apply([path.relative_to(tmp_path / "store" / "vault").as_posix()])
        review.refresh()
        entry = _one(review)
        assert (entry.note_id, entry.actor) == (note_id, ACTOR_OUTSIDE)
        assert "+1 −1 lines" in summary(entry)
        assert "+zwei" in review_actions.show(review, entry.id).text


@pytest.mark.parametrize("kept", [True, False], ids=["base-kept", "base-from-history"])
def test_a_proposal_whose_note_changed_has_three_sides_and_a_merge_keeps_both(
    store: Store, kept: bool
) -> None:
    """On every backend: the version a proposal was made on (kept with it, or found in the note's
    history for one kept before it was), the note now and the proposal; a merge saved over them
    leaves both texts in the history."""
    note_id = _note(store)
    rows = SqliteReview(store.db)  # type: ignore[attr-defined]
    base = store.get_note(note_id)
    detail: dict[str, object] = {"arguments": {"id": note_id, "body": "one\nTWO\nthree\n"}}
    if kept:
        detail["base"] = [base.title, base.body]
    proposal = rows.propose(
        client=BOT, tool="update_note", note_id=note_id, title=base.title,
        base_updated_time=base.updated_time, time=now_ms(), detail=detail,
    )  # fmt: skip
    assert proposal_sides.conflict_of(store, proposal) is None  # nothing moved: it applies as it is
    store.update_note(note_id, NotePatch(body="zero\none\ntwo\nthree\n"), actor=ACTOR_USER)
    conflict = proposal_sides.conflict_of(store, proposal)
    assert conflict is not None
    assert (conflict.base.body, conflict.theirs.body, conflict.body) == (
        "one\ntwo\nthree\n",
        "zero\none\ntwo\nthree\n",
        "one\nTWO\nthree\n",
    )
    text, clashes = conflict.merge_text()
    assert clashes == 0 and text.endswith("\nzero\none\nTWO\nthree\n")  # both changes, no clash
    proposal_sides.settle(store, rows, proposal, conflict, Choice.MERGE, split_titled(text))
    assert store.get_note(note_id).body == "zero\none\nTWO\nthree\n"
    bodies = {r.body for r in store.note_history(note_id)}
    assert {"one\nTWO\nthree\n", "zero\none\ntwo\nthree\n"} <= bodies
    assert rows.proposal(proposal.id).state.value == "applied"


def test_proposals_are_listed_by_state_and_by_client_or_its_kind(tmp_path: Path) -> None:
    db = Database(tmp_path / "review.db")
    rows = SqliteReview(db)
    made = {
        client: rows.propose(
            client=client,
            tool="create_note",
            note_id="",
            title=client,
            base_updated_time=0,
            time=now_ms(),
            detail={},
        ).id
        for client in (BOT, mcp_actor("zed"), CHAT, "mcp_like")  # "mcp_like": "_" is no wildcard
    }
    rows.settle(made[CHAT], ProposalState.REJECTED, time=now_ms())
    assert [p.client for p in rows.proposals(client="mcp")] == [mcp_actor("zed"), BOT]  # newest first
    assert [p.client for p in rows.proposals(client=BOT)] == [BOT]
    assert CHAT not in [p.client for p in rows.proposals()]  # pending only, by default
    assert [p.client for p in rows.proposals(state=ProposalState.REJECTED, client="assistant")] == [CHAT]
    assert len(rows.proposals(state=None)) == 4
    db.close()


def test_the_first_scan_of_a_markdown_folder_is_not_to_review_and_later_edits_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The person's own files, as noted first finds them, are an import: none is an ``outside``
    change to review (reverting one trashed the file). Not vacuous: each was listed as created by
    ``outside``, and an edit made afterwards still is."""
    folder = tmp_path / "v"
    folder.mkdir()
    for i in range(1, 6):
        (folder / f"Mine{i}.md").write_text(f"# Mine {i}\n\nt\n", encoding="utf-8")
    cli = Cli(tmp_path / "profile", capsys, init=False)
    cli.ok("init", "--vault", str(folder))  # as a person does once; it reads the folder first
    assert cli.json("--vault", str(folder), "changes") == []
    assert cli.json("--vault", str(folder), "changes") == []  # nor on the next start
    (folder / "Mine2.md").write_text("# Mine 2\n\nedited elsewhere\n", encoding="utf-8")
    (folder / "Later.md").write_text("# Later\n\nnew\n", encoding="utf-8")
    listed = cli.json("--vault", str(folder), "changes")
    assert sorted((e["title"], e["actor"]) for e in listed) == [
        ("Later", ACTOR_OUTSIDE),
        ("Mine 2", ACTOR_OUTSIDE),
    ]


def test_what_models_moved_tagged_and_trashed_before_the_review_was_first_read_is_theirs(
    store: Store,
) -> None:
    """An AI app working over stdio while no app runs: the first ``noted changes`` reads a feed
    that already holds its changes. Not vacuous: the review once took the notes' places at that
    first read as the places before every change, so these read "tags changed" and "saved with no
    change to its text", and their revert said "Reverted" and brought nothing back."""
    note_id = _note(store, "Tagged")
    store.tag_note(note_id, ["t1"], actor=ACTOR_USER)
    home = store.get_note(note_id).parent_id
    moved = store.create_note(NoteDraft("Moved", "two\n", parent_id=home), actor=ACTOR_USER).id
    trashed = store.create_note(NoteDraft("Trashed", "three\n", parent_id=home), actor=ACTOR_USER).id
    other = store.create_folder("Elsewhere", actor=ACTOR_USER)
    store.untag_note(note_id, ["t1"], actor=BOT)
    store.update_note(moved, NotePatch(parent_id=other.id), actor=BOT)
    store.trash_note(trashed, actor=BOT)

    review = _review(store)  # first read, after the changes
    review.refresh()
    lines = {e.note_id: summary(e, {other.id: "Elsewhere"}) for e in review.pending()}
    assert lines == {note_id: "untagged t1", moved: 'moved to "Elsewhere"', trashed: "trashed"}
    for entry in review.pending():
        review_actions.revert(review, entry.id)
    assert store.note_tag_titles([note_id]).get(note_id, ()) == ("t1",)
    assert store.get_note(moved).parent_id == home
    assert not store.get_note(trashed).is_trashed


# A tag renamed is the same tag: the notes carrying it were not tagged nor untagged, whoever renamed it.
# The review compares a note's places (its notebook, trash and tag titles) before and after each
# change; a rename between two changes of the note used to read as "tagged NEW; untagged OLD" in the
# next model's change, and reverting that change took the person's tag off the note and made a new
# tag with the old title.


def _tagged_note(store: Store, title: str, tag: str) -> str:
    folder = store.create_folder(f"Work {title}", actor=ACTOR_USER)
    note_id = store.create_note(NoteDraft(title, "one\n", parent_id=folder.id), actor=ACTOR_USER).id
    store.tag_note(note_id, [tag], actor=ACTOR_USER)
    return note_id


def _tag_id(store: Store, title: str) -> str:
    return next(t.id for t in store.list_tags() if t.title == title)


@pytest.mark.parametrize("read_between", [True, False], ids=["read-between", "one-read"])
def test_a_persons_tag_rename_is_not_the_next_models_change(store: Store, read_between: bool) -> None:
    note_id = _tagged_note(store, "Plan", "draft")
    review = _review(store)
    review.refresh()
    rename_tag(store, _tag_id(store, "draft"), "final draft", actor=ACTOR_USER)
    if read_between:  # the rename read on its own: the note's kept place must follow it
        review.refresh()
    store.update_note(note_id, NotePatch(body="one\ntwo\n"), actor=BOT)
    review.refresh()
    (entry,) = review.pending()
    assert summary(entry) == "+1 −0 lines"  # not "tagged final draft; untagged draft"

    review_actions.revert(review, entry.id)
    # The note keeps the person's tag, and no second tag titled "draft" is made.
    assert store.note_tag_titles([note_id])[note_id] == ("final draft",)
    assert sorted(t.title for t in store.list_tags()) == ["final draft"]


def test_a_models_tag_rename_stays_the_tags_change_not_its_notes(store: Store) -> None:
    note_id = _tagged_note(store, "Plan", "draft")
    review = _review(store)
    review.refresh()
    rename_tag(store, _tag_id(store, "draft"), "done", actor=BOT)
    store.update_note(note_id, NotePatch(body="one\ntwo\n"), actor=BOT)
    review.refresh()
    entries = {kind_of(e): e for e in review.pending()}
    assert summary(entries["note"]) == "+1 −0 lines"
    assert 'renamed from "draft"' in summary(entries["tag"])
