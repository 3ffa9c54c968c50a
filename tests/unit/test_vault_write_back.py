"""A note's file written back after it went (deleted outside noted, or from ``.trash/``) is the file
noted last saw, front matter byte for byte, with only noted's own changes since.

Before, the write-back rebuilt the file from the mirror (its body, to-do keys and tags): keys noted
does not model (``aliases``, ``custom``) were lost, ``tags`` became a block list, a blank line was
added, and front matter that is not YAML was dropped whole. Not vacuous: ``git status`` compares
the restored file with the committed one byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.vaults import by_title, git, opened

from noted.models import ACTOR_USER

RICH = "---\nsource: https://x.example\naliases: [foo]\ncustom: keep me\ntags: [k1]\n---\n# Rich\nbody text\n"
UNREAD = "---\nsource: [unclosed\ncustom: keep me\n---\n# Rich\nbody text\n"


@pytest.fixture(params=[RICH, UNREAD], ids=["keys-noted-does-not-model", "front-matter-not-yaml"])
def vault(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "rich.md").write_bytes(request.param.encode())
    git(root, "init", "-q")
    git(root, "add", "sub/rich.md")
    git(root, "commit", "-qm", "notes")
    return root


def test_a_file_deleted_outside_noted_is_restored_as_it_was(vault: Path, tmp_path: Path) -> None:
    with opened(vault, tmp_path / "p") as store:
        rich = by_title(store, "Rich")
    (vault / "sub" / "rich.md").unlink()
    with opened(vault, tmp_path / "p") as store:  # its scan finds the file gone: the note trashed
        assert store.get_note(rich).is_trashed
        store.restore_note(rich, actor=ACTOR_USER)
    assert git(vault, "status", "--porcelain") == ""


def test_a_trashed_notes_file_deleted_from_the_trash_is_restored_as_it_was(
    vault: Path, tmp_path: Path
) -> None:
    with opened(vault, tmp_path / "p") as store:
        rich = by_title(store, "Rich")
        store.trash_note(rich, actor=ACTOR_USER)
        (vault / ".trash" / "sub" / "rich.md").unlink()
        store.restore_note(rich, actor=ACTOR_USER)
    assert git(vault, "status", "--porcelain") == ""


def test_a_write_back_applies_only_noteds_change_since(tmp_path: Path) -> None:
    """A tag added while the file was gone changes the ``tags`` line, in its own style, and nothing
    else (``git diff`` shows just that line)."""
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "rich.md").write_text(RICH)
    git(root, "init", "-q")
    git(root, "add", "sub/rich.md")
    git(root, "commit", "-qm", "notes")
    with opened(root, tmp_path / "p") as store:
        rich = by_title(store, "Rich")
        store.trash_note(rich, actor=ACTOR_USER)
        (root / ".trash" / "sub" / "rich.md").unlink()
        store.tag_note(rich, ["k2"], actor=ACTOR_USER)
        store.restore_note(rich, actor=ACTOR_USER)
    diff = git(root, "diff", "--unified=0", "--no-color", "sub/rich.md").splitlines()
    assert [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")] == [
        "-tags: [k1]",
        "+tags: [k1, k2]",
    ]


def test_a_sidecar_from_before_keeps_the_file_at_its_next_start(vault: Path, tmp_path: Path) -> None:
    """A profile whose sidecar kept no front (made by an older noted: its table empty) keeps it
    from the unchanged file at its next start, so a deletion after that loses nothing either."""
    with opened(vault, tmp_path / "p") as store:
        rich = by_title(store, "Rich")
        with store.core.db.write() as conn:
            conn.execute("DELETE FROM vault_fronts")
    with opened(vault, tmp_path / "p"):
        pass
    (vault / "sub" / "rich.md").unlink()
    with opened(vault, tmp_path / "p") as store:
        store.restore_note(rich, actor=ACTOR_USER)
    assert git(vault, "status", "--porcelain") == ""
