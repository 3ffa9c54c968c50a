"""Reverting a model's change that attached a file: the attachment it made goes where a deleted
attachment goes on that backend (kept as a version, so ``noted history ID --restore`` brings it
back), and an attachment the person made stays whatever links the revert takes away.

Through the real tool registry as the assistant, on the embedded store, the Markdown folder
(whose attached file sat at the folder's root, untracked, once the revert had taken its link
away) and a real Joplin.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import body_with_ids, open_backend
from tests.support.tools_env import ACTOR, WRITE_TOOLS, Env, make_env, review_of

from noted.errors import NotFoundError
from noted.models import ACTOR_USER, NotePatch
from noted.ops import review_actions
from noted.ops.attachments import restore_attachment_version
from noted.ops.conflicts import Choice
from noted.ops.review import Review
from noted.store.review import EntryRow


@pytest.fixture(params=("sqlite", "vault", "joplin"))
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield make_env(store, tmp_path, enabled=(*WRITE_TOOLS, "attach_file"))


def _entry(review: Review) -> EntryRow:
    review.refresh()
    (entry,) = review.pending()
    assert entry.actor == ACTOR
    return entry


def _files(env: Env, tmp_path: Path) -> list[str]:
    """The files of the Markdown folder, by path ([] on the other backends)."""
    root = tmp_path / "store" / "vault"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) if root.exists() else []


async def _attach(env: Env, note: str) -> dict[str, str]:
    """The model attaches "data file.txt" to the note, through the real tool."""
    data = base64.b64encode(b"the data").decode()
    made: dict[str, str] = await env.ok(
        "attach_file", note_id=note, filename="data file.txt", mime="text/plain", content_base64=data
    )
    return made


async def test_reverting_a_models_attaching_deletes_the_file_it_attached_and_keeps_it_restorable(
    env: Env, tmp_path: Path
) -> None:
    note = env.note(env.folder("Docs"), "Plan", "text\n")
    before = _files(env, tmp_path)
    review = review_of(env.store)
    made = await _attach(env, note)
    reverted = review_actions.revert(review, _entry(review).id)
    assert reverted.conflict is None and reverted.kept == ()
    assert f":/{made['id']}" not in body_with_ids(env.store, note)
    with pytest.raises(NotFoundError):  # on main it stayed, linked by nothing
        env.store.get_resource(made["id"])
    assert _files(env, tmp_path) == before  # not left at the folder's root
    [kept] = env.store.resource_versions(made["id"])
    restore_attachment_version(env.store, made["id"], kept.id, actor=ACTOR_USER)
    assert env.store.read_resource(made["id"]) == b"the data"


async def test_the_persons_attachment_stays_when_the_link_a_model_added_to_it_is_reverted(env: Env) -> None:
    res = env.store.add_resource(b"mine", filename="mine.txt", mime="text/plain", actor=ACTOR_USER)
    note = env.note(env.folder("Docs"), "Plan", "text\n")
    review = review_of(env.store)
    await env.ok("update_note", id=note, append=f"[mine.txt](:/{res.id})")
    review_actions.revert(review, _entry(review).id)
    assert f":/{res.id}" not in body_with_ids(env.store, note)
    assert env.store.read_resource(res.id) == b"mine"  # the person's, linked by no note: it stays


@pytest.mark.parametrize("choice", [Choice.OVERWRITE, Choice.KEEP_BOTH])
async def test_a_reverted_attaching_settled_as_a_conflict_deletes_the_attachment_no_note_links(
    env: Env, tmp_path: Path, choice: Choice
) -> None:
    """The person rewrote the line of the link after the model attached a file, so its revert is
    a conflict (a change on other lines would merge).
    Settled with the text from before the change (the Changes view's "mine"), no note links the
    attachment any more, yet it stayed (the drop ran only for a revert without a conflict). Kept
    both, the note keeps its link and the attachment stays."""
    note = env.note(env.folder("Docs"), "Plan", "text\n")
    before = _files(env, tmp_path)
    review = review_of(env.store)
    made = await _attach(env, note)
    body = env.store.get_note(note).body.replace("[data file.txt]", "[the data, mine]")
    env.store.update_note(note, NotePatch(body=body), actor=ACTOR_USER)
    entry = _entry(review)
    reverted = review_actions.revert(review, entry.id)
    assert reverted.conflict is not None
    review_actions.settle(review, entry.id, reverted.conflict, choice)
    if choice is Choice.KEEP_BOTH:
        assert env.store.read_resource(made["id"]) == b"the data"  # the note still links it
        return
    assert f":/{made['id']}" not in body_with_ids(env.store, note)
    with pytest.raises(NotFoundError):
        env.store.get_resource(made["id"])
    assert _files(env, tmp_path) == before
    assert [v.resource.filename for v in env.store.resource_versions(made["id"])] == ["data file.txt"]
