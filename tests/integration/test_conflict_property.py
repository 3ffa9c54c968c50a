"""Property: whatever mix of editor saves, edits from other processes and conflict resolutions
happens to a note, every version anyone saved is the note's text now or one of its revisions,
and every text kept as a conflict copy is in that copy. On both backends.

The editor session is what the app's editor does (saves based on the version it opened, with an
editing session, settling a conflict with ``resolve``); the other process is ``noted edit``
(``--append`` or ``--body-file``), run through the CLI's entry point with its own services on
the same profile each time, as another shell would. The only
versions the model lets go are those a later save of the *same* session replaced while no one
else saved in between: the one collapse the rules allow. A store that folded separate saves into
one revision (as it did before: one actor, ten minutes) loses a version and fails here.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.backends import BACKENDS, open_backend, profile_dir
from tests.support.joplin import shared_server

from noted.cli import main
from noted.errors import ConflictError
from noted.models import ACTOR_USER, Note, NoteDraft, NotePatch
from noted.ops.conflicts import Choice, Conflict, resolve
from noted.store.protocol import Store
from noted.store.sqlite import SqliteStore
from noted.store.vault import VaultStore

CHOICES = (Choice.KEEP_BOTH, Choice.THEIRS, Choice.OVERWRITE)

# type: the editor appends a word and saves (settling a conflict with the choice);
# other: another process appends (or replaces the body); reopen: the editor closes and opens again.
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("type"), st.sampled_from(CHOICES)),
        st.tuples(st.just("other"), st.booleans()),
        st.tuples(st.just("reopen"), st.just(False)),
    ),
    min_size=1,
    max_size=8,
)


@contextmanager
def other_process(backend: str, root: Path) -> Iterator[Store]:
    """A second store on the same profile: its own connection and its own editing sessions."""
    store: Store
    if backend == "sqlite":
        store = SqliteStore.open(root / "notes.db", root / "resources")
    elif backend == "vault":
        store = VaultStore.open(root / "vault", profile_dir(backend, root))
    else:
        store = shared_server(root.parent).store(root)
    try:
        yield store
    finally:
        store.close()


@dataclass
class Shell:
    """``noted edit`` on the test's profile, as typed in another shell."""

    backend: str
    root: Path
    capsys: pytest.CaptureFixture[str]

    def edit(self, note_id: str, *options: str) -> None:
        joplin = {"joplin": ("--joplin",), "vault": ("--vault", str(self.root / "vault"))}.get(
            self.backend, ()
        )
        self.capsys.readouterr()
        code = main(
            ["edit", note_id, *options, "--profile", str(profile_dir(self.backend, self.root)), *joplin]
        )
        assert code == 0, self.capsys.readouterr().err


@pytest.fixture(params=BACKENDS)
def stores(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[str, Store, Store, Shell]]:
    root = tmp_path / "store"
    with open_backend(request.param, root) as store, other_process(request.param, root) as other:
        if request.param == "joplin":
            server = shared_server(root.parent)
            monkeypatch.setenv("NOTED_JOPLIN_URL", server.url)
            monkeypatch.setenv("NOTED_JOPLIN_TOKEN", server.token)
        monkeypatch.setenv("NOTED_SEARCH_INDEXER_ENABLED", "false")
        yield request.param, store, other, Shell(request.param, root, capsys)


@dataclass
class Editor:
    """The app's editor on one note: the version it opened, its session, the text typed so far."""

    base: Note
    session: str = field(default_factory=lambda: uuid.uuid4().hex)
    words: int = 0

    def reopen(self, note: Note) -> None:
        self.base, self.session = note, uuid.uuid4().hex


@dataclass
class Model:
    """What must still be found: each saved (title, body), and each conflict copy's text."""

    versions: list[tuple[str, str]]
    copies: list[tuple[str, str]] = field(default_factory=list)
    last_session: str | None = None
    """The session of the newest save, when an editor session made it (its next save may join)."""

    def saved(self, note: Note, session: str | None = None) -> None:
        if session is not None and session == self.last_session:
            self.versions[-1] = (note.title, note.body)  # the collapse the rules allow
        else:
            self.versions.append((note.title, note.body))
        self.last_session = session


