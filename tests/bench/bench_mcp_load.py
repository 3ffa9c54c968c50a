"""Load on the MCP server: 20 concurrent clients searching and reading over Streamable HTTP.

Usage::

    python3 tests/bench/bench_mcp_load.py                         # 2,000 notes, 20 clients × 25 rounds
    python3 tests/bench/bench_mcp_load.py --clients 20 --rounds 50 --mode 2026-07-28 --client sdk

The server is the real ``noted mcp serve --port 0`` in its own process on loopback, over a profile
filled from ``corpus.py`` (cached under ``tests/bench/out/``). Each client runs rounds of
``search_notes`` (a word from the corpus) then ``read_note`` of the first hit, and every fifth
round ``list_notebooks``. ``--client raw`` (the default) sends the JSON-RPC over one ``httpx``
connection per client, so the figure is the server's, not the cost of running twenty SDK clients
in one process; ``--client sdk`` uses the SDK's ``Client``, as an AI app would. The count is
bounded (clients × rounds) and so is the time (``--max-seconds``; the run stops early and says so).
The server's own CPU time per call is read from ``/proc``. Latency is the wall time of one
``call_tool`` as the client sees it; the load average is printed beside it, since on a shared
machine waiting for a core is part of what a client sees.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
from corpus import Corpus, fill_store
from mcp import Client

from noted.store.sqlite import SqliteStore

OUT = Path(__file__).resolve().parent / "out"
SRC = Path(__file__).resolve().parents[2] / "src"


@dataclass
class Samples:
    by_tool: dict[str, list[float]] = field(default_factory=dict)
    errors: int = 0
    tool_errors: int = 0

    def add(self, tool: str, ms: float) -> None:
        self.by_tool.setdefault(tool, []).append(ms)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def build_profile(notes: int, fresh: bool) -> tuple[Path, list[str]]:
    """A profile with the corpus, and search words taken from its titles."""
    root = OUT / f"mcp-load-{notes}"
    corpus = Corpus(notes, seed=1)
    if fresh and root.exists():
        shutil.rmtree(root)
    if not (root / "notes.db").exists():
        root.mkdir(parents=True, exist_ok=True)
        store = SqliteStore.open(root / "notes.db", root / "resources")
        try:
            fill_store(store, corpus)
        finally:
            store.close()
    words = sorted(
        {w.lower() for n in corpus.notes(0, min(notes, 400)) for w in n.title.split() if len(w) > 4}
    )
    return root, words[:200]


async def start_server(profile: Path) -> tuple[asyncio.subprocess.Process, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "noted", "--profile", str(profile), "mcp", "serve", "--port", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert process.stdout is not None
    line = (await asyncio.wait_for(process.stdout.readline(), 120)).decode()
    if "listening on " not in line:
        raise SystemExit(f"the server did not start: {line!r}")
    return process, line.split("listening on ")[1].strip()


Call = Callable[[str, dict[str, Any]], Awaitable[tuple[dict[str, Any] | None, bool]]]
"""Calls one tool: (structured content, is_error)."""


async def one_client(
    index: int, url: str, args: argparse.Namespace, words: list[str], samples: Samples
) -> None:
    rng = random.Random(index)
    opener = sdk_client if args.client == "sdk" else raw_client
    async with opener(url, args.mode, f"load-{index}") as call:
        for round_ in range(args.rounds):
            hits = await timed(call, "search_notes", {"query": rng.choice(words), "limit": 10}, samples)
            results = hits.get("results", []) if hits else []
            if results:
                await timed(call, "read_note", {"id": results[0]["id"]}, samples)
            if round_ % 5 == 4:
                await timed(call, "list_notebooks", {}, samples)


async def timed(call: Call, tool: str, args: dict[str, Any], samples: Samples) -> dict[str, Any] | None:
    start = time.perf_counter()
    try:
        content, is_error = await call(tool, args)
    except Exception:
        samples.errors += 1
        return None
    samples.add(tool, (time.perf_counter() - start) * 1000)
    if is_error:
        samples.tool_errors += 1
        return None
    return content


@asynccontextmanager
async def sdk_client(url: str, mode: str, name: str) -> AsyncIterator[Call]:
    info = types.Implementation(name=name, version="1")
    async with Client(url, mode=mode, client_info=info, read_timeout_seconds=60) as client:

        async def call(tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
            result = await client.call_tool(tool, args)
            content = result.structured_content if isinstance(result.structured_content, dict) else None
            return content, result.is_error

        yield call


@asynccontextmanager
async def raw_client(url: str, mode: str, name: str) -> AsyncIterator[Call]:
    base = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    info = {"name": name, "version": "1"}
    async with httpx.AsyncClient(timeout=60) as http:
        if mode == "legacy":
            init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info}
            opened = await http.post(url, json=_rpc(0, "initialize", init), headers=base)
            base |= {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
            await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=base)
        ids = iter(range(1, 1 << 30))

        async def call(tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
            params: dict[str, Any] = {"name": tool, "arguments": args}
            headers = dict(base)
            if mode != "legacy":
                params["_meta"] = {
                    "io.modelcontextprotocol/protocolVersion": mode,
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": info,
                }
                headers |= {"mcp-protocol-version": mode, "mcp-method": "tools/call", "mcp-name": tool}
            response = await http.post(url, json=_rpc(next(ids), "tools/call", params), headers=headers)
            result = response.json()["result"]
            return result.get("structuredContent"), bool(result.get("isError"))

        yield call


def _rpc(id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    profile, words = build_profile(args.notes, args.fresh)
    process, url = await start_server(profile)
    samples = Samples()
    cpu_before = _cpu_seconds(process.pid)
    started = time.perf_counter()
    finished = True
    try:
        with anyio.move_on_after(args.max_seconds) as scope:
            async with anyio.create_task_group() as tasks:
                for index in range(args.clients):
                    tasks.start_soon(one_client, index, url, args, words, samples)
        finished = not scope.cancelled_caught
        # read before the server exits: /proc forgets a process once it is reaped
        cpu_used = _cpu_seconds(process.pid) - cpu_before
    finally:
        process.terminate()
        await process.wait()
    elapsed = time.perf_counter() - started
    every = [ms for values in samples.by_tool.values() for ms in values]
    report: dict[str, Any] = {
        "notes": args.notes,
        "clients": args.clients,
        "rounds": args.rounds,
        "mode": args.mode,
        "client": args.client,
        "finished": finished,
        "seconds": round(elapsed, 2),
        "calls": len(every),
        "calls_per_second": round(len(every) / elapsed, 1),
        "server_cpu_ms_per_call": round(cpu_used * 1000 / max(len(every), 1), 2),
        "errors": samples.errors,
        "tool_errors": samples.tool_errors,
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
        "all": _summary(every),
        "by_tool": {tool: _summary(values) for tool, values in sorted(samples.by_tool.items())},
    }
    return report


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used, from /proc (NaN where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 50), 1),
        "p95_ms": round(percentile(values, 95), 1),
        "p99_ms": round(percentile(values, 99), 1),
        "max_ms": round(max(values), 1) if values else float("nan"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=25, help="search+read rounds per client")
    parser.add_argument("--mode", default="legacy", choices=("legacy", "2026-07-28"))
    parser.add_argument("--client", default="raw", choices=("raw", "sdk"))
    parser.add_argument("--max-seconds", type=float, default=300.0)
    parser.add_argument("--fresh", action="store_true", help="rebuild the cached profile")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"bench-mcp-load-{args.notes}-{args.mode}-{args.client}.json"
    out.write_text(json.dumps(report, indent=2))
    print(f"{report['calls']} calls by {args.clients} clients in {report['seconds']} s "
          f"({report['calls_per_second']}/s), protocol {args.mode}, {args.client} clients, {args.notes} notes; "
          f"server CPU {report['server_cpu_ms_per_call']} ms/call; "
          f"errors {report['errors']}, tool errors {report['tool_errors']}; "
          f"load average {report['load_average'][0]:.1f} on {report['cpus']} CPUs"
          + ("" if report["finished"] else f"; STOPPED at --max-seconds {args.max_seconds}"))  # fmt: skip
    print(f"{'tool':<16}{'n':>6}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for tool, s in [("all", report["all"]), *report["by_tool"].items()]:
        print(f"{tool:<16}{s['n']:>6}{s['p50_ms']:>9}{s['p95_ms']:>9}{s['p99_ms']:>9}{s['max_ms']:>9}")
    print(f"written to {out}")
    return 0 if report["finished"] and not report["errors"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
