"""A property of the Markdown folder: whatever the interleaving of outside edits and renames, the
watcher catching up (or not yet), noted's saves and the conflict choices, every version ever written
that noted could see is on disk or in a note's history.

A version is one unique word. An outside edit that another outside edit replaces before noted looked
(no watcher batch, no save by noted between them) is the outside's own overwrite, which no tool can
keep; every other version, noted's and the outside's, must survive.

Not vacuous: with the save's look at the file (``VaultCore.catch_up``) taken out, it fails at once on
``[outside_edit, save]`` (the editor's version overwritten by noted's).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from noted.errors import ConflictError
from noted.models import Note, NoteDraft, NotePatch
from noted.ops.conflicts import Choice, Conflict, resolve
from noted.store.vault import VaultStore
from noted.store.vault.text import FileText

CHOICES = (Choice.KEEP_BOTH, Choice.THEIRS, Choice.OVERWRITE)
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("outside_edit"), st.just(None)),
        st.tuples(st.just("outside_rename"), st.just(None)),
        st.tuples(st.just("watcher"), st.just(None)),
        st.tuples(st.just("save"), st.sampled_from(CHOICES)),
        st.tuples(st.just("reopen"), st.just(None)),
    ),
    min_size=1,
    max_size=10,
)


@dataclass
class World:
    store: VaultStore
    root: Path
    editor: Note
    path: Path
    words: itertools.count[int] = field(default_factory=itertools.count)
    required: set[str] = field(default_factory=set)
    unseen: str | None = None
    """The outside's latest version, not yet seen by noted."""
    renamed_from: Path | None = None

    def word(self, who: str) -> str:
        return f"{who}{next(self.words)}x"

    def seen(self) -> None:
        if self.unseen is not None:
            self.required.add(self.unseen)
            self.unseen = None

    def outside_edit(self) -> None:
        word = self.word("outside")
        text = self.path.read_text()
        self.path.write_text(text.rstrip("\n") + f"\n{word}\n")  # in place, as many editors save
        self.unseen = word

    def outside_rename(self) -> None:
        target = self.path.with_name(f"renamed {next(self.words)}.md")
        os.rename(self.path, target)
        self.renamed_from, self.path = self.renamed_from or self.path, target

    def watcher(self) -> None:
        paths = [self.path.relative_to(self.root).as_posix()]
        if self.renamed_from is not None:
            paths.append(self.renamed_from.relative_to(self.root).as_posix())
            self.renamed_from = None
        self.store.follower.apply(paths)
        self.seen()

    def save(self, choice: Choice) -> None:
        word = self.word("noted")
        self.required.add(word)
        body = self.editor.body.rstrip("\n") + f"\n{word}\n"
        self.seen()  # the save looks at the file first, whatever it finds
        try:
            self.editor = self.store.update_note(
                self.editor.id, NotePatch(body=body), actor="user", base_updated_time=self.editor.updated_time
            )
        except ConflictError:
            conflict = Conflict.read(self.store, self.editor, self.editor.title, body)
            self.editor = resolve(self.store, conflict, choice, actor="user").note
        mine = self.store.note_path(self.editor.id)
        if mine.exists():  # the outside edits noted's file from now on
            self.path, self.renamed_from = mine, None
        # Else the outside's file stays the one it edits: renamed and edited before noted looked,
        # it is another note to noted (the edits hide the rename), and the editor's note has no file.

    def reopen(self) -> None:
        self.editor = self.store.get_note(self.editor.id)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
@example(  # found in a full run: the editor's note lost its file, and the world looked for it there
    steps=[
        *[("outside_edit", None)] * 3,
        ("outside_rename", None),
        ("save", Choice.KEEP_BOTH),
        ("outside_edit", None),
    ]
)
def test_every_version_noted_could_see_is_on_disk_or_in_history(
    tmp_path_factory: object, steps: list[tuple[str, Choice | None]]
) -> None:
    base = Path(str(tmp_path_factory.mktemp("vault")))  # type: ignore[attr-defined]
    root = base / "notes"
    root.mkdir()
    store = VaultStore.open(root, base / "profile")
    try:
        folder = store.create_folder("Work", actor="user")
        note = store.create_note(NoteDraft("Plan", "start\n", folder.id), actor="user")
        world = World(store, root, note, store.note_path(note.id))
        for action, arg in steps:
            method = getattr(world, action)
            method(arg) if arg is not None else method()
        store.follower.scan()  # the watcher's last batch: whatever changed since it last looked
        world.seen()
        on_disk = "".join(p.read_text() for p in root.rglob("*.md"))
        history = "".join(r.body for m in store.list_notes() for r in store.note_history(m.id))
        history += "".join(r.body for m in store.list_notes(trashed=True) for r in store.note_history(m.id))
        lost = {w for w in world.required if w not in on_disk and w not in history}
        assert not lost, f"versions lost: {sorted(lost)} after {steps}"
        # The mirror agrees with the files: every file is one live note with its text.
        files = {
            p.relative_to(root).as_posix(): FileText.parse(p.read_text()).body
            for p in root.rglob("*.md")
            if ".trash" not in p.parts
        }
        mirror = {path: store.get_note(i).body for i, path in store.note_paths().items()}
        assert mirror == files
    finally:
        store.close()
