"""A write Joplin took in without answering is never called a failure, and leaves nothing unnamed.

Each test puts a real Joplin behind ``DyingProxy``, which passes a write on and drops its answer,
as a sweep of noted on a real Joplin found: the accepted proposal said "failed", the attachment
stayed in Joplin linked by no note, and ``noted tag`` did not say which tags went on.
"""

from __future__ import annotations

import dataclasses
import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.support.joplin import JoplinServer, shared_server
from tests.support.joplin_proxy import DyingProxy
from tests.support.tools_env import make_env

from noted.cli import main
from noted.errors import NotedError, PartlyDoneError
from noted.models import NoteDraft, now_ms
from noted.ops.review_list import waiting_words
from noted.store.joplin import JoplinStore
from noted.store.review import ProposalState
from noted.store.sqlite.review import SqliteReview
from noted.tools import proposals
from noted.tools.proposal_effects import preview

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


def _note(joplin: JoplinServer, tmp_path: Path, body: str = "old\n") -> str:
    setup = joplin.store(tmp_path / "setup")
    try:
        folder = setup.create_folder(f"Lost {secrets.token_hex(3)}", actor="user")
        return setup.create_note(NoteDraft("Plan", body, folder.id), actor="user").id
    finally:
        setup.close()


@pytest.mark.parametrize("change", ({"body": "new\n"}, {"append": "new"}))
async def test_an_accepted_proposal_whose_answer_was_lost_says_so_and_is_not_written_twice(
    joplin: JoplinServer, tmp_path: Path, change: dict[str, str]
) -> None:
    """It was settled ``failed`` ("nothing was written") though its change was in the note, which
    told the client to propose it again: a write twice. Then it waited as a bare "pending": the
    listing, ``noted changes show`` and ``proposal_status`` said nothing of the lost answer, and
    accepting it again met its own change as a clash (the append would have gone in twice)."""
    note_id = _note(joplin, tmp_path)
    with DyingProxy(joplin.url, dies_at="PUT /notes") as proxy:
        store = JoplinStore.open(tmp_path / "profile", url=proxy.url, token=joplin.token)
        try:
            env = make_env(store, tmp_path, enabled=("update_note",))
            env.ctx.review = rows = SqliteReview(store.db)
            waiting = dataclasses.replace(env.ctx, writes_wait=True)
            answer = await env.registry.call("update_note", {"id": note_id, **change}, waiting)
            assert answer.ok and answer.payload is not None, answer
            proposal = rows.proposal(int(str(answer.payload["proposal"])[1:]))
            applied = await proposals.apply(env.registry, proposal, env.ctx)
        finally:
            store.close()
    assert proxy.died  # not vacuous: the write went to Joplin and its answer was dropped
    landed = joplin.api("GET", f"/notes/{note_id}", params={"fields": "body"})["body"]
    assert landed != "old\n"
    assert applied.state is ProposalState.PENDING, applied
    assert "may or may not have been saved" in applied.message and "still waits" in applied.message

    store = joplin.store(tmp_path / "profile")  # Joplin answers again
    try:
        env = make_env(store, tmp_path, enabled=("update_note",))
        env.ctx.review = rows = SqliteReview(store.db)
        kept = rows.proposal(proposal.id)
        assert kept.state is ProposalState.PENDING
        said = waiting_words(kept, now_ms())  # the Changes view's and `noted changes`' words
        assert said.startswith("accepted, but Joplin did not answer") and "accept it again" in said
        assert kept.reason == said  # what `noted changes show`, --json and proposal_status give
        (status,) = (await env.registry.call("proposal_status", {}, env.ctx)).payload["proposals"]  # type: ignore[index]
        assert (status["status"], status["reason"]) == ("pending", said)
        found = preview(store, kept)  # `noted changes show` offers no second append
        assert found is not None and found[0] == found[1]
        again = await proposals.apply(env.registry, kept, env.ctx)
        assert again.state is ProposalState.APPLIED, again  # its change was there: it is done
        assert store.get_note(note_id).body == landed  # and was not written twice
    finally:
        store.close()


