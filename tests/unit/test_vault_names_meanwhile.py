"""A batch keeps the names of a folder it listed (``Vault.free_name``): a file another program
makes meanwhile under a name the batch then picks is never replaced."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote

import pytest
from tests.support.vaults import by_title, fresh, opened

from noted.models import NoteDraft
from noted.store.transfer.importer import import_markdown


def test_an_attachment_name_taken_by_another_program_during_a_batch_is_not_replaced(tmp_path: Path) -> None:
    """Two notes of one batch each link a new attachment named ``pic.png``: the second was to be
    ``pic 2.png``, a name the batch thought free, and another program wrote that file meanwhile.
    Not vacuous: the batch has listed the folder (``pic.png`` written) before the other file lands."""
    vault, profile = fresh(tmp_path, {"a.md": "# A\n"})
    with opened(vault, profile) as store:
        parent = store.list_folders()[0].id
        ids = [
            store.add_resource(bytes([n]) * 8, filename="pic.png", mime="image/png", actor="user").id
            for n in range(2)
        ]
        with store.batch():
            store.create_note(NoteDraft("One", f"![](:/{ids[0]})\n", parent), actor="user")
            assert (vault / "pic.png").exists()
            (vault / "pic 2.png").write_bytes(b"theirs")
            second = store.create_note(NoteDraft("Two", f"![](:/{ids[1]})\n", parent), actor="user")
        assert (vault / "pic 2.png").read_bytes() == b"theirs"
        assert "pic%203.png" in second.body or "pic 3.png" in second.body
        assert (vault / "pic 3.png").read_bytes() == bytes([1]) * 8


def test_a_note_name_taken_by_another_program_during_a_batch_is_not_replaced(tmp_path: Path) -> None:
    """The batch listed the folder (``One.md`` written), then another program wrote ``Two.md``:
    the second note's write stopped the batch (``FileChanged``) instead of taking ``Two 2.md``."""
    vault, profile = fresh(tmp_path, {"a.md": "# A\n"})
    with opened(vault, profile) as store:
        parent = store.list_folders()[0].id
        with store.batch():
            store.create_note(NoteDraft("One", "1\n", parent), actor="user")
            (vault / "Two.md").write_text("theirs\n")
            two = store.create_note(NoteDraft("Two", "2\n", parent), actor="user")
        assert (vault / "Two.md").read_text() == "theirs\n"
        assert store.note_path(two.id) == vault / "Two 2.md" and two.title == "Two"


def test_an_import_whose_planned_names_another_program_takes_finishes_and_keeps_the_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import plans each new note's path (``plan_notes``) so that a link to a note written later
    is written as that path; another program wrote a file under each planned name before the notes
    were written: the import stopped (``FileChanged``), nothing imported. Now each note takes the
    next free name, and the note that linked one at its planned name is made to lead to where it is.
    Not vacuous: every planned name is taken, and A's link is written before B is."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "a.md").write_text("# A\n\nSee [b](b.md) and [me](a.md).\n")
    (source / "b.md").write_text("# B\n\nBee.\n")
    vault, profile = fresh(tmp_path, {"kept.md": "# Kept\n"})
    with opened(vault, profile) as store:
        planned = store.plan_notes
        taken: list[Path] = []

        def plan_then_taken(drafts: Sequence[NoteDraft]) -> set[str]:
            ids = planned(drafts)
            for rel in store.vault.planned.paths.values() if store.vault.planned else ():
                taken.append(vault / rel)
                taken[-1].parent.mkdir(parents=True, exist_ok=True)
                taken[-1].write_text("theirs\n")
            return ids

        monkeypatch.setattr(store, "plan_notes", plan_then_taken)
        report = import_markdown(store, source)
        assert report.notes_created == 2 and len(taken) == 2
        assert all(path.read_text() == "theirs\n" for path in taken)
        a, b = store.note_path(by_title(store, "A")), store.note_path(by_title(store, "B"))
        assert a not in taken and b not in taken
        links = a.read_text().split("(")[1:]
        led = [posixpath.normpath(a.parent / unquote(t.partition(")")[0])) for t in links]
        assert led == [str(b), str(a)]  # (each to the note's file, not to the other program's)
        assert store.get_note(by_title(store, "A")).body == a.read_text()
