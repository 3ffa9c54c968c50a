"""A proposal whose apply a kill cut short can be accepted again at once, and writes once.

``noted changes accept`` runs in a real process that kills itself (SIGKILL, nothing run on the way
out) inside the apply: once before the write (an edit), once after the new note's write committed
and before the proposal was settled (a new note). The next ``noted changes accept``, started right
away, takes the claim over and applies it; the new note is not made a second time.

Not vacuous: before, the claim of a process that was gone held for five minutes
(``STUCK_MS``): the second accept was refused ("accepted already: it is being applied"), and, once
allowed, the new note's apply ran again and made a second note.
"""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.cli import env_with_src, run_noted

from noted.models import NoteDraft
from noted.profile import Profile
from noted.services import Services
from noted.store.review import ProposalState

KILLED_ACCEPT = """
import os, signal, sys
from noted.cli import main
from noted.ops import notes
from noted.tools import note_create

profile, ref = sys.argv[1], sys.argv[2]
real_create = note_create.create_note

def create(*args, **kwargs):
    made = real_create(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)  # the note is written, the proposal not yet settled

def update(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)  # claimed, nothing written yet

note_create.create_note, notes.update_note = create, update
main(["--profile", profile, "changes", "accept", ref])
"""


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    for tool in ("create_note", "update_note", "create_notebook", "attach_file"):
        s.settings.set(f"ai.tool.{tool}.enabled", True)
    yield s
    s.close()


def _propose(services: Services, tool: str, args: dict[str, object]) -> str:
    ctx = dataclasses.replace(services.tool_context("mcp:bot"), writes_wait=True)
    answer = asyncio.run(services.registry.call(tool, args, ctx))
    assert answer.ok and answer.payload is not None and answer.payload["status"] == "pending_review"
    return str(answer.payload["proposal"])


def _killed_accept(profile: Path, ref: str) -> None:
    code = textwrap.dedent(KILLED_ACCEPT)
    killed = subprocess.run(
        [sys.executable, "-c", code, str(profile), ref], env=env_with_src(), capture_output=True, check=False
    )
    assert killed.returncode == -9, killed.stderr


def test_a_new_note_whose_apply_was_killed_is_applied_again_at_once_and_made_once(
    services: Services, tmp_path: Path
) -> None:
    profile = tmp_path / "profile"
    work = services.store.create_folder("Work", actor="user")
    ref = _propose(services, "create_note", {"title": "Idea", "body": "one\n", "notebook_id": work.id})
    _killed_accept(profile, ref)
    [made] = [n for n in services.store.list_notes() if n.title == "Idea"]  # the kill came after it
    rows = services.review.rows
    assert rows.proposal(int(ref[1:])).state is ProposalState.APPLYING

    again = run_noted(profile, "changes", "accept", ref)  # at once, not five minutes later
    assert again.returncode == 0, again.stderr
    assert [n.id for n in services.store.list_notes() if n.title == "Idea"] == [made.id]
    settled = rows.proposal(int(ref[1:]))
    assert (settled.state, settled.result_note_id) == (ProposalState.APPLIED, made.id)


def test_an_edit_whose_apply_was_killed_before_writing_is_applied_again_at_once(
    services: Services, tmp_path: Path
) -> None:
    profile = tmp_path / "profile"
    work = services.store.create_folder("Work", actor="user")
    note = services.store.create_note(NoteDraft("Plan", "one\n", parent_id=work.id), actor="user")
    ref = _propose(services, "update_note", {"id": note.id, "append": "two"})
    _killed_accept(profile, ref)
    assert services.store.get_note(note.id).body == "one\n"
    listed = run_noted(profile, "changes", "--pending")
    assert "noted stopped while applying it" in listed.stdout, listed.stdout

    again = run_noted(profile, "changes", "accept", ref)
    assert again.returncode == 0, again.stderr
    assert services.store.get_note(note.id).body.count("two") == 1


