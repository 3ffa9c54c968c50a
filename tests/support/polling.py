"""Deadline-based waiting for tests, shared so every wait survives a slow, loaded machine.

A test that waits for something polls for that thing until a deadline instead of sleeping a fixed
time: on a quiet machine it goes on as soon as the condition holds, on a loaded one it keeps
waiting. The deadline only turns a hang into a failure, never checks speed, so the defaults are
generous; ``NOTED_TEST_TIMEOUT_SCALE`` (a positive number, read once at import because the
test fixtures clear every ``NOTED_`` variable) multiplies every bound for a slower machine still.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable

POLL_INTERVAL = 0.02  # seconds between two looks: short enough not to slow a quiet run
DEFAULT_TIMEOUT = 60.0  # seconds: a liveness bound, never a speed check


def _scale_from_env() -> float:
    raw = os.environ.get("NOTED_TEST_TIMEOUT_SCALE", "1")
    try:
        scale = float(raw)
    except ValueError:
        raise ValueError(f"NOTED_TEST_TIMEOUT_SCALE must be a positive number, not {raw!r}") from None
    if scale <= 0:
        raise ValueError(f"NOTED_TEST_TIMEOUT_SCALE must be a positive number, not {raw!r}")
    return scale


SCALE = _scale_from_env()


def scaled(seconds: float) -> float:
    """Return ``seconds`` stretched by ``NOTED_TEST_TIMEOUT_SCALE``, for any liveness bound.

    Args:
        seconds: The bound on this machine when it is not unusually slow.

    Returns:
        The bound to use.
    """
    return seconds * SCALE


def _describe(predicate: Callable[[], object], what: str | None) -> str:
    return what or str(getattr(predicate, "__name__", repr(predicate)))


def wait_for(
    predicate: Callable[[], object],
    *,
    what: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    interval: float = POLL_INTERVAL,
) -> None:
    """Block until ``predicate()`` is true; fail the test once ``timeout`` (scaled) has passed.

    Args:
        predicate: Checked at once, then every ``interval`` seconds.
        what: What is awaited, for the failure message (the predicate's name by default).
        timeout: Seconds before giving up, before scaling.
        interval: Seconds between two checks.

    Raises:
        AssertionError: The condition did not hold in time.
    """
    deadline = time.monotonic() + scaled(timeout)
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {scaled(timeout):g} s waiting for {_describe(predicate, what)}"
            )
        time.sleep(interval)


async def wait_for_async(
    predicate: Callable[[], object],
    *,
    what: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    interval: float = POLL_INTERVAL,
    pause: Callable[[float], Awaitable[object]] | None = None,
) -> None:
    """Await until ``predicate()`` is true, letting the event loop run between checks.

    Args:
        predicate: Checked at once, then after every pause.
        what: What is awaited, for the failure message (the predicate's name by default).
        timeout: Seconds before giving up, before scaling.
        interval: Seconds of each pause.
        pause: How to pause (Textual's ``pilot.pause`` so the app processes its messages);
            ``asyncio.sleep`` by default.

    Raises:
        AssertionError: The condition did not hold in time.
    """
    wait = pause or asyncio.sleep
    deadline = time.monotonic() + scaled(timeout)
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {scaled(timeout):g} s waiting for {_describe(predicate, what)}"
            )
        await wait(interval)
