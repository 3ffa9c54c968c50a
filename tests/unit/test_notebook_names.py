"""No two notebooks of one name beside each other, on every backend and from every door.

``noted notebook create Work`` beside a top-level ``Work`` made a second one, and every command
naming a notebook by its title was then ambiguous. ``noted.ops.notebooks.refuse_taken`` refuses it
(and a rename or a move onto a sibling's name) for the CLI, the app, the chat tools and MCP alike.
Joplin allows two, so two made outside noted must still work and be addressable.

A caller limited to some notebooks (an MCP client's scope) is refused only for the notebooks it
can see: a refusal for one outside would tell it that a notebook of that name is there, and its id.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend
from tests.support.cli import run_noted
from tests.support.tools_env import MANAGE_TOOLS, WRITE_TOOLS, make_env

from noted.errors import InvalidInputError
from noted.models import ACTOR_USER, Folder, NoteDraft
from noted.ops import notebooks as ops
from noted.ops.notes import create_note
from noted.ops.resolve import resolve_folder
from noted.store.protocol import Store
from noted.store.sqlite import SqliteStore
from noted.store.vault import VaultStore


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
        pytest.skip("a Markdown folder names the second folder otherwise (see the test below)")
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


def test_a_markdown_folder_with_two_names_in_two_cases_stays_usable(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for name in ("Work", "work"):  # made outside noted: two folders a case-sensitive disk tells apart
        (vault / name).mkdir(parents=True)
        (vault / name / f"{name} plan.md").write_text(f"# {name} plan\n")
    store = VaultStore.open(vault, tmp_path / "profile")
    try:
        upper, lower = resolve_folder(store, "Work"), resolve_folder(store, "work")  # by path
        assert (upper.title, lower.title) == ("Work", "work")
        assert resolve_folder(store, lower.id[:8]).id == lower.id  # and by id
        with pytest.raises(InvalidInputError, match='named "Work" is already at the top level'):
            ops.update_notebook(store, lower.id, title="WORK", actor=ACTOR_USER)
        assert ops.update_notebook(store, lower.id, title="Old work", actor=ACTOR_USER).changed
        assert sorted(p.name for p in vault.iterdir()) == ["Old work", "Work"]
    finally:
        store.close()


def test_the_cli_renames_one_of_two_of_a_name_by_its_id(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    assert run_noted(profile, "init").returncode == 0
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:  # two of a name, as a Joplin export brings them
        first, second = (store.create_folder("Work", actor=ACTOR_USER) for _ in range(2))
    finally:
        store.close()
    done = run_noted(profile, "notebook", "rename", "Work", "Old")
    assert done.returncode == 2 and "matches 2 notebooks" in done.stderr, done.stderr
    assert first.id[:8] in done.stderr and second.id[:8] in done.stderr  # both named, to pick one
    assert run_noted(profile, "notebook", "rename", second.id[:8], "Old").returncode == 0
    listed = run_noted(profile, "notebooks").stdout
    assert f"{first.id[:8]}  Work (" in listed and f"{second.id[:8]}  Old (" in listed, listed


@pytest.mark.parametrize("name", ["sqlite", "joplin"])  # a Markdown folder refuses these sooner
async def test_a_scoped_client_is_told_nothing_of_the_names_outside_its_scope(
    name: str, tmp_path: Path
) -> None:
    """Its top renamed to the name of a notebook beside it that it cannot see goes through, as it
    does where there is none; one beside it that it sees refuses it, naming no notebook outside.
    Not vacuous: the person is refused that name for it, naming the one outside (shown last)."""
    with open_backend(name, tmp_path / "store") as store:
        env = make_env(store, tmp_path, enabled=(*WRITE_TOOLS, *MANAGE_TOOLS))
        secret = env.folder("Secret")
        plan, ideas = env.folder("Plan", secret), env.folder("Ideas", secret)
        hidden = env.folder("Work", secret)
        env.scoped(plan, ideas)
        renamed = await env.ok("update_notebook", id=plan, title="work")
        assert (renamed["title"], renamed["changed"]) == ("work", ["title"])
        result = await env.error("update_notebook", id=ideas, title="WORK")
        assert result.message is not None
        assert result.message.startswith(f'a notebook named "work" is already beside it ({plan[:8]})')
        assert "Secret" not in result.message and hidden[:8] not in result.message
        assert _titles(store, secret) == ["Ideas", "Work", "work"]
        with pytest.raises(InvalidInputError, match=f'"Work" is already in "Secret" \\({hidden[:8]}\\)'):
            ops.update_notebook(store, plan, title="WORK", actor=ACTOR_USER)


def test_a_note_given_no_notebook_goes_in_the_inbox_of_another_case(backend_store: LocalStore) -> None:
    store = backend_store
    inbox = ops.create_notebook(store, "inbox", actor=ACTOR_USER)  # the person's, named so
    made = create_note(store, NoteDraft("Hello", "hi"), actor=ACTOR_USER)
    # Not vacuous: a second top-level "Inbox" was made beside "inbox" for it.
    assert (made.note.parent_id, made.notebook_created) == (inbox.id, False)
    assert _titles(store) == ["inbox"]


def test_the_hint_for_two_of_a_name_says_how_to_name_the_one_at_the_top(backend_store: LocalStore) -> None:
    """ "Sub" at the top level and inside "Work": the hint said to give the path as listed, and the
    top one's path is "Sub", the name just refused. Not vacuous: each way the hint gives is
    followed, and picks out its notebook."""
    store = backend_store
    top = ops.create_notebook(store, "Sub", actor=ACTOR_USER)
    work = ops.create_notebook(store, "Work", actor=ACTOR_USER)
    inner = ops.create_notebook(store, "Sub", parent_id=work.id, actor=ACTOR_USER)
    with pytest.raises(InvalidInputError) as refused:
        resolve_folder(store, "Sub")
    hint = refused.value.hint or ""
    assert hint == f"give the path of one inside another notebook, or the id of {top.id[:8]}"
    assert resolve_folder(store, top.id[:8]).id == top.id
    assert resolve_folder(store, "Work/Sub").id == inner.id
