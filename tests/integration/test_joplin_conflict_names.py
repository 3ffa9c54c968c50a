"""A conflict copy Joplin's sync made is a note the person sees (``noted conflicts``, the app's
*Conflicts*): it is named by its id prefix like any other, and a prefix it shares names it among
the candidates. On a real Joplin.

Not vacuous: ``resolve_note`` looked only in Joplin's note listings, which leave conflict copies
out, so ``noted show b2412479`` answered "no note with id or title" for the copy that
``noted conflicts`` had just listed, and ``noted show ID`` worked only with the whole id.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from tests.support.joplin import JoplinServer, shared_server
from tests.support.joplin_sync import Machine

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


def test_a_conflict_copy_is_named_by_its_id_prefix_and_listed_when_ambiguous(
    joplin: JoplinServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    here = Machine("here", joplin, tmp_path / "noted")
    stem = secrets.token_hex(3)  # ids sharing their first six digits, then differing
    note_id, copy_id = f"{stem}a{secrets.token_hex(12)}0", f"{stem}b{secrets.token_hex(12)}0"
    folder = joplin.api("POST", "/folders", {"title": f"Rotas {stem}"})["id"]
    for id_, body in ((note_id, "Monday: Ann"), (copy_id, "Monday: Cid")):
        joplin.api("POST", "/notes", {"id": id_, "title": f"Rota {stem}", "body": body, "parent_id": folder})
    joplin.as_if_conflict(copy_id, note_id)
    assert copy_id in [c["copy_id"] for c in here.noted_json(capsys, "conflicts")]

    code, out, err = here.noted(capsys, "show", copy_id[:8])
    assert code == 0, err
    assert "Monday: Cid" in out and "conflict copy" in out

    code, _, err = here.noted(capsys, "show", stem)
    assert code == 2 and err.count("\n") == 1, err  # one line naming both, the copy as such
    assert f'{note_id[:8]} "Rota {stem}"' in err and f'{copy_id[:8]} "Rota {stem}" (conflict copy)' in err

    code, out, err = here.noted(capsys, "show", f"Rota {stem}")  # a title names the note, not its copy
    assert code == 0 and "Monday: Ann" in out, err
