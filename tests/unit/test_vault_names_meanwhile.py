"""A batch keeps the names of a folder it listed (``Vault.free_name``): a file another program
makes meanwhile under a name the batch then picks is never replaced."""

from __future__ import annotations

from pathlib import Path

from tests.support.vaults import fresh, opened

from noted.models import NoteDraft


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
