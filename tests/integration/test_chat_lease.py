"""One conversation, two senders: the second is told another window answers, and nothing of it
is saved, so a reopened conversation reads in order (real ``noted ask`` processes, the real
openai SDK, a loopback server).

A sweep found two app windows on one profile, sending "from A" and "from B" in one note's
conversation at once, saving user A, user B, answer, answer; once B's stopped answer was lost.
The engine now answers only while holding the conversation's run lease, the app and ``noted ask``
alike; a holder killed with SIGKILL is known to be gone at once, so the conversation is not stuck.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

from tests.integration.test_cli_ask import (  # noqa: F401 (fixtures)
    LIVENESS,
    ai_env,
    ask,
    profile,
    text_reply,
    wire,
)
from tests.support.polling import wait_for
from tests.support.wire_server import WireServer

from noted.chat.transcripts import Transcripts
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.chats import SqliteChats


def _lines(root: Path) -> list[tuple[str, list[str]]]:
    store = SqliteStore.open(root / "notes.db", root / "resources")
    try:
        transcripts = Transcripts(SqliteChats(store.db))
        return [
            (c.id, [f"{type(m).__name__}: {getattr(m, 'text', '')}" for m in transcripts.transcript(c.id)])
            for c in transcripts.recent()
        ]
    finally:
        store.close()


def _answering(root: Path, server: WireServer, question: str) -> subprocess.Popen[str]:
    """``noted ask`` whose answer has begun streaming ("Half") and hangs there."""
    server.push(text_reply("Half", hang=True))
    child = subprocess.Popen(
        [sys.executable, "-m", "noted", "--profile", str(root), "ask", question],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=ai_env(server),
        text=True,
    )
    first: list[str] = []
    reader = threading.Thread(target=lambda: first.append(child.stdout.read(len("Half"))))  # type: ignore[union-attr]
    reader.start()
    reader.join(LIVENESS)
    assert first == ["Half"], child.stderr.read() if child.poll() is not None else first  # type: ignore[union-attr]
    return child


def test_a_second_sender_is_told_another_window_answers_and_nothing_of_it_is_saved(
    profile: Path,  # noqa: F811
    wire: WireServer,  # noqa: F811
) -> None:
    a = _answering(profile, wire, "from A")
    try:
        b = ask(profile, wire, "from B")  # resumes the same conversation (the latest without a note)
        assert b.returncode == 1, b.stderr
        assert "another window is answering in this conversation: noted ask (pid " in b.stderr, b.stderr
        assert "start a new conversation" in b.stderr
        assert len(wire.requests) == 1  # not vacuous: B never reached the model
        a.send_signal(signal.SIGINT)  # A stops its answer, which is kept
        _, err = a.communicate(timeout=LIVENESS)
    finally:
        if a.poll() is None:
            a.kill()
            a.wait()
    assert a.returncode == 130, err
    ((_, lines),) = _lines(profile)
    assert lines == ["UserMessage: from A", "AssistantMessage: Half\n\n[stopped by the person]"]

    wire.push(text_reply("Answer to B."))
    again = ask(profile, wire, "from B")  # the lease went with A's answer
    assert again.returncode == 0, again.stderr
    ((_, lines),) = _lines(profile)
    assert lines[2:] == ["UserMessage: from B", "AssistantMessage: Answer to B."]


def test_a_sender_killed_outright_leaves_the_conversation_free(profile: Path, wire: WireServer) -> None:  # noqa: F811
    a = _answering(profile, wire, "from A")
    a.kill()  # SIGKILL: no finally runs, the lease row stays behind
    a.wait(LIVENESS)
    wait_for(lambda: wire.disconnected.is_set(), what="the killed child's connection to close")
    wire.push(text_reply("Answer to B."))
    b = ask(profile, wire, "from B")
    assert b.returncode == 0, b.stderr
    ((_, lines),) = _lines(profile)
    assert lines == ["UserMessage: from A", "UserMessage: from B", "AssistantMessage: Answer to B."]


def test_a_refused_sender_leaves_a_conversation_another_window_just_started(
    profile: Path,  # noqa: F811
    wire: WireServer,  # noqa: F811
) -> None:
    """A window that has just started a conversation holds it before its first message is
    saved; ``noted ask`` found it empty, was refused, and deleted it as if it had started it."""
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        transcripts = Transcripts(SqliteChats(store.db))
        started = transcripts.create()
        lease = transcripts.run_lease(started.id, "tui")
        assert lease.acquire()  # this test's process is the window that answers
        # and renews its claim as a window does: a `noted ask` that took longer to start than the
        # lease lives (15 s, on a loaded machine) found it lapsed and went on to the model.
        lease.start_heartbeat()
        try:
            b = ask(profile, wire, "from B")
        finally:
            lease.release()
        assert b.returncode == 1 and "another window is answering" in b.stderr, b.stderr
        assert "the app (pid " in b.stderr
        assert [c.id for c in transcripts.recent()] == [started.id]  # still there
    finally:
        store.close()
    assert wire.requests == []


def _delete(root: Path, server: WireServer, conversation: str) -> subprocess.CompletedProcess[str]:
    """``noted chats --delete CONVERSATION``."""
    return subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(root), "chats", "--delete", conversation],
        capture_output=True,
        text=True,
        env=ai_env(server),
        timeout=LIVENESS,
        check=False,
    )


def test_a_conversation_being_answered_is_not_deleted_under_the_answer(
    profile: Path,  # noqa: F811
    wire: WireServer,  # noqa: F811
) -> None:
    """``noted chats --delete`` took a conversation away while the app answered in it; the
    answer's next save then went into no conversation: rows no listing shows, lost."""
    a = _answering(profile, wire, "from A")
    try:
        ((conversation_id, _),) = _lines(profile)
        gone = _delete(profile, wire, conversation_id[:8])
        assert gone.returncode == 1, gone.stderr
        assert "another window is answering in this conversation: noted ask (pid " in gone.stderr
        a.send_signal(signal.SIGINT)
        a.communicate(timeout=LIVENESS)
    finally:
        if a.poll() is None:
            a.kill()
            a.wait()
    ((kept, lines),) = _lines(profile)
    assert kept == conversation_id
    assert lines == ["UserMessage: from A", "AssistantMessage: Half\n\n[stopped by the person]"]
    deleted = _delete(profile, wire, conversation_id[:8])  # once the answer has ended, it goes
    assert deleted.returncode == 0, deleted.stderr
    assert _lines(profile) == []
