"""The name check of a notebook create or rename on Joplin (``noted.ops.notebooks.refuse_taken``)
asks Joplin for the notebooks of that title, not for every notebook: with thousands of notebooks
it read every page of ``/folders`` at each create. The check holds as before: a sibling of the
name in another case, or one that ``casefold()`` makes equal (``ſ`` is ``s``), is refused; a
scoped client is refused only for what it may see. Requests are recorded below httpx
(``tests.support.joplin.Wire``). Not vacuous: the refusals are checked, and a create is checked
to list no notebook page where it listed them all.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from tests.support.joplin import JoplinServer, Wire, shared_server

from noted.errors import InvalidInputError
from noted.ops.notebooks import create_notebook, update_notebook

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


def test_a_notebook_name_is_checked_against_its_namesakes_only(joplin: JoplinServer, tmp_path: Path) -> None:
    wire = Wire()
    store = joplin.store(tmp_path / "profile", wire=wire)
    try:
        top = create_notebook(store, f"Names {secrets.token_hex(3)}", actor="user")
        taken = create_notebook(store, "Plan stuff", parent_id=top.id, actor="user")
        wire.clear()
        with pytest.raises(InvalidInputError, match="already in"):
            create_notebook(store, "PLAN STUFF", parent_id=top.id, actor="user")
        with pytest.raises(InvalidInputError, match="already in"):
            create_notebook(store, "plan ſtuff", parent_id=top.id, actor="user")  # casefold: "plan stuff"
        assert wire.listed("/folders") == 0  # every notebook's page, which the check read at each create
        # A scoped client that cannot see it is not refused (nor told of it).
        other = create_notebook(
            store, "plan Stuff", parent_id=top.id, actor="user", visible=frozenset({top.id})
        )
        with pytest.raises(InvalidInputError, match="already in"):
            update_notebook(store, other.id, title="Plan stuff", actor="user")
        assert taken.id != other.id
    finally:
        store.close()