def test_noted_changes_accept_whose_answer_was_lost_exits_16_as_a_lost_write_does(
    joplin: JoplinServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It exited 1, "refused", which the README keeps for what noted turned down; a write Joplin
    took in without answering exits 16 everywhere else (``noted edit``, ``noted tag``)."""
    note_id = _note(joplin, tmp_path)
    profile = tmp_path / "noted"
    monkeypatch.setenv("NOTED_JOPLIN_TOKEN", joplin.token)
    monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "fake")
    monkeypatch.setenv("NOTED_JOPLIN_URL", joplin.url)
    assert main(["init", "--joplin", "--profile", str(profile)]) == 0
    assert main(["config", "set", "ai.tool.update_note.enabled", "true", "--profile", str(profile)]) == 0
    store = JoplinStore.open(profile, url=joplin.url, token=joplin.token)
    try:
        env = make_env(store, tmp_path, enabled=("update_note",))
        env.ctx.review = SqliteReview(store.db)
        waiting = dataclasses.replace(env.ctx, writes_wait=True, actor="mcp:bot")
        answer = _called(env.registry.call("update_note", {"id": note_id, "body": "new\n"}, waiting))
        ref = str(answer["proposal"])
    finally:
        store.close()
    capsys.readouterr()
    with DyingProxy(joplin.url, dies_at="PUT /notes") as proxy:
        monkeypatch.setenv("NOTED_JOPLIN_URL", proxy.url)
        code = main(["changes", "accept", ref, "--joplin", "--profile", str(profile)])
    assert proxy.died  # not vacuous: the write reached Joplin and its answer was dropped
    err = capsys.readouterr().err
    assert code == 16, err
    assert "may or may not have been saved" in err and f"{ref} still waits" in err


def _called(call: Any) -> dict[str, Any]:
    import asyncio

    result = asyncio.run(call)
    assert result.ok and result.payload is not None, result
    return dict(result.payload)


def _attach_through(
    joplin: JoplinServer, tmp_path: Path, proxy: DyingProxy, note_id: str, name: str = "a.pdf"
) -> NotedError:
    """What attaching a file ``name`` to the note through ``proxy`` raised."""
    from noted.ops.attachments import attach_to_note

    store = JoplinStore.open(tmp_path / "profile", url=proxy.url, token=joplin.token)
    try:
        note = store.get_note(note_id)
        with pytest.raises(NotedError) as caught:
            attach_to_note(
                store, note, b"%PDF-1.4", filename=name, mime="application/pdf", title="", actor="user"
            )
    finally:
        store.close()
    assert proxy.died  # not vacuous: the upload reached Joplin and its answer was dropped
    return caught.value


def test_an_attachment_whose_upload_lost_its_answer_is_named(joplin: JoplinServer, tmp_path: Path) -> None:
    """The error named no item, and the attachment stayed in Joplin linked by no note: attaching
    again stored the file twice. Joplin is gone after the lost answer (the proxy passes nothing
    on), so it cannot be deleted: the message names its id."""
    note_id = _note(joplin, tmp_path)
    with DyingProxy(joplin.url, dies_at="PUT /resources") as proxy:
        name = f"{secrets.token_hex(3)}.pdf"  # its own: other tests share this Joplin
        said = str(_attach_through(joplin, tmp_path, proxy, note_id, name))
    posted = [w for w in proxy.writes if w.startswith("POST /resources")]
    assert len(posted) == 1
    found = joplin.api(
        "GET",
        "/resources",
        params={"fields": "id,title", "limit": 100, "order_by": "created_time", "order_dir": "DESC"},
    )
    left = [r["id"] for r in found["items"] if r["title"] == name]
    assert left and left[0] in said, said
    assert "linked by no note" in said and "delete it" in said


def test_an_attachment_whose_upload_lost_its_answer_is_deleted_again_when_joplin_answers(
    joplin: JoplinServer, tmp_path: Path
) -> None:
    """Joplin answers again after the lost answer: what the upload stored is deleted, nothing is
    attached, and the message says so (not vacuous: the POST landed, so the attachment existed)."""
    note_id = _note(joplin, tmp_path)
    with DyingProxy(joplin.url, dies_at="PUT /resources", stays_dead=False) as proxy:
        said = str(_attach_through(joplin, tmp_path, proxy, note_id))
    assert "it was deleted again, nothing was attached" in said, said
    deleted = [w for w in proxy.writes if w.startswith("DELETE /resources/")]
    assert len(deleted) == 1
    with pytest.raises(httpx.HTTPStatusError):
        joplin.api("GET", f"/resources/{deleted[0].rsplit('/', 1)[1]}", params={"fields": "id"})
    assert joplin.api("GET", f"/notes/{note_id}", params={"fields": "body"})["body"] == "old\n"


def test_tags_added_before_joplin_stopped_answering_are_named(joplin: JoplinServer, tmp_path: Path) -> None:
    """``noted tag NOTE t1 t2 t3`` stopped at t2: it said only "may or may not have been saved"."""
    from noted.ops.notes import edit_tags

    note_id = _note(joplin, tmp_path)
    suffix = secrets.token_hex(3)
    titles = [f"t1{suffix}", f"t2{suffix}", f"t3{suffix}"]
    with DyingProxy(joplin.url, dies_at="POST /tags", after=3) as proxy:
        store = JoplinStore.open(tmp_path / "profile", url=proxy.url, token=joplin.token)
        try:
            with pytest.raises(PartlyDoneError) as caught:
                edit_tags(store, note_id, titles, [], actor="user")
        finally:
            store.close()
    assert proxy.died
    said = str(caught.value)
    assert f"tags added: {titles[0]}, but adding {titles[1]} stopped ({titles[2]} not tried)" in said, said
