"""noted's MCP server beside joplin-mcp 0.10, on the same notes, under the same load, in one run.

Usage::

    python3 tests/bench/bench_mcp_peer.py                 # everything below, about 5 minutes
    python3 tests/bench/bench_mcp_peer.py --clients 20 --rounds 25 --sequential 50

What runs:

- the notes: the Git documentation corpus of the search evaluation (``eval_corpus.py``, Debian's
  git-doc), in noted's own store (a copy of the cached profile) and, through the Data API, in a
  real Joplin (the terminal app that CI installs, started by ``../shared/scripts/joplin-server``);
- the servers: ``noted mcp serve --port 0`` (Streamable HTTP, a process of its own) and joplin-mcp
  0.10.0 from PyPI in its own venv under ``tests/bench/out/joplin-mcp-venv`` (created on first
  use), ``--transport http``, talking to that Joplin;
- the load, on each server in turn: one client sequentially (the median of ``--sequential``
  ``tools/list`` and as many searches), then ``--clients`` clients × ``--rounds`` rounds of
  ``tools/list`` + a search, concurrently. The search is noted's ``search_notes`` and joplin-mcp's
  ``find_notes``, with the same words and limit; each hit count is recorded, so a server that
  answers fast by finding nothing shows it.

The clients speak raw JSON-RPC over one ``httpx`` connection each (the handshake era, with a
session; JSON or SSE answers), so the figures are the servers', not twenty SDK clients'. The load
average is printed beside the figures: on a shared machine waiting for a core is part of what a
client sees, and a loaded run is worth re-running on a quiet one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from bench_mcp_load import percentile, start_server  # noqa: E402
from eval_corpus import ensure_profile  # noqa: E402
from tests.support.joplin import JoplinServer, free_port, unavailable_reason  # noqa: E402

from noted.store.sqlite import SqliteStore  # noqa: E402

OUT = ROOT / "tests" / "bench" / "out"
VENV = OUT / "joplin-mcp-venv"
PEER = "joplin-mcp==0.10.0"
WORDS = [
    "commit", "branch", "rebase", "merge", "remote", "config", "stash", "reset", "tag", "fetch",
    "push", "worktree", "bisect", "submodule", "cherry", "index", "diff", "patch", "hook", "clone",
]  # fmt: skip
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@dataclass
class Server:
    name: str
    url: str
    search_tool: str
    process: subprocess.Popen[bytes] | asyncio.subprocess.Process | None = None


@dataclass
class Samples:
    list_ms: list[float] = field(default_factory=list)
    search_ms: list[float] = field(default_factory=list)
    hits: list[int] = field(default_factory=list)
    errors: int = 0
    seconds: float = 0.0

    @property
    def calls(self) -> int:
        return len(self.list_ms) + len(self.search_ms)


# The notes ------------------------------------------------------------------------------------


def noted_profile() -> Path:
    """A copy of the evaluation corpus's profile (the bench must not touch the cached one)."""
    source, _ = ensure_profile()
    target = OUT / "peer-noted-profile"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("*.md", "pages"))
    return target


def load_into_joplin(profile: Path, joplin: JoplinServer) -> int:
    """The same notebooks and notes in Joplin, through its Data API."""
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        folders = {}
        for folder in store.list_folders():
            folders[folder.id] = joplin.api("POST", "/folders", {"title": folder.title})["id"]
        metas = store.list_notes()
        for meta in metas:
            note = store.get_note(meta.id)
            body = {"title": note.title, "body": note.body, "parent_id": folders[note.parent_id]}
            joplin.api("POST", "/notes", body)
        return len(metas)
    finally:
        store.close()


def wait_for_joplin_index(joplin: JoplinServer, deadline: float = 300.0) -> None:
    """Until Joplin's own search finds the notes (its index is built in the background)."""
    end = time.monotonic() + deadline
    while not joplin.api("GET", "/search", params={"query": "rebase", "fields": "id"})["items"]:
        if time.monotonic() > end:
            raise SystemExit("Joplin's search found nothing after the notes were loaded")
        time.sleep(1.0)


# The servers ----------------------------------------------------------------------------------


def ensure_peer() -> Path:
    binary = VENV / "bin" / "joplin-mcp-server"
    if not binary.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", PEER], check=True)
    return binary


