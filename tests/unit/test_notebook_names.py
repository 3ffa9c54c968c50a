"""No two notebooks of one name beside each other, on every backend and from every door.

``noted notebook create Work`` beside a top-level ``Work`` made a second one, and every command
naming a notebook by its title was then ambiguous. ``noted.ops.notebooks.refuse_taken`` refuses it
(and a rename or a move onto a sibling's name) for the CLI, the app, the chat tools and MCP alike.
Joplin allows two, so two made outside noted must still work and be addressable.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend
from tests.support.cli import run_noted
from tests.support.tools_env import WRITE_TOOLS, make_env

from noted.errors import InvalidInputError
from noted.models import ACTOR_USER, Folder
from noted.ops import notebooks as ops
from noted.ops.resolve import resolve_folder
from noted.store.protocol import Store


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def _titles(store: Store, parent_id: str = "") -> list[str]:
    return sorted(f.title for f in store.list_folders() if f.parent_id == parent_id)


def _same(store: Store) -> tuple[list[Folder], int]:
    return store.list_folders(include_trashed=True), store.changes_since(0).cursor


def test_a_second_notebook_of_a_name_beside_the_first_is_refused(backend_store: LocalStore) -> None:
    store = backend_store
    work = ops.create_notebook(store, "Work", actor=ACTOR_USER)
    home = ops.create_notebook(store, "Home", actor=ACTOR_USER)
    inner = ops.create_notebook(store, "Work", parent_id=home.id, actor=ACTOR_USER)  # elsewhere: fine
    before = _same(store)
    for title in ("Work", "work", " Work "):  # case aside, as titles resolve
        with pytest.raises(InvalidInputError, match='a notebook named "Work" is already at the top level'):
            ops.create_notebook(store, title, actor=ACTOR_USER)
    with pytest.raises(InvalidInputError, match='already in "Home"'):
        ops.create_notebook(store, "WORK", parent_id=home.id, actor=ACTOR_USER)
    with pytest.raises(InvalidInputError, match="already at the top level"):  # a rename onto a sibling's
        ops.update_notebook(store, home.id, title="Work", actor=ACTOR_USER)
    with pytest.raises(InvalidInputError, match='already in "Home"'):  # a move beside one of its name
        ops.update_notebook(store, work.id, parent_id=home.id, actor=ACTOR_USER)
    assert _same(store) == before  # nothing written
    assert ops.update_notebook(store, work.id, title="WORK", actor=ACTOR_USER).changed  # its own name's case
    assert ops.update_notebook(store, inner.id, title="Work", actor=ACTOR_USER).changed is False
    ops.trash_notebook(store, home.id, actor=ACTOR_USER)
    assert (
        ops.create_notebook(store, "Home", actor=ACTOR_USER).title == "Home"
    )  # one in the trash is no sibling


def test_two_of_one_name_made_outside_noted_stay_addressable(backend_store: LocalStore) -> None:
    store = backend_store
    first = store.create_folder("Work", actor=ACTOR_USER)  # as Joplin allows, past noted's ops
    second = store.create_folder("Work", actor=ACTOR_USER)
    if len({f.title for f in (first, second)}) == 2:
        pytest.skip("a Markdown folder names the second folder otherwise: it cannot hold two")
    with pytest.raises(InvalidInputError, match="matches 2 notebooks"):
        resolve_folder(store, "Work")
    assert resolve_folder(store, second.id[:8]).id == second.id
    renamed = ops.update_notebook(store, second.id, title="Work 2", actor=ACTOR_USER)
    assert renamed.changed and _titles(store) == ["Work", "Work 2"]
    assert resolve_folder(store, "Work").id == first.id
    ops.update_notebook(store, first.id, title="Old work", actor=ACTOR_USER)  # the other one renames too


async def test_the_create_notebook_tool_says_the_name_is_taken(
    backend_store: LocalStore, tmp_path: Path
) -> None:
    env = make_env(backend_store, tmp_path, enabled=WRITE_TOOLS)
    await env.ok("create_notebook", title="Work")
    result = await env.error("create_notebook", title="work")
    assert (
        result.message is not None and 'a notebook named "Work" is already at the top level' in result.message
    )
    assert _titles(backend_store) == ["Work"]


def test_the_cli_refuses_a_taken_name_in_one_line(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    assert run_noted(profile, "notebook", "create", "Work").returncode == 0
    for args in (("notebook", "create", "Work"), ("notebook", "rename", "Welcome", "Work")):
        done = run_noted(profile, *args)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith('noted: a notebook named "Work" is already'), lines
    listed = run_noted(profile, "notebooks").stdout
    assert listed.count(" Work (") == 1 and "Welcome" in listed
