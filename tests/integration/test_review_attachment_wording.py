"""What the review says of a model's replace of an attachment, on every backend.

A replace with the very bytes, name, type and title the attachment has is no change: nothing is
written (no version, no entry to review). A replace with the same bytes under a new title or file
name is reviewed as that, not as "replaced by another file".

Not vacuous: before, the identical replace was written, kept a version and was reviewed as
"replaced by another file", and a title-only change read "replaced by another file" too (the
feed kept only the file name, so the title change was in no summary).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import open_backend
from tests.support.tools_env import MANAGE_TOOLS, WRITE_TOOLS, Env, make_env, review_of

from noted.models import ACTOR_USER
from noted.ops.review import summary

BYTES = b"first bytes"


@pytest.fixture(params=("sqlite", "vault", "joplin"))
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield make_env(store, tmp_path, enabled=(*WRITE_TOOLS, *MANAGE_TOOLS))


def _attachment(env: Env) -> str:
    res = env.store.add_resource(
        BYTES, filename="plan.txt", mime="text/plain", title="Plan", actor=ACTOR_USER
    )
    env.note(env.folder("Docs"), "Plan", f"[plan.txt](:/{res.id})")
    return res.id


def _lines(env: Env) -> list[str]:
    review = review_of(env.store)
    review.refresh()
    return [summary(e) for e in review.pending() if e.detail.get("kind") == "attachment"]


async def test_a_replace_with_the_same_file_changes_nothing(env: Env) -> None:
    res_id = _attachment(env)
    before = env.store.get_resource(res_id)
    answer = await env.ok(
        "replace_attachment", id=res_id, content_base64=base64.b64encode(BYTES).decode(), title="Plan"
    )
    assert answer["replaced"] is False  # the model is told nothing changed
    assert env.store.get_resource(res_id) == before
    assert env.store.resource_versions(res_id) == []
    assert _lines(env) == []


async def test_a_title_or_name_change_with_the_same_bytes_says_so(env: Env) -> None:
    res_id = _attachment(env)
    same = base64.b64encode(BYTES).decode()
    answer = await env.ok("replace_attachment", id=res_id, content_base64=same, title="The plan")
    assert answer["replaced"] is True
    assert _lines(env) == ['retitled from "Plan"']
    await env.ok("replace_attachment", id=res_id, content_base64=same, filename="plan2.txt")
    assert _lines(env) == ['file renamed from "plan.txt", retitled from "Plan"']
    await env.ok("replace_attachment", id=res_id, content_base64=base64.b64encode(b"other").decode())
    assert _lines(env) == ['replaced by another file (was "plan.txt"), retitled from "Plan"']
