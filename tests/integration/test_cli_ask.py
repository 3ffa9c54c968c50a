"""``noted ask`` end to end: a real ``python -m noted`` process, the real openai SDK, a loopback server.

The child is configured only through the environment, as a person scripting it would
(``NOTED_AI_ENABLED=1 NOTED_AI_PROVIDER=openai NOTED_AI_BASEURL=… NOTED_AI_MODEL=…``).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.cli import Cli, env_with_src
from tests.support.polling import scaled
from tests.support.wire_server import (
    ErrorReply,
    StreamReply,
    WireServer,
    openai_chunk,
    openai_stream,
    openai_tool_piece,
)

from noted.chat.transcripts import Transcripts
from noted.models import NoteDraft
from noted.providers import AssistantMessage, UserMessage
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.chats import SqliteChats

LIVENESS = scaled(300)  # seconds: a bound for a stuck child, never a speed check (the SDK import is slow)
BODY = "# Shopping\n- milk\n- tea\n"


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    """A profile holding one note, "Shopping"."""
    root = tmp_path / "profile"
    root.mkdir()
    store = SqliteStore.open(root / "notes.db", root / "resources")
    try:
        folder = store.create_folder("Home", actor="user")
        store.create_note(NoteDraft("Shopping", BODY, parent_id=folder.id), actor="user")
    finally:
        store.close()
    return root


def ai_env(wire: WireServer, **extra: str) -> dict[str, str]:
    settings = {
        "NOTED_AI_ENABLED": "1",
        "NOTED_AI_PROVIDER": "openai",
        "NOTED_AI_BASEURL": wire.base_url + "/v1",
        "NOTED_AI_MODEL": "m",
    }
    return env_with_src(**{**settings, **extra})


def ask(profile: Path, wire: WireServer, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), "ask", *args],
        capture_output=True,
        text=True,
        env=ai_env(wire, **env),
        stdin=subprocess.DEVNULL,  # no terminal: approvals cannot be asked
        timeout=LIVENESS,
        check=False,
    )


def text_reply(*pieces: str, hang: bool = False) -> StreamReply:
    chunks = [openai_chunk(content=p) for p in pieces]
    if not hang:
        chunks.append(openai_chunk(finish_reason="stop"))
    return openai_stream(chunks, hang=hang)


def tool_reply(
    call_id: str, name: str, arguments: dict[str, Any], text: str = "", usage: dict[str, Any] | None = None
) -> StreamReply:
    raw = json.dumps(arguments)
    chunks = [openai_chunk(content=text)] if text else []
    chunks += [
        openai_chunk(tool_calls=[openai_tool_piece(0, id=call_id, name=name, arguments=raw[:5])]),
        openai_chunk(tool_calls=[openai_tool_piece(0, arguments=raw[5:])]),
        openai_chunk(finish_reason="tool_calls"),
    ]
    return openai_stream(chunks + ([usage] if usage else []))


def tool_result(body: dict[str, Any], call_id: str) -> dict[str, Any]:
    (message,) = [m for m in body["messages"] if m.get("tool_call_id") == call_id]
    result: dict[str, Any] = json.loads(message["content"])
    return result


def saved_chats(profile: Path) -> list[tuple[str, list[Any]]]:
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        transcripts = Transcripts(SqliteChats(store.db))
        return [(c.note_id, transcripts.messages(c.id)) for c in transcripts.recent()]
    finally:
        store.close()


def note_titles(profile: Path) -> list[str]:
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        return sorted(n.title for n in store.list_notes())
    finally:
        store.close()


def test_the_answer_streams_to_stdout_and_tool_calls_go_to_stderr(profile: Path, wire: WireServer) -> None:
    wire.push(
        tool_reply("c1", "search_notes", {"query": "milk"}, text="Looking."),
        text_reply("You need ", "milk."),
    )
    done = ask(profile, wire, "--note", "Shopping", "What do I need?")

    assert done.returncode == 0, done.stderr
    # Only the answer, each round's text on its own line: safe to pipe.
    assert done.stdout == "Looking.\nYou need milk.\n"
    assert '· searched for "milk"' in done.stderr
    first, second = (r.body for r in wire.requests)
    assert json.loads(first["messages"][3]["content"])["body"] == BODY  # the note, pre-loaded
    assert tool_result(second, "c1")["results"][0]["title"] == "Shopping"
    ((note_id, messages),) = saved_chats(profile)
    assert note_id and len(messages) == 6  # question, preload call+result, call+result, answer


def test_a_provider_error_exits_non_zero_with_one_clear_line(profile: Path, wire: WireServer) -> None:
    wire.push(ErrorReply(401, {"error": {"type": "invalid_api_key", "message": "bad key"}}))
    done = ask(profile, wire, "Hello?")

    assert done.returncode == 1 and done.stdout.strip() == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("noted: ")
    assert "401" in lines[0] and "API key" in lines[0]
    assert len(wire.requests) == 1  # a 401 is not retried


def test_a_question_over_the_budget_is_refused_and_leaves_no_empty_chat(
    profile: Path, wire: WireServer
) -> None:
    done = ask(profile, wire, "--new", "words " * 4_000, NOTED_AI_BUDGETTOKENS="5000")

    assert done.returncode != 0 and "over the budget" in done.stderr
    assert wire.requests == []  # refused before anything was sent
    # Before: an empty, untitled conversation was left in `noted chats`.
    assert saved_chats(profile) == []


def test_without_a_terminal_writes_are_declined_and_the_model_is_told(
    profile: Path, wire: WireServer
) -> None:
    arguments = {"title": "Packing", "notebook_title": "Trips"}
    wire.push(tool_reply("w", "create_note", arguments), text_reply("Alright, I did not create it."))
    done = ask(profile, wire, "Make a packing list", NOTED_AI_TOOL_CREATE_NOTE_ENABLED="1")

    # 4: a write was declined, so a script notices (it was 0, as if all had been done).
    assert done.returncode == 4, done.stderr
    assert "no terminal to ask on" in done.stderr and "--yes" in done.stderr
    assert tool_result(wire.requests[1].body, "w")["status"] == "refused"
    assert note_titles(profile) == ["Shopping"]


def test_in_review_mode_an_edit_of_the_note_is_asked_about_and_without_a_terminal_declined(
    profile: Path,
) -> None:
    """``ai.writes`` review with the offline demo, which appends the request to the note: the edit
    was written at once, exit 0, though review mode promises that nothing goes in unasked."""
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        (note,) = store.list_notes()
    finally:
        store.close()
    env = env_with_src(
        NOTED_AI_ENABLED="1",
        NOTED_AI_PROVIDER="fake",
        NOTED_AI_WRITES="review",
        NOTED_AI_TOOL_EDIT_CURRENT_ENABLED="1",
    )
    done = subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), "ask", "--new", "--note", note.id, "buy pears"],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=LIVENESS, check=False,
    )  # fmt: skip
    assert done.returncode == 4, done.stderr
    assert "no terminal to ask on" in done.stderr and "+- [ ] buy pears" in done.stderr
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        assert store.get_note(note.id).body == BODY
    finally:
        store.close()


@pytest.mark.parametrize("where", ["after", "before"], ids=["ask --json", "--json ask"])
def test_json_reports_the_answer_tool_calls_changes_and_usage(
    profile: Path, wire: WireServer, where: str
) -> None:
    usage = openai_chunk(
        no_choices=True, usage={"prompt_tokens": 90, "completion_tokens": 9, "total_tokens": 99}
    )
    first = openai_chunk(
        no_choices=True, usage={"prompt_tokens": 70, "completion_tokens": 5, "total_tokens": 75}
    )
    wire.push(
        tool_reply("c1", "search_notes", {"query": "milk"}, text="Looking.", usage=first),
        openai_stream([openai_chunk(content="You need milk."), openai_chunk(finish_reason="stop"), usage]),
    )
    args = ("--json", "ask", "What do I need?") if where == "before" else ("ask", "--json", "What do I need?")
    done = subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), *args],
        capture_output=True, text=True, env=ai_env(wire), stdin=subprocess.DEVNULL, timeout=LIVENESS,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Not vacuous: before, stdout was the plain answer text, which json.loads refuses.
    report = json.loads(done.stdout)
    assert report["outcome"] == "done" and report["answer"] == "Looking.\nYou need milk."
    (search,) = report["tool_calls"]
    assert search["name"] == "search_notes" and search["arguments"] == {"query": "milk"}
    assert search["status"] == "ok" and search["result"]["results"][0]["title"] == "Shopping"
    assert report["changes"] == [] and report["usage"]["input_tokens"] == 70 + 90
    assert report["usage"]["output_tokens"] == 5 + 9 and report["conversation_id"]
    # The conversation's size after the run: the last request and its answer (issue 39: it was
    # the sum over both requests, 174, counting the first request twice).
    assert report["usage"]["conversation_tokens"] == 99


def test_stream_prints_one_json_line_per_event_and_a_declined_write_exits_4(
    profile: Path, wire: WireServer
) -> None:
    arguments = {"title": "Packing", "notebook_title": "Trips"}
    wire.push(tool_reply("w", "create_note", arguments), text_reply("Alright, ", "I did not."))
    done = ask(profile, wire, "--stream", "Make a packing list", NOTED_AI_TOOL_CREATE_NOTE_ENABLED="1")

    assert done.returncode == 4, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[:4] == ["tool_call", "approval", "approval_answer", "tool_result"], types
    assert events[2]["approved"] is False and events[3]["status"] == "refused"
    assert [e["text"] for e in events if e["type"] == "text"] == ["Alright, ", "I did not."]
    assert types[-1] == "done" and events[-1]["text"] == "Alright, I did not."
    assert note_titles(profile) == ["Shopping"]


def test_yes_approves_writes(profile: Path, wire: WireServer) -> None:
    arguments = {"title": "Packing", "notebook_title": "Trips"}
    wire.push(tool_reply("w", "create_note", arguments), text_reply("Created."))
    done = ask(profile, wire, "--yes", "Make a packing list", NOTED_AI_TOOL_CREATE_NOTE_ENABLED="1")

    assert done.returncode == 0, done.stderr
    assert "error" not in tool_result(wire.requests[1].body, "w")
    assert note_titles(profile) == ["Packing", "Shopping"]


def test_a_remote_endpoint_is_refused_before_anything_is_sent(profile: Path, wire: WireServer) -> None:
    done = ask(profile, wire, "Hello?", NOTED_AI_BASEURL="http://192.168.7.7:11434/v1")
    assert done.returncode == 1 and "ai.allowRemote" in done.stderr
    assert wire.requests == [] and saved_chats(profile) == []


def test_ctrl_c_stops_at_once_and_leaves_the_chat_resumable(profile: Path, wire: WireServer) -> None:
    wire.push(text_reply("Half an answer", hang=True))
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "noted",
            "--profile",
            str(profile),
            "ask",
            "--note",
            "Shopping",
            "Tell me all",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=ai_env(wire),
        text=True,
    )
    try:
        assert child.stdout is not None and child.stderr is not None
        # The first words on stdout show the answer is streaming; then the person presses Ctrl-C.
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(child.stdout.read(len("Half"))))  # type: ignore[union-attr]
        reader.start()
        reader.join(LIVENESS)
        assert first == ["Half"]
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=LIVENESS)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 130, err
    assert err.strip().splitlines()[-1] == "(stopped)"  # the engine stopped it, no exception did
    assert "Traceback" not in err
    assert wire.disconnected.wait(LIVENESS)  # the HTTP stream was closed, not abandoned

    ((_, messages),) = saved_chats(profile)
    assert "Half an answer" in messages[-1].text  # what was shown is kept
    wire.push(text_reply("The rest."))
    done = ask(profile, wire, "--note", "Shopping", "Go on")
    assert done.returncode == 0, done.stderr
    resumed = wire.requests[-1].body["messages"]
    roles = [m["role"] for m in resumed]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert "Half an answer" in resumed[4]["content"] and resumed[5]["content"] == "Go on"


class Child:
    """``noted ask`` with a terminal for stdin (a pty) and pipes for its output, read as it comes."""

    def __init__(self, profile: Path, wire: WireServer, *args: str, **env: str) -> None:
        import pty

        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "noted", "--profile", str(profile), "ask", *args],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=ai_env(wire, **env),
        )
        os.close(slave)
        self.err = b""
        self.out = b""
        self._seen = threading.Condition()
        self._reader = threading.Thread(target=self._read_err, daemon=True)
        self._reader.start()
        self._out_reader = threading.Thread(target=self._read_out, daemon=True)
        self._out_reader.start()

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        while chunk := self.proc.stdout.read1(4096):  # type: ignore[attr-defined]
            self.out += chunk

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        while chunk := self.proc.stderr.read1(4096):  # type: ignore[attr-defined]
            with self._seen:
                self.err += chunk
                self._seen.notify_all()

    def wait_for_err(self, marker: str) -> None:
        with self._seen:
            assert self._seen.wait_for(lambda: marker.encode() in self.err, LIVENESS), self.err

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def finish(self) -> tuple[int, str, str]:
        try:
            code = self.proc.wait(LIVENESS)  # a child that does not end fails the test, not hangs it
            self._reader.join(LIVENESS)
            self._out_reader.join(LIVENESS)
            return code, self.out.decode(), self.err.decode()
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            os.close(self.master)


def test_on_a_terminal_the_person_is_asked_and_yes_writes(profile: Path, wire: WireServer) -> None:
    arguments = {"title": "Packing", "notebook_title": "Trips"}
    wire.push(tool_reply("w", "create_note", arguments), text_reply("Created."))
    child = Child(profile, wire, "Make a packing list", NOTED_AI_TOOL_CREATE_NOTE_ENABLED="1")
    child.wait_for_err('Allow: create note "Packing" notebook_title="Trips"? [y/N] ')
    child.type("y\n")
    code, out, err = child.finish()

    assert code == 0, err
    assert out == "Created.\n"  # the question went to stderr, not into the answer
    assert note_titles(profile) == ["Packing", "Shopping"]


def test_ctrl_c_at_the_approval_prompt_stops_without_writing(profile: Path, wire: WireServer) -> None:
    arguments = {"title": "Packing", "notebook_title": "Trips"}
    wire.push(tool_reply("w", "create_note", arguments))
    child = Child(profile, wire, "Make a packing list", NOTED_AI_TOOL_CREATE_NOTE_ENABLED="1")
    child.wait_for_err("[y/N] ")
    child.proc.send_signal(signal.SIGINT)
    code, _, err = child.finish()

    assert code == 130, err
    assert err.strip().splitlines()[-1] == "(stopped)" and "Traceback" not in err
    assert note_titles(profile) == ["Shopping"]
    ((_, messages),) = saved_chats(profile)
    assert "Not run" in messages[-1].content  # the model will know the call never ran
    assert len(wire.requests) == 1


@pytest.mark.skipif(not hasattr(ctypes.CDLL(None), "tgkill"), reason="needs Linux's tgkill")
def test_ctrl_c_delivered_to_another_thread_still_stops_the_prompt(profile: Path, wire: WireServer) -> None:
    # The kernel gives a process's SIGINT to any of its threads. One delivered to the loop's
    # executor thread did not interrupt the main thread's read, so the prompt stayed until Enter.
    wire.push(tool_reply("w", "create_note", {"title": "Packing", "notebook_title": "Trips"}))
    child = Child(profile, wire, "Make a packing list", NOTED_AI_TOOL_CREATE_NOTE_ENABLED="1")
    child.wait_for_err("[y/N] ")
    pid = child.proc.pid
    others = [int(tid) for tid in os.listdir(f"/proc/{pid}/task") if int(tid) != pid]
    assert others, "the child runs one thread only: nothing to deliver the signal to"
    assert ctypes.CDLL(None, use_errno=True).tgkill(pid, others[0], signal.SIGINT) == 0
    code, _, err = child.finish()

    assert code == 130, err
    assert err.strip().splitlines()[-1] == "(stopped)" and note_titles(profile) == ["Shopping"]


def test_chats_lists_searches_and_deletes_by_the_short_id_it_shows(
    profile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        transcripts = Transcripts(SqliteChats(store.db))
        tea = transcripts.create(title="Where is sencha from?")
        transcripts.append(tea.id, [UserMessage("Where is sencha from?"), AssistantMessage("Japan.")])
        cafe = transcripts.create(title="Ordering coffee")
        transcripts.append(cafe.id, [UserMessage("Un café ?"), AssistantMessage("Oui.")])
    finally:
        store.close()
    cli = Cli(profile, capsys)

    listed = cli.ok("chats").out.splitlines()
    assert [line.split()[0] for line in listed] == [cafe.id[:8], tea.id[:8]]
    assert [c["id"] for c in cli.json("chats", "--search", "café")] == [cafe.id]
    assert cli.json("chats", "--search", "nothing like it") == []

    deleted = cli.ok("chats", "--delete", tea.id[:8])  # what the listing shows is enough
    assert tea.id[:8] in deleted.out
    assert [c["id"] for c in cli.json("chats")] == [cafe.id]
    missing = cli("chats", "--delete", tea.id[:8])
    assert missing.code == 1 and "no conversation" in missing.err


def test_noted_ask_note_refuses_a_note_in_the_trash_before_the_model_runs(tmp_path: Path) -> None:
    """It asked about the edit, then (with --yes, exit 0) said the note "was moved to the trash while
    you were editing it", though it was there before the run: refused up front, as `noted edit` is."""
    profile = tmp_path / "p"
    profile.mkdir()
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        folder = store.create_folder("Home", actor="user")
        note = store.create_note(NoteDraft("Tr", "x\n", parent_id=folder.id), actor="user").id
        store.trash_note(note, actor="user")
    finally:
        store.close()
    env = env_with_src(NOTED_AI_ENABLED="1", NOTED_AI_PROVIDER="fake", NOTED_AI_TOOL_EDIT_CURRENT_ENABLED="1")
    done = subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), "ask", "--yes", "--note", "Tr", "buy y"],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=LIVENESS, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # as `noted edit` on a note in the trash
    assert done.stderr.strip() == f'noted: "Tr" is in the trash; restore it first (noted restore {note[:8]})'
    assert done.stdout == ""
