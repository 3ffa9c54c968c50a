"""Benchmark of a long answer streamed into the chat pane: from send to the answer fully drawn.

Usage: ``PYTHONPATH=src python3 tests/bench/bench_chat_stream.py [--chars 32000] [--chunk 8]
[--runs 3] [--paragraphs 1] [--profile]``.

Each run opens a fresh profile, mounts the chat pane (as the app does) under Pilot at 100×40 with a
scripted ``FakeProvider`` that streams ``--chars`` characters of prose, in ``--paragraphs``
paragraphs, ``--chunk`` characters a piece, and times from Enter until the answer has ended and its
Markdown holds the whole text (the final full update done). It prints each run, the median and the
load average; ``--profile`` runs once more under cProfile and prints the 25 costliest functions by
cumulative time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from textual.app import App, ComposeResult  # noqa: E402

from noted.models import NoteDraft  # noqa: E402
from noted.profile import Profile  # noqa: E402
from noted.providers import FakeProvider, Reply  # noqa: E402
from noted.services import Services  # noqa: E402
from noted.ui.chat import ChatPane  # noqa: E402
from noted.ui.chat.views import AnswerView, ChatInput  # noqa: E402

WORDS = "alpha beta gamma delta river stone cloud paper window garden engine winter summer".split()


def prose(chars: int, paragraphs: int) -> str:
    """``chars`` characters of words in ``paragraphs`` paragraphs (no line breaks inside one)."""
    each = chars // paragraphs
    out = []
    for p in range(paragraphs):
        words: list[str] = []
        size, i = 0, p
        while size < each:
            word = WORDS[i % len(WORDS)]
            words.append(word)
            size += len(word) + 1
            i += 7
        out.append(" ".join(words))
    return "\n\n".join(out)


class Host(App[None]):
    def __init__(self, services: Services, text: str, chunk: int) -> None:
        super().__init__()
        self.services = services
        self.text = text
        self.chunk = chunk

    def compose(self) -> ComposeResult:
        script = [[Reply(self.text, chunk_size=self.chunk)]]
        yield ChatPane(
            self.services,
            engine_factory=lambda: self.services.chat_engine(provider=lambda: FakeProvider(script)),
        )


async def one_run(text: str, chunk: int) -> float:
    with tempfile.TemporaryDirectory(prefix="noted-bench-chat-") as tmp:
        services = Services.open(Profile(Path(tmp) / "profile").ensure(), welcome=False)
        services.settings.set("ai.enabled", True)
        services.settings.set("ai.provider", "fake")
        folder = services.store.create_folder("Home", actor="user")
        services.store.create_note(NoteDraft("Note", "body", parent_id=folder.id), actor="user")
        try:
            app = Host(services, text, chunk)
            async with app.run_test(size=(100, 40)) as pilot:
                await pilot.pause()
                pane = app.query_one(ChatPane)
                box = app.query_one(ChatInput)
                box.focus()
                box.value = "Write a long answer"
                started = time.perf_counter()
                await pilot.press("enter")
                while True:
                    answers = list(app.query(AnswerView))
                    done = answers and not pane.running and not answers[-1].streaming
                    if done and answers[-1].source == text:
                        break
                    await asyncio.sleep(0.01)
                await pilot.pause()  # the frame after it
                return time.perf_counter() - started
        finally:
            services.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=32000)
    parser.add_argument("--chunk", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--paragraphs", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    text = prose(args.chars, args.paragraphs)
    times = []
    for n in range(args.runs):
        seconds = asyncio.run(one_run(text, args.chunk))
        times.append(seconds)
        print(f"run {n + 1}: {seconds:.2f} s", flush=True)
    print(f"load average (1, 5, 15 min) after the runs: {os.getloadavg()}")
    print(
        f"median of {args.runs}: {statistics.median(times):.2f} s ({len(text)} chars, chunks of {args.chunk})"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        asyncio.run(one_run(text, args.chunk))
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