def _type(store: Store, editor: Editor, model: Model, choice: Choice, n: int) -> None:
    text = f"{editor.base.body}\nmine {n}"
    try:
        note = store.update_note(
            editor.base.id,
            NotePatch(body=text),
            actor=ACTOR_USER,
            base_updated_time=editor.base.updated_time,
            session=editor.session,
        )
    except ConflictError:
        conflict = Conflict.read(store, editor.base, editor.base.title, text)
        resolved = resolve(store, conflict, choice, actor=ACTOR_USER)
        if resolved.copy is not None:
            model.copies.append((resolved.copy.id, text))
        else:
            model.saved(dataclasses.replace(resolved.note, body=text))  # the person's side
            model.saved(resolved.note)  # theirs again (THEIRS), or the person's as current
        model.last_session = None
        editor.reopen(resolved.note)
        return
    model.saved(note, editor.session)
    editor.base = note


def _check(store: Store, note_id: str, model: Model) -> None:
    current = store.get_note(note_id)
    history = store.note_history(note_id)

    def same(title: str, body: str) -> tuple[str, str]:
        # A Markdown folder keeps a file's final newline when the text saved over it has none
        # (``noted.store.vault.text``): after `noted edit --append`, which ends its line, the
        # person's text comes back with one. The words are what must not be lost.
        return (title, body.removesuffix("\n")) if isinstance(store, VaultStore) else (title, body)

    kept = {same(current.title, current.body)} | {same(r.title, r.body) for r in history}
    lost = [v for v in model.versions if same(*v) not in kept]
    assert not lost, f"saved versions no longer found: {lost}"
    for revision in history:  # each listed revision can be shown (restore is a save of one)
        assert store.get_revision(revision.id).body == revision.body
    for copy_id, text in model.copies:
        copy = store.get_note(copy_id)
        assert copy.body.endswith(f"\n\n{text}") and copy.parent_id == current.parent_id


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=STEPS)
def test_every_saved_version_stays_findable(
    stores: tuple[str, Store, Store, Shell], tmp_path: Path, steps: list[tuple[str, object]]
) -> None:
    _, store, _, shell = stores
    folder = store.create_folder(f"Prop {uuid.uuid4().hex[:8]}", actor=ACTOR_USER)
    note = store.create_note(NoteDraft(title="Prop", body="v0", parent_id=folder.id), actor=ACTOR_USER)
    model = Model([(note.title, note.body)])
    editor = Editor(note)
    for n, (kind, arg) in enumerate(steps):
        if kind == "type":
            _type(store, editor, model, arg, n)  # type: ignore[arg-type]
        elif kind == "other":
            if arg:
                body = tmp_path / "body.md"
                body.write_text(f"replaced {n}", encoding="utf-8")
                shell.edit(note.id, "--body-file", str(body))
            else:
                shell.edit(note.id, "--append", f"theirs {n}")
            model.saved(store.get_note(note.id))
        else:
            editor.reopen(store.get_note(note.id))
    _check(store, note.id, model)


def test_three_separate_appends_are_three_revisions(stores: tuple[str, Store, Store, Shell]) -> None:
    # The case reported, on each backend: before, one actor's saves within ten minutes were one.
    _, store, other, _ = stores
    folder = store.create_folder("Hist", actor=ACTOR_USER)
    note = store.create_note(NoteDraft(title="Hist test", body="v1", parent_id=folder.id), actor=ACTOR_USER)
    for text in ("v2", "v3"):
        other.update_note(note.id, NotePatch(append=text), actor=ACTOR_USER)
    bodies = [store.get_revision(r.id).body for r in store.note_history(note.id)]
    assert bodies == ["v1\nv2\nv3", "v1\nv2", "v1"]
    oldest = store.note_history(note.id)[-1]
    assert store.restore_revision(oldest.id, actor=ACTOR_USER).body == "v1"


def test_overwriting_an_edit_made_in_joplin_keeps_it_as_a_revision(tmp_path: Path) -> None:
    # Joplin's own app writes without noted: its version must still be a revision once noted's
    # Overwrite lands, or "theirs is saved as its own revision first" would not hold there.
    with open_backend("joplin", tmp_path / "store") as store:
        folder = store.create_folder("Desk", actor=ACTOR_USER)
        base = store.create_note(
            NoteDraft(title="Draft", body="first", parent_id=folder.id), actor=ACTOR_USER
        )
        shared_server(tmp_path).api("PUT", f"/notes/{base.id}", {"body": "edited in Joplin"})
        with pytest.raises(ConflictError):
            store.update_note(
                base.id, NotePatch(body="mine"), actor=ACTOR_USER, base_updated_time=base.updated_time
            )
        conflict = Conflict.read(store, base, base.title, "mine")
        resolve(store, conflict, Choice.OVERWRITE, actor=ACTOR_USER)
        assert [r.body for r in store.note_history(base.id)] == ["mine", "edited in Joplin", "first"]