KILLED_AFTER = """
import os, signal, sys
from noted.cli import main
from noted.store.sqlite.folders import Folders
from noted.store.sqlite.notes import Notes
from noted.store.sqlite.resources import Resources

profile, ref, where = sys.argv[1], sys.argv[2], sys.argv[3]

def killing(real):
    def run(*args, **kwargs):
        made = real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)  # written, the proposal not yet settled
    return run

def dying(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

if where == "notebook":
    Folders.create_folder = killing(Folders.create_folder)
elif where == "linked":
    Notes.update_note = killing(Notes.update_note)
else:  # "stored": the file stored, the note not yet linking it
    Notes.update_note = dying
main(["--profile", profile, "changes", "accept", ref])
"""

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@pytest.mark.parametrize("where", ["notebook", "linked", "stored"])
def test_any_creating_tool_whose_apply_was_killed_makes_its_item_once(
    services: Services, tmp_path: Path, where: str
) -> None:
    """Not vacuous: before, only create_note's proposal had its id fixed; a killed accept of
    create_notebook or attach_file, accepted again, made a second notebook or attachment."""
    profile = tmp_path / "profile"
    work = services.store.create_folder("Work", actor="user")
    note = services.store.create_note(NoteDraft("Plan", "one\n", parent_id=work.id), actor="user")
    if where == "notebook":
        ref = _propose(services, "create_notebook", {"title": "Ideas", "parent_id": work.id})
    else:
        args: dict[str, object] = {
            "note_id": note.id,
            "filename": "dot.png",
            "mime": "image/png",
            "content_base64": PNG,
        }
        ref = _propose(services, "attach_file", args)
    code = textwrap.dedent(KILLED_AFTER)
    killed = subprocess.run(
        [sys.executable, "-c", code, str(profile), ref, where],
        env=env_with_src(),
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -9, killed.stderr

    again = run_noted(profile, "changes", "accept", ref)
    assert again.returncode == 0, again.stderr
    settled = services.review.rows.proposal(int(ref[1:]))
    assert settled.state is ProposalState.APPLIED
    if where == "notebook":
        assert [f.id for f in services.store.list_folders() if f.title == "Ideas"] == [settled.result_note_id]
    else:
        assert [r.id for r in services.store.list_resources()] == [settled.result_note_id]
        assert services.store.get_note(note.id).body.count(settled.result_note_id) == 1


KILLED_AFTER_EDIT = """
import os, signal, sys
from noted.cli import main
from noted.ops import notes

profile, folder, ref = sys.argv[1], sys.argv[2], sys.argv[3]
real_update = notes.update_note

def update(*args, **kwargs):
    real_update(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)  # the file written, the proposal not yet settled

notes.update_note = update
main(["--profile", profile, "--vault", folder, "changes", "accept", ref])
"""


def test_an_append_to_a_markdown_file_whose_apply_was_killed_after_writing_is_settled_once(
    tmp_path: Path,
) -> None:
    """Not vacuous: the file keeps its final newline, which the proposal's own text lacked, so
    the accept that followed the kill did not see its append there: it refused, saying the note
    changed since it was proposed (exit 3), and the proposal waited for a change already made."""
    folder = tmp_path / "notes"
    (folder / "Work").mkdir(parents=True)
    (folder / "Work" / "Plan.md").write_text("# Plan\n\none\n", encoding="utf-8")
    profile = Profile(tmp_path / "profile").ensure()
    services = Services.open(profile, welcome=False, vault=str(folder))
    try:
        services.settings.set("ai.tool.update_note.enabled", True)
        [note] = services.store.list_notes()
        ref = _propose(services, "update_note", {"id": note.id, "append": "two"})
        code = textwrap.dedent(KILLED_AFTER_EDIT)
        killed = subprocess.run(
            [sys.executable, "-c", code, str(profile.root), str(folder), ref],
            env=env_with_src(),
            capture_output=True,
            check=False,
        )
        assert killed.returncode == -9, killed.stderr
        assert (folder / "Work" / "Plan.md").read_text(encoding="utf-8").count("two") == 1  # written
        listed = run_noted(profile.root, "--vault", str(folder), "changes", "--pending")
        assert "stopped while applying it" in listed.stdout, listed.stdout  # not "before writing it"

        again = run_noted(profile.root, "--vault", str(folder), "changes", "accept", ref)
        assert again.returncode == 0, again.stderr
        assert (folder / "Work" / "Plan.md").read_text(encoding="utf-8").count("two") == 1
        assert services.review.rows.proposal(int(ref[1:])).state is ProposalState.APPLIED
    finally:
        services.close()
