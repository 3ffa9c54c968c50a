"""More scenarios for ``crash_loop.py``: kill -9 during attachment adds and removes, during
``noted history --prune``, and of the MCP server over HTTP while a client calls ``update_note``.

    PYTHONPATH=src python3 tests/bench/crash_loop_more.py attach [--vault] --rounds 30 --max-ms 1500
    PYTHONPATH=src python3 tests/bench/crash_loop_more.py prune [--vault] --rounds 20 --max-ms 4000
    PYTHONPATH=src python3 tests/bench/crash_loop_more.py mcp [--vault] --rounds 20 --max-ms 6000

Each round runs one script (a real process, noted's code as the front ends run it), kills it, and
checks what ``crash_loop`` checks (the profile opens, SQLite's and FTS's checks, no temporary file
left) and what the scenario must keep: every attachment whole and linked, every revision readable,
the note's text one the client sent.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import crash_loop as cl  # noqa: E402

OPEN_STORE = (  # crash_loop's opening of the profile's store, then the note the scenario works on
    cl.RENAME_TAG[: cl.RENAME_TAG.index("tags = ")]
    + 'holder = next(m for m in store.list_notes() if m.title == "Holder")\n'
)

ATTACH = """
from noted.ops.attachments import attach_to_note, remove_attachment
n = int(sys.argv[3])
files = store.list_resources(note_id=holder.id)
if files and n % 2:
    remove_attachment(store, holder.id, files[0].id, delete=True, actor="user")
else:
    data = (b"file %d " % n) * ((1 + n % 8) * 131072)
    attach_to_note(store, store.get_note(holder.id), data, filename=f"f{n}.bin",
                   mime="application/octet-stream", title=f"f{n}", actor="user")
store.close()
"""

CHECK_FILES = """
import json, re
out = []
body = store.get_note(holder.id).body
linked = set(re.findall(r":/([0-9a-f]{32})", body))
for res in store.list_resources():
    n = int(res.title[1:])
    want = (b"file %d " % n) * ((1 + n % 8) * 131072)
    try:
        ok = store.read_resource(res.id) == want
    except Exception as exc:
        out.append(f"attachment {res.title} unreadable: {exc}")
        continue
    if not ok:
        out.append(f"attachment {res.title} is not its bytes")
    if not store.resource_notes(res.id):
        out.append(f"attachment {res.title} linked by no note (orphan)")
ids = {r.id for r in store.list_resources()}
out += [f"link to a missing attachment {i}" for i in linked - ids]  # (a folder's links are paths)
print(json.dumps(out))
"""

PRUNE = """
from noted.models import NotePatch
from noted.ops.notes import prune_history, update_note
n = int(sys.argv[3])
for k in range(120):
    update_note(store, holder.id, NotePatch(body=f"round {n} save {k}\\n" * 200), actor="user")
conn = store.db.connection() if hasattr(store, "db") else store.mirror.db.connection()
conn.execute("UPDATE revisions SET time = time - ?, first_time = first_time - ?", (31 * 86400000,) * 2)
prune_history(store)
store.close()
"""

SERVE = """
import json, sys, threading, time, httpx
from noted.cli import main

profile, vault, n, port = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def client():
    url = f"http://127.0.0.1:{port}/mcp"
    base = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    with httpx.Client(timeout=60) as http:
        while True:
            try:
                info = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "kill", "version": "1"}}
                opened = http.post(url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": info}, headers=base)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        head = base | {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=head)
        note = open(sys.argv[5]).read()
        for k in range(1, 1000):
            body = f"round {n} call {k}\\n" + "text of the client " * (k % 7 * 20000)
            args = {"id": note, "body": body}
            http.post(url, json={"jsonrpc": "2.0", "id": k, "method": "tools/call",
                                 "params": {"name": "update_note", "arguments": args}}, headers=head)

threading.Thread(target=client, daemon=True).start()
argv = ["--profile", profile] + (["--vault", vault] if vault else []) + ["mcp", "serve", "--port", str(port)]
sys.exit(main(argv))
"""


def _script(world: cl.World, name: str, code: str) -> Path:
    path = world.root / f"{name}.py"
    path.write_text(code)
    return path


def _argv(world: cl.World, name: str, code: str, n: int, *more: str) -> list[str]:
    where = str(world.folder) if world.vault else ""
    return [sys.executable, str(_script(world, name, code)), str(world.profile), where, str(n), *more]


def holder_setup(world: cl.World) -> None:
    cl._init(world)
    created = world.run("create", "Holder", "--body", "The holder.\n")
    (world.root / "id").write_text(created.stdout.strip().split()[-1])


def attach_op(world: cl.World, n: int) -> tuple[list[str], str | None]:
    return _argv(world, "attach", OPEN_STORE + ATTACH, n), None


def attach_check(world: cl.World, n: int) -> list[str]:
    faults = cl.check_common(world)
    done = subprocess.run(
        _argv(world, "check_files", OPEN_STORE + CHECK_FILES, n),
        capture_output=True,
        text=True,
        env=cl._env(),
    )
    if done.returncode != 0:
        return [*faults, f"check: {done.stderr.strip()[-300:]}"]
    return faults + list(json.loads(done.stdout))


def prune_op(world: cl.World, n: int) -> tuple[list[str], str | None]:
    return _argv(world, "prune", OPEN_STORE + PRUNE, n), None


def prune_check(world: cl.World, n: int) -> list[str]:
    faults = cl.check_common(world)
    nid = (world.root / "id").read_text()
    revisions = world.json("history", nid)
    for rev in revisions[:5] + revisions[5:][-5:]:  # the newest and the oldest (each a process)
        shown = world.run("history", nid, "--show", str(rev["id"]), check=False)
        if shown.returncode != 0:
            faults.append(f"revision {rev['id']} unreadable: {shown.stderr.strip()[-200:]}")
    again = world.run("history", "--prune", check=False)
    if again.returncode != 0:
        faults.append(f"prune again: {again.stderr.strip()[-300:]}")
    return faults


def mcp_setup(world: cl.World) -> None:
    holder_setup(world)
    world.run("config", "set", "ai.tool.update_note.enabled", "true")


def mcp_op(world: cl.World, n: int) -> tuple[list[str], str | None]:
    port = str(41000 + random.randrange(20000))
    return _argv(world, "serve", SERVE, n, port, str(world.root / "id")), None


def mcp_check(world: cl.World, n: int) -> list[str]:
    faults = cl.check_common(world)
    body = cl._body(world, {"id": (world.root / "id").read_text()})
    head, _, rest = body.partition("\n")
    if body != "The holder.\n":
        try:
            k = int(head.rsplit(" ", 1)[1])
        except (IndexError, ValueError):
            return [*faults, f"the note's text is none the client sent: {head[:60]!r}"]
        sent = "text of the client " * (k % 7 * 20000)
        # A Markdown folder keeps the file's final newline (README: "What noted writes").
        if rest != sent and not (world.vault and rest == sent + "\n"):
            faults.append(f"the note's text is cut: {len(body)} chars for call {k}")
    return faults


cl.SCENARIOS.update(
    attach=cl.Scenario(holder_setup, attach_op, attach_check),
    prune=cl.Scenario(holder_setup, prune_op, prune_check),
    mcp=cl.Scenario(mcp_setup, mcp_op, mcp_check),
)

if __name__ == "__main__":
    sys.exit(cl.main())
