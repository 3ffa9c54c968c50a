"""The Markdown-folder backend when something happens to a file while noted works on it: another
program writing it between noted's read and its rename, a file deleted while its note is edited."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.support.vaults import by_title, git, opened

from noted.errors import ConflictError
from noted.models import ACTOR_OUTSIDE, NotePatch


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "Projects").mkdir(parents=True)
    (root / "Projects" / "Alpha.md").write_text("# Alpha\n")
    git(root, "init", "-q")
    return root


def outside_writes(monkeypatch: pytest.MonkeyPatch, path: Path, texts: list[str]) -> None:
    """Another program appends the next of ``texts`` to ``path`` each time noted has written a
    temporary file of its own (its read of ``path`` done, its rename not yet): a write landing in
    the window, every time, without a race."""

    real = os.fsync

    def fsync(fd: int) -> None:
        real(fd)
        if texts:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(texts.pop(0))

    monkeypatch.setattr(os, "fsync", fsync)


def test_an_append_meeting_an_outside_write_keeps_both_and_the_outside_one_in_history(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write replaced the file with what noted had read plus its line: the other program's
    line was gone from the file and, never read, from the history too."""
    path = vault / "Projects" / "Alpha.md"
    with opened(vault, tmp_path / "profile") as store:
        alpha = by_title(store, "Alpha")
        outside_writes(monkeypatch, path, ["Q-1\n"])
        store.update_note(alpha, NotePatch(append="P-1\n"), actor="user")
        assert path.read_text() == "# Alpha\nQ-1\nP-1\n"  # the append went onto the other text
        mine, theirs = store.note_history(alpha)[:2]
        assert (mine.actor, theirs.actor) == ("user", ACTOR_OUTSIDE)
        assert theirs.body == "# Alpha\nQ-1\n"


def test_a_save_meeting_an_outside_write_is_a_conflict_and_replaces_nothing(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = vault / "Projects" / "Alpha.md"
    with opened(vault, tmp_path / "profile") as store:
        alpha = store.get_note(by_title(store, "Alpha"))
        outside_writes(monkeypatch, path, ["Q-1\n"])
        with pytest.raises(ConflictError):
            patch = NotePatch(body="# Alpha\nMine.\n")
            store.update_note(alpha.id, patch, actor="user", base_updated_time=alpha.updated_time)
        assert path.read_text() == "# Alpha\nQ-1\n"
        assert store.note_history(alpha.id)[0].actor == ACTOR_OUTSIDE
        assert store.get_note(alpha.id).body == "# Alpha\nQ-1\n"  # the conflict view shows it


def test_a_tag_meeting_an_outside_write_keeps_the_outside_text(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = vault / "Projects" / "Alpha.md"
    with opened(vault, tmp_path / "profile") as store:
        alpha = by_title(store, "Alpha")
        outside_writes(monkeypatch, path, ["Q-1\n"])
        store.tag_note(alpha, ["work"], actor="user")
        assert path.read_text() == "---\ntags:\n- work\n---\n\n# Alpha\nQ-1\n"


def test_a_file_changing_at_every_write_is_never_replaced(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = vault / "Projects" / "Alpha.md"
    lines = [f"Q-{i}\n" for i in range(20)]
    with opened(vault, tmp_path / "profile") as store:
        alpha = by_title(store, "Alpha")
        outside_writes(monkeypatch, path, lines)
        with pytest.raises(ConflictError, match="changed outside noted"):
            store.update_note(alpha, NotePatch(append="P-1\n"), actor="user")
        written = path.read_text()
        assert "P-1" not in written and written.startswith("# Alpha\nQ-0\nQ-1\nQ-2\nQ-3\nQ-4\n")
        assert "Q-3" in store.get_note(alpha).body  # followed as it went
