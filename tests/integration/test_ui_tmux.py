"""End to end: the real ``noted`` command in a real terminal (tmux), driven by keys as a person would.

tmux runs on a private socket so the test neither sees nor disturbs the person's own sessions,
and the app gets its environment from the command line (a tmux server started earlier would
otherwise hand it its own).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tests.integration.ui_support import Fixture, build_profile
from tests.support.polling import wait_for

from noted.store.sqlite import SqliteStore

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0  # generous: a loaded CI machine starts Python slowly; the test never sleeps longer than needed


class Terminal:
    """One tmux session on a private server."""

    def __init__(self, socket: str, session: str) -> None:
        self.socket = socket
        self.session = session

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=check)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.session, *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.session, "-l", text)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session).stdout

    def alive(self) -> bool:
        return self.tmux("has-session", "-t", self.session, check=False).returncode == 0

    def wait_for(self, what: str | Callable[[str], bool]) -> str:
        test = (lambda screen: what in screen) if isinstance(what, str) else what
        seen = [""]

        def shown() -> bool:
            seen[0] = self.screen() if self.alive() else ""
            return test(seen[0])

        try:
            wait_for(shown, what=f"the screen to show {what!r}", timeout=WAIT, interval=0.1)
        except AssertionError as exc:
            raise AssertionError(f"{exc}; it shows:\n{seen[0]}") from None
        return seen[0]

    def wait_closed(self) -> None:
        """Wait until the session has ended (the app quit)."""
        wait_for(lambda: not self.alive(), what="the app to end its tmux session", timeout=WAIT, interval=0.1)


@pytest.fixture
def fixture(tmp_path: Path) -> Fixture:
    return build_profile(tmp_path / "profile")


@pytest.fixture
def terminal(fixture: Fixture, tmp_path: Path) -> Iterator[Terminal]:
    with start_terminal(fixture, tmp_path) as term:
        yield term


@pytest.fixture
def narrow_terminal(fixture: Fixture, tmp_path: Path) -> Iterator[Terminal]:
    with start_terminal(fixture, tmp_path, width=80, height=24) as term:
        yield term


@contextmanager
def start_terminal(
    fixture: Fixture,
    tmp_path: Path,
    width: int = 120,
    height: int = 40,
    script: str = "{noted}",
    **extra_env: str,
) -> Iterator[Terminal]:
    """``noted`` on the fixture's profile in a new tmux session of that size, with ``extra_env`` set;
    ``script``: the shell script the session runs, in which ``{noted}`` is the command."""
    socket = f"noted-test-{uuid.uuid4().hex[:8]}"
    env = {
        "TZ": "UTC", "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "NOTED_SEARCH_INDEXER_ENABLED": "false", "NOTED_AI_ENABLED": "false", "TERM": "xterm-256color",
        "PYTHONPATH": str(ROOT / "src"), **extra_env,
    }  # fmt: skip
    command = " ".join(
        ["env", *(f"{k}={shlex.quote(v)}" for k, v in env.items()), shlex.quote(sys.executable), "-m", "noted",
         "--profile", shlex.quote(str(fixture.root))]
    )  # fmt: skip
    term = Terminal(socket, "noted")
    script = script.format(noted=command)
    term.tmux(
        "new-session",
        "-d",
        "-s",
        "noted",
        "-x",
        str(width),
        "-y",
        str(height),
        f"sh -c {shlex.quote(script)}",
    )
    try:
        yield term
    finally:
        term.tmux("kill-server", check=False)


def test_a_person_opens_reads_edits_and_quits(terminal: Terminal, fixture: Fixture) -> None:
    # Everything awaited in one predicate: tmux can be read while a frame is half written.
    terminal.wait_for(
        lambda s: "Notebooks" in s and "Release plan" in s and "Groceries" in s and "All notes · 4" in s
    )

    terminal.keys("g", "Enter")  # open the newest note; its outline shows beside it
    terminal.wait_for(lambda s: "1.2 Nice to have" in s and "Plans for the spring release." in s)

    terminal.keys("e")
    terminal.wait_for("Editing")
    terminal.type("Typed in tmux. ")
    terminal.wait_for("● Editing")
    terminal.keys("C-s")
    terminal.wait_for(lambda s: "● Editing" not in s and "saved" in s)

    store = SqliteStore.open(fixture.root / "notes.db", fixture.root / "resources")
    try:
        assert store.get_note(fixture.release).body.startswith("Typed in tmux. Plans for the spring release.")
    finally:
        store.close()

    terminal.keys("Escape")
    terminal.wait_for(lambda s: "Editing" not in s and "Typed in tmux." in s)
    terminal.keys("C-q")
    terminal.wait_closed()  # ctrl+q ends the app


def test_a_server_that_hangs_shows_the_wait_and_escape_stops_it(fixture: Fixture, tmp_path: Path) -> None:
    from tests.support.wire_server import SilentReply, WireServer

    with WireServer() as wire:
        wire.push(SilentReply(), SilentReply(), SilentReply())
        with start_terminal(
            fixture, tmp_path, NOTED_AI_ENABLED="true", NOTED_AI_PROVIDER="openai",
            NOTED_AI_MODEL="test-model", NOTED_AI_BASEURL=wire.base_url + "/v1", NOTED_AI_TIMEOUTSECONDS="600",
        ) as terminal:  # fmt: skip
            terminal.wait_for("Release plan")
            terminal.keys("C-t")
            terminal.wait_for("Ask about")
            terminal.type("Hello?")
            terminal.keys("Enter")
            # Not vacuous: before, the pane said "Answering…" and nothing more for 3 × 600 s.
            terminal.wait_for(
                lambda s: "of 600 s" in s and "Waiting for the model…" in s and "Esc stops" in s
            )
            terminal.keys("Escape")
            terminal.wait_for(lambda s: "stopped" in s and "Waiting for the model" not in s)
            assert wire.disconnected.wait(WAIT)  # the app closed its request at once
            assert len(wire.requests) == 1
            terminal.keys("C-q")


def test_at_80x24_escape_from_the_chat_shows_the_list_before_d_trashes(
    narrow_terminal: Terminal, fixture: Fixture
) -> None:
    term = narrow_terminal
    term.wait_for(lambda s: "All notes · 4" in s and "Release plan" in s)
    term.keys("C-t")
    term.wait_for("The assistant is off")  # the chat covers the whole screen
    term.keys("Escape")
    # Not vacuous: the chat stayed on screen while Esc had put the focus in the hidden list.
    screen = term.wait_for(lambda s: "All notes · 4" in s and "The assistant is off" not in s)
    assert "Release plan" in screen
    term.keys("d")  # on the list the person now sees: its highlighted note, the newest
    term.wait_for("All notes · 3")
    store = SqliteStore.open(fixture.root / "notes.db", fixture.root / "resources")
    try:
        assert store.get_note(fixture.release).is_trashed
    finally:
        store.close()


def test_at_80_columns_the_key_bar_shows_help_and_the_palette_whole(narrow_terminal: Terminal) -> None:
    """They were the first keys cut (``f1 H…``, no ``^p``); ``?`` then lists what the bar leaves out."""
    screen = narrow_terminal.wait_for(lambda s: "Release plan" in s and "palette" in s)
    bar = screen.rstrip("\n").splitlines()[-1]
    assert "f1 Help" in bar and bar.rstrip().endswith("^p palette"), bar
    narrow_terminal.keys("?")
    # The panel paints its title before its lines: wait for the lines (the list's own keys first).
    narrow_terminal.wait_for(
        lambda s: "Keys · Notes" in s and "Open the highlighted note" in s and "Esc closes" in s
    )
    narrow_terminal.keys("Escape")
    narrow_terminal.wait_for(lambda s: "Keys · Notes" not in s and "Release plan" in s)


def test_the_first_start_in_a_terminal_makes_the_notebook_and_says_where(tmp_path: Path) -> None:
    # A profile is made only when asked (noted init) or here, at the first start in a terminal,
    # which must say where: a mistyped --profile elsewhere is refused (test_cli_edges).
    profile = tmp_path / "new-profile"
    env = {
        "TZ": "UTC", "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "NOTED_SEARCH_INDEXER_ENABLED": "false", "NOTED_AI_ENABLED": "false", "TERM": "xterm-256color",
        "PYTHONPATH": str(ROOT / "src"),
    }  # fmt: skip
    command = " ".join(
        ["env", *(f"{k}={shlex.quote(v)}" for k, v in env.items()), shlex.quote(sys.executable), "-m", "noted",
         "--profile", shlex.quote(str(profile))]
    )  # fmt: skip
    term = Terminal(f"noted-test-{uuid.uuid4().hex[:8]}", "noted")
    term.tmux("new-session", "-d", "-s", "noted", "-x", "120", "-y", "40", command)
    try:
        term.tmux("set-option", "-t", "noted", "remain-on-exit", "on")
        term.wait_for(lambda s: "Start here" in s and "Welcome" in s)  # the new notebook, on screen
        term.keys("C-q")
        term.wait_for(f"made a new notebook at {profile}")  # said before the app took the screen
    finally:
        term.tmux("kill-server", check=False)
    assert (profile / "notes.db").is_file()