def start_peer(joplin: JoplinServer) -> Server:
    port = free_port()
    home = OUT / "peer-joplin-mcp-home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),  # no ~/.joplin-mcp.json of anyone's is discovered
        "JOPLIN_TOKEN": joplin.token,
        "JOPLIN_HOST": "127.0.0.1",
        "JOPLIN_PORT": str(joplin.port),
    }
    log = (OUT / "peer-joplin-mcp.log").open("wb")
    process = subprocess.Popen(
        [str(ensure_peer()), "--transport", "http", "--port", str(port), "--log-level", "warning"],
        cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    return Server("joplin-mcp 0.10", f"http://127.0.0.1:{port}/mcp", "find_notes", process)


async def start_noted(profile: Path) -> Server:
    process, url = await start_server(profile)
    return Server("noted", url, "search_notes", process)


# A raw client ---------------------------------------------------------------------------------


class RawClient:
    """JSON-RPC over one kept-alive connection, in an initialized handshake-era session."""

    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http, self.url = http, url
        self.headers = dict(ACCEPT)
        self.next_id = 0

    async def open(self, name: str) -> None:
        info = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": name, "version": "1"},
        }
        response = await self.http.post(self.url, json=self._rpc("initialize", info), headers=self.headers)
        response.raise_for_status()
        self.headers["mcp-session-id"] = response.headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = "2025-06-18"
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        (await self.http.post(self.url, json=done, headers=self.headers)).raise_for_status()

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        message = self._rpc(method, params)
        response = await self.http.post(self.url, json=message, headers=self.headers)
        response.raise_for_status()
        answer = _answer(response, message["id"])
        if "error" in answer:
            raise RuntimeError(answer["error"])
        result: dict[str, Any] = answer["result"]
        return result

    def _rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        return {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}


def _answer(response: httpx.Response, id_: int) -> dict[str, Any]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:"):
                event = json.loads(line[5:])
                if event.get("id") == id_:
                    return dict(event)
        raise RuntimeError("no answer in the event stream")
    return dict(response.json())


def hit_count(result: dict[str, Any]) -> int:
    """Hits in a search result: noted's structured ``results``; joplin-mcp's text, one per note id."""
    if result.get("isError"):
        raise RuntimeError(str(result.get("content"))[:200])
    structured = result.get("structuredContent")
    if isinstance(structured, dict) and isinstance(structured.get("results"), list):
        return len(structured["results"])
    text = " ".join(c.get("text", "") for c in result.get("content", []) if isinstance(c, dict))
    return text.lower().count("note_id:")


@asynccontextmanager
async def client(url: str, name: str) -> AsyncIterator[RawClient]:
    async with httpx.AsyncClient(timeout=120) as http:
        raw = RawClient(http, url)
        await raw.open(name)
        yield raw


async def timed_round(raw: RawClient, server: Server, word: str, samples: Samples) -> None:
    try:
        start = time.perf_counter()
        await raw.call("tools/list", {})
        samples.list_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        found = await raw.call(
            "tools/call", {"name": server.search_tool, "arguments": {"query": word, "limit": 10}}
        )
        samples.search_ms.append((time.perf_counter() - start) * 1000)
        samples.hits.append(hit_count(found))
    except (httpx.HTTPError, RuntimeError, KeyError, ValueError):
        samples.errors += 1


# The runs -------------------------------------------------------------------------------------


async def wait_ready(server: Server, deadline: float = 120.0) -> None:
    end = time.monotonic() + deadline
    while True:
        try:
            async with client(server.url, "ready") as raw:
                await raw.call("tools/list", {})
                return
        except (httpx.HTTPError, RuntimeError, KeyError):
            if time.monotonic() > end:
                raise SystemExit(f"{server.name} did not answer at {server.url}") from None
            await asyncio.sleep(0.5)


async def sequential(server: Server, count: int) -> Samples:
    samples = Samples()
    async with client(server.url, "sequential") as raw:
        for i in range(3):  # warm up: first imports, caches, the connection
            await timed_round(raw, server, WORDS[i], Samples())
        started = time.perf_counter()
        for i in range(count):
            await timed_round(raw, server, WORDS[i % len(WORDS)], samples)
        samples.seconds = time.perf_counter() - started
    return samples


async def concurrent(server: Server, clients: int, rounds: int) -> Samples:
    samples = Samples()

    async def one(index: int) -> None:
        rng = random.Random(index)
        async with client(server.url, f"load-{index}") as raw:
            for _ in range(rounds):
                await timed_round(raw, server, rng.choice(WORDS), samples)

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(clients)))
    samples.seconds = time.perf_counter() - started
    return samples


