"""``noted mcp serve`` ended by SIGTERM: idle, it exits at once, 0; busy, every write is whole or absent.

An idle server stopped answering in 0.2 s, then took 1 to 3 s more to end: all of it in the
collection Python runs as it exits, over the 130,000 objects the SDKs built, after everything was
closed. The program now keeps them out of it (``noted.cli._leaving``); the idle test checks that
(no timing: the exit collection had objects to walk, and now has none of the program's), besides
the exit code and the process being gone.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.integration.mcp_support import ACCEPT, ENVELOPE, World, world_with
from tests.support.polling import scaled

WATCH = (
    "import atexit, gc, sys\n"
    "atexit.register(lambda: print('frozen', gc.get_freeze_count(), file=sys.stderr, flush=True))\n"
    "from noted.cli import main\n"
    "sys.argv[0] = 'noted'\n"
    "raise SystemExit(main())\n"
)
"""The program as the console script runs it, telling on stderr, as it exits, how many objects its
last collection will not walk (atexit hooks run after ``main`` returned, before that collection)."""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = world_with(tmp_path / "profile", "create_note")
    yield w
    w.close()


async def _serve(world: World) -> tuple[asyncio.subprocess.Process, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        WATCH,
        *("--profile", str(world.profile.root), "mcp", "serve", "--port", "0"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    out = ""
    while "listening on " not in out:
        line = await asyncio.wait_for(process.stdout.readline(), scaled(180))
        assert line, "the server ended before it listened"
        out += line.decode()
    return process, out.split("listening on ")[1].split()[0]


async def _end(process: asyncio.subprocess.Process) -> tuple[int, str, str]:
    process.send_signal(signal.SIGTERM)
    out, err = await asyncio.wait_for(process.communicate(), scaled(180))
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_sigterm_ends_an_idle_server_with_0_and_no_exit_collection(world: World) -> None:
    process, _ = await _serve(world)
    code, out, err = await _end(process)
    assert code == 0, err
    assert "MCP server stopped." in out
    with pytest.raises(ProcessLookupError):  # gone, not a zombie left for someone to reap
        process.send_signal(0)
    frozen = [int(line.split()[1]) for line in err.splitlines() if line.startswith("frozen ")]
    assert frozen and frozen[0] > 10_000, err  # on main: 0, every object walked once more at exit


async def test_sigterm_while_writing_leaves_every_note_whole_or_absent(world: World) -> None:
    """Writes keep coming when SIGTERM arrives (one has been answered already, more are sent);
    each note that exists afterwards is whole, and each one whose creation was answered exists."""
    process, url = await _serve(world)
    body = "".join(f"line {i} of a note long enough to take a moment\n" for i in range(2_000))
    answered: list[str] = []
    headers = {
        **ACCEPT,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "create_note",
    }
    try:
        async with httpx.AsyncClient(timeout=scaled(120), headers=headers) as raw:

            async def write(n: int) -> None:
                args = {"title": f"Burst {n}", "body": body, "notebook_id": world.work_id}
                params = {"name": "create_note", "arguments": args, "_meta": ENVELOPE}
                call = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}
                try:
                    answer = await raw.post(url, json=call)
                except httpx.HTTPError:  # cut by the shutdown: its note must be whole or absent
                    return
                if answer.status_code == 200 and not answer.json()["result"].get("isError"):
                    answered.append(f"Burst {n}")

            await write(0)
            burst = [asyncio.create_task(write(n)) for n in range(1, 40)]
            await asyncio.sleep(0)  # the burst's first requests are on their way
            ended = await _end(process)
            await asyncio.gather(*burst)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert "Burst 0" in answered
    code, _, err = ended
    assert code == 0, err
    notes = world.store.get_notes([m.id for m in world.store.list_notes(folder_id=world.work_id)])
    made = {n.title: n.body for n in notes if n.title.startswith("Burst ")}
    assert all(text == body for text in made.values()), "a note was written in part"
    assert set(answered) <= set(made)
