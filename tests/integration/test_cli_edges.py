"""The command line at its edges (issue 34): history pruning, the trash, the last bad inputs.

Each test names what failed before its fix.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import Cli, env_with_src, run_noted

from noted.store.history.thinning import DAY_MS


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


def _age_revisions(cli: Cli, days: int) -> None:
    store = cli.store()
    try:
        with store.db.write() as conn:
            conn.execute("UPDATE revisions SET time = time - ?", (days * DAY_MS,))
    finally:
        store.close()


def test_history_prune_thins_old_revisions_and_says_what_it_freed(cli: Cli) -> None:
    note = cli.ok("create", "Log", "--body", "start\n").out.strip()
    for i in range(6):
        cli.ok("edit", note, "--append", f"line {i}\n")
    _age_revisions(cli, 40)
    before = cli.json("history", note)

    result = cli.ok("history", "--prune")

    after = cli.json("history", note)
    assert len(before) == 7 and [r["id"] for r in after] == [before[0]["id"]]  # the last of that day
    assert result.out.startswith("Thinned 6 old revisions across ") and "MB to " in result.out
    again = cli.json("history", "--prune")
    assert again["removed"] == 0 and again["notes"] >= 1 and again["size_after"] <= again["size_before"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["history", "--prune", "Log"], "give no note with it"),
        (["history"], "name a note"),
    ],
)
def test_history_without_a_note_or_with_one_and_prune_is_refused(
    cli: Cli, args: list[str], fragment: str
) -> None:
    cli.ok("create", "Log", "--body", "x")
    before = cli.cursor()
    result = cli(*args)
    assert (result.code, result.err.count("\n")) == (2, 1) and fragment in result.err
    assert cli.cursor() == before


# The last bad inputs (before: exit 70, an internal error, and a traceback for the link loop) ----
@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["notes", "--limit", "99999999999999999999"], "--limit must be between 1 and 1,000,000,000"),
        (["notes", "--limit", "0"], "--limit must be between 1 and"),  # not "No notes." where there are
        (["search", "x", "--offset", "99999999999999999999"], "--offset must be between 0 and"),
        (["history", "Start here", "--show", "99999999999999999999"], "--show must be between 1 and"),
        (["history", "Start here", "--restore", "-99999999999999999999"], "--restore must be between 1 and"),
    ],
)
def test_out_of_range_numbers_are_bad_input(cli: Cli, args: list[str], fragment: str) -> None:
    before = cli.cursor()
    result = cli(*args)
    assert (result.code, result.err.count("\n")) == (2, 1) and fragment in result.err, result.err
    assert cli.cursor() == before


def test_a_profile_path_that_is_not_utf8_is_refused_and_not_created(tmp_path: Path) -> None:
    bad = os.fsencode(tmp_path) + b"/prof\xff"
    done = subprocess.run(
        [sys.executable, "-m", "noted", "notes"],
        env=env_with_src(NOTED_PROFILE=os.fsdecode(bad)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "NOTED_PROFILE" in done.stderr and "not valid UTF-8" in done.stderr
    assert os.listdir(tmp_path) == []


def test_an_empty_profile_or_vault_is_refused_not_taken_for_the_default(tmp_path: Path) -> None:
    # `noted --profile "$P" empty-trash --yes` with P unset emptied the default profile's trash:
    # an empty --profile or NOTED_PROFILE was read as none given.
    home = tmp_path / "home"
    env = env_with_src(HOME=str(home), XDG_DATA_HOME=str(home / "data"))
    env.pop("NOTED_PROFILE", None)
    made = subprocess.run([sys.executable, "-m", "noted", "init"], env=env, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    default = home / "data" / "noted" / "notes.db"
    stamp = default.stat().st_mtime_ns
    runs = [
        (["--profile", "", "create", "X"], env, "--profile is empty"),
        (
            ["create", "X"],
            {**env, "NOTED_PROFILE": " "},
            "NOTED_PROFILE is empty (name the profile folder, or unset",
        ),
        (["--vault", "", "notes"], env, "--vault is empty"),
    ]
    for args, environ, fragment in runs:
        done = subprocess.run(
            [sys.executable, "-m", "noted", *args], env=environ, capture_output=True, text=True
        )
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert fragment in done.stderr, done.stderr
    assert default.stat().st_mtime_ns == stamp
    listed = subprocess.run([sys.executable, "-m", "noted", "notes"], env=env, capture_output=True, text=True)
    assert listed.returncode == 0 and " X " not in listed.stdout, listed.stdout


def test_a_loop_of_links_as_profile_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    done = run_noted(tmp_path / "a", "notes", init=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "loop of symbolic links" in done.stderr


# The trash (before: "moved to the trash" again; edit and tag changed a trashed note) ---------
def test_trashing_a_trashed_note_says_so_and_changes_nothing(cli: Cli) -> None:
    note = cli.ok("create", "Old", "--body", "x").out.strip()
    cli.ok("trash", note)
    before = cli.cursor()
    assert cli.ok("trash", note).out == '"Old" is already in the trash\n'
    assert cli.cursor() == before


@pytest.mark.parametrize(
    "args",
    [
        ["edit", "{id}", "--append", "more"],
        ["tag", "{id}", "t"],
        ["move", "{id}", "Inbox"],
        ["complete", "{id}"],
    ],
)
def test_a_trashed_note_is_not_changed_until_restored(cli: Cli, args: list[str]) -> None:
    note = cli.ok("create", "Old", "--body", "x", "--todo").out.strip()
    cli.ok("trash", note)
    before = cli.cursor()
    result = cli(*[a.format(id=note) for a in args])
    assert (result.code, result.err.count("\n")) == (1, 1), result.err
    assert '"Old" is in the trash; restore it first' in result.err and cli.cursor() == before


# The terminal app and new profiles ------------------------------------------------------------
def test_tui_without_a_terminal_refuses_in_one_line(tmp_path: Path) -> None:
    # Before: it drew into the pipe and never exited (the timeout below would fire).
    done = run_noted(tmp_path / "profile", "tui", stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "needs a terminal" in done.stderr
    assert done.stdout == ""


def test_a_mistyped_profile_is_refused_and_not_made(tmp_path: Path) -> None:
    # Before: `show` in it made a new profile with the Welcome notes; `notes` then listed only those.
    for args in (["show", "Start here"], ["notes"], ["create", "T", "--body", "x"]):
        done = run_noted(tmp_path / "typo", *args, init=False)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert f"there is no notebook at {tmp_path / 'typo'}" in done.stderr and "noted init" in done.stderr
    assert not (tmp_path / "typo").exists()
    made = run_noted(tmp_path / "typo", "init", init=False)
    assert made.returncode == 0 and made.stdout == f"made a new notebook at {tmp_path / 'typo'}\n"
    assert run_noted(tmp_path / "typo", "show", "Start here", init=False).returncode == 0


def test_a_dangling_notes_db_link_is_refused(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    profile.mkdir()
    (profile / "notes.db").symlink_to(tmp_path / "elsewhere" / "notes.db")
    done = run_noted(profile, "notes", init=False)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "which does not exist" in done.stderr
    assert not (tmp_path / "elsewhere").exists()


def test_a_mistyped_profile_with_vault_is_refused_and_init_makes_it(tmp_path: Path) -> None:
    # Before: `--profile TYPO --vault DIR notes` made TYPO quietly (exit 0), a second record of the
    # folder without the first one's history and chats. Now as without --vault: refused, nothing made.
    folder = tmp_path / "Notes"
    folder.mkdir()
    (folder / "Plan.md").write_text("the plan\n")
    profile = tmp_path / "typo"
    done = run_noted(profile, "--vault", str(folder), "notes", init=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"there is no notebook at {profile}" in done.stderr
    assert f"`noted --vault {folder} init` makes one there" in done.stderr
    assert not profile.exists() and sorted(p.name for p in folder.iterdir()) == ["Plan.md"]
    made = run_noted(profile, "--vault", str(folder), "init", init=False)
    assert made.returncode == 0 and "for the Markdown folder" in made.stdout, made.stderr
    assert (profile / "vault.db").exists()
    done = run_noted(profile, "--vault", str(folder), "notes", init=False)
    assert done.returncode == 0 and "Plan" in done.stdout, done.stderr


def _on_a_terminal(args: list[str], env: dict[str, str]) -> bytes:
    """What ``noted ARGS`` writes to a real terminal (a pseudo-terminal), stdout and stderr both."""
    import pty

    parent, child = pty.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "noted", *args], stdin=subprocess.DEVNULL, stdout=child, stderr=child,
        env=env, check=False, timeout=120,
    )  # fmt: skip
    os.close(child)
    out = b""
    while True:
        try:
            chunk = os.read(parent, 65536)
        except OSError:  # the terminal's other end is closed: all is read
            break
        if not chunk:
            break
        out += chunk
    os.close(parent)
    assert done.returncode == 0, out
    return out


def test_control_characters_of_a_note_are_pictured_on_a_terminal_and_kept_in_a_pipe(tmp_path: Path) -> None:
    """A title or body an AI app, a sync or an import wrote could drive the terminal: ``ESC]52``
    sets the clipboard, ``ESC]0`` the window title, ``ESC[2J`` clears the screen. ``noted notes``
    and ``noted show`` printed them as they were."""
    from noted.models import NoteDraft
    from noted.profile import Profile
    from noted.store.sqlite import SqliteStore

    env = env_with_src(NOTED_PROFILE=str(tmp_path / "p"))
    assert run_noted(tmp_path / "p", "init").returncode == 0
    profile = Profile(tmp_path / "p")
    store = SqliteStore.open(profile.db_path, profile.resources_dir)
    evil = "Evil\x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2J title"
    folder = store.list_folders()[0].id
    note = store.create_note(
        NoteDraft("Evil", "body \x1b]0;pwned\x07 and \x9b31m\rover\r\n", folder), actor="mcp"
    )
    with store.db.write() as conn:  # noted refuses such a title now; a Joplin sync or an older noted did not
        conn.execute("UPDATE notes SET title = ? WHERE id = ?", (evil, note.id))
    store.close()
    for args in (["notes"], ["show", note.id], ["search", "--mode", "keyword", "evil"]):
        shown = _on_a_terminal(args, env)
        assert b"\x1b" not in shown and b"\xc2\x9b" not in shown and b"\x07" not in shown, (args, shown)
        assert "Evil␛]52;c;cm0gLXJmIH4=␇ ␛[2J title".encode() in shown, (args, shown)
    assert "␛]0;pwned␇ and \ufffd31m␍over".encode() in _on_a_terminal(["show", note.id], env)
    piped = subprocess.run(
        [sys.executable, "-m", "noted", "show", note.id], env=env, capture_output=True, check=True
    )
    assert evil.encode() in piped.stdout and b"\x1b]0;pwned\x07" in piped.stdout  # the note's own bytes


def test_bidi_controls_of_a_note_are_left_out_on_a_terminal_and_kept_in_a_pipe_and_json(
    tmp_path: Path,
) -> None:
    """``noted notes`` and ``noted show`` wrote a title's right-to-left override as it was, so
    "Invoice \\u202efdp.exe" read "Invoice exe.pdf" on the terminal; the app leaves them out."""
    import json

    from noted.models import NoteDraft
    from noted.profile import Profile
    from noted.store.sqlite import SqliteStore

    env = env_with_src(NOTED_PROFILE=str(tmp_path / "p"))
    assert run_noted(tmp_path / "p", "init").returncode == 0
    profile = Profile(tmp_path / "p")
    store = SqliteStore.open(profile.db_path, profile.resources_dir)
    spoof, body = "Invoice \u202efdp.exe", "pay \u2067\u05d0\u2069 to \u200fBob\u200e\u061c now\n"
    note = store.create_note(NoteDraft("Invoice", body, store.list_folders()[0].id), actor="mcp")
    with store.db.write() as conn:  # noted refuses such a title; a Joplin sync or an older noted did not
        conn.execute("UPDATE notes SET title = ? WHERE id = ?", (spoof, note.id))
    store.close()
    marks = [c.encode() for c in "\u202e\u2067\u2069\u200f\u200e\u061c"]
    for args in (["notes"], ["show", note.id], ["search", "--mode", "keyword", "invoice"]):
        shown = _on_a_terminal(args, env)
        assert not [m for m in marks if m in shown], (args, shown)
        assert b"Invoice fdp.exe" in shown, (args, shown)  # not vacuous: the title is there
    assert "pay \u05d0 to Bob now".encode() in _on_a_terminal(["show", note.id], env)
    piped = subprocess.run(
        [sys.executable, "-m", "noted", "show", note.id], env=env, capture_output=True, check=True
    )
    assert spoof.encode() in piped.stdout and body.encode() in piped.stdout  # the note's own text
    given = _on_a_terminal(["show", "--json", note.id], env)
    assert not [m for m in marks if m in given], given  # escaped, as JSON may write any character
    assert (json.loads(given)["title"], json.loads(given)["body"]) == (spoof, body)  # the exact text