def summary(samples: Samples) -> dict[str, Any]:
    every = samples.list_ms + samples.search_ms
    return {
        "calls": samples.calls,
        "errors": samples.errors,
        "seconds": round(samples.seconds, 2),
        "ops_per_second": round(samples.calls / samples.seconds, 1) if samples.seconds else None,
        "p50_ms": round(percentile(every, 50), 1),
        "p99_ms": round(percentile(every, 99), 1),
        "list_median_ms": round(percentile(samples.list_ms, 50), 1),
        "search_median_ms": round(percentile(samples.search_ms, 50), 1),
        "search_p99_ms": round(percentile(samples.search_ms, 99), 1),
        "mean_hits": round(sum(samples.hits) / len(samples.hits), 1) if samples.hits else 0,
    }


async def measure(servers: list[Server], args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"load_average_before": os.getloadavg(), "cpus": os.cpu_count(), "servers": {}}
    for server in servers:
        await wait_ready(server)
    for server in servers:
        report["servers"][server.name] = {"sequential": summary(await sequential(server, args.sequential))}
    for server in servers:
        loaded = await concurrent(server, args.clients, args.rounds)
        report["servers"][server.name]["concurrent"] = summary(loaded)
    report["load_average_after"] = os.getloadavg()
    return report


def ratios(report: dict[str, Any]) -> dict[str, float]:
    ours, peer = report["servers"]["noted"], report["servers"]["joplin-mcp 0.10"]

    def ratio(a: float | None, b: float | None) -> float:
        return round(a / b, 2) if a and b else float("nan")

    return {
        "concurrent_p99 (target <= 0.5)": ratio(ours["concurrent"]["p99_ms"], peer["concurrent"]["p99_ms"]),
        "concurrent_ops_per_second (target >= 2)": ratio(
            ours["concurrent"]["ops_per_second"], peer["concurrent"]["ops_per_second"]
        ),
        "sequential_list_median (target <= 1)": ratio(
            ours["sequential"]["list_median_ms"], peer["sequential"]["list_median_ms"]
        ),
        "sequential_search_median (target <= 1)": ratio(
            ours["sequential"]["search_median_ms"], peer["sequential"]["search_median_ms"]
        ),
    }


def print_report(report: dict[str, Any]) -> None:
    head = f"{'server':<17}{'phase':<12}{'calls':>6}{'err':>5}{'p50 ms':>8}{'p99 ms':>8}{'ops/s':>7}"
    print(head + f"{'list med':>10}{'search med':>12}{'hits':>6}")
    for name, phases in report["servers"].items():
        for phase, s in phases.items():
            print(
                f"{name:<17}{phase:<12}{s['calls']:>6}{s['errors']:>5}{s['p50_ms']:>8}{s['p99_ms']:>8}"
                f"{s['ops_per_second'] or '-':>7}{s['list_median_ms']:>10}{s['search_median_ms']:>12}"
                f"{s['mean_hits']:>6}"
            )
    print("noted / joplin-mcp:", json.dumps(report["ratios"]))
    before, after = report["load_average_before"], report["load_average_after"]
    print(f"load average before {before[0]:.2f} {before[1]:.2f}, after {after[0]:.2f} {after[1]:.2f}, "
          f"on {report['cpus']} CPUs; {report['notes']} notes in each")  # fmt: skip


async def run(args: argparse.Namespace) -> dict[str, Any]:
    reason = unavailable_reason()
    if reason:
        raise SystemExit(f"cannot run joplin-mcp's side: {reason}")
    profile = noted_profile()
    joplin_profile = OUT / "peer-joplin-profile"
    if joplin_profile.exists():
        shutil.rmtree(joplin_profile)
    joplin = JoplinServer(joplin_profile, free_port())
    joplin.start()
    servers: list[Server] = []
    try:
        notes = load_into_joplin(profile, joplin)
        wait_for_joplin_index(joplin)
        servers = [await start_noted(profile), start_peer(joplin)]
        report = await measure(servers, args)
        report["notes"] = notes
        report["ratios"] = ratios(report)
        return report
    finally:
        for server in servers:
            if server.process is not None:
                server.process.terminate()
                result = server.process.wait()
                if asyncio.iscoroutine(result):
                    await result
        joplin.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=25, help="tools/list + search rounds per client")
    parser.add_argument("--sequential", type=int, default=50, help="rounds of the one sequential client")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / "bench-mcp-peer.json"
    out.write_text(json.dumps(report, indent=2))
    print_report(report)
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
