"""The tests' shared wait: it goes on once the condition holds and fails naming what it awaited."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest
from tests.support import polling
from tests.support.polling import wait_for, wait_for_async


def test_wait_for_returns_once_another_thread_makes_the_condition_true() -> None:
    done = threading.Event()
    threading.Timer(0.05, done.set).start()
    wait_for(done.is_set, what="the timer")
    assert done.is_set()  # not vacuous: it was false when the wait began


def test_wait_for_fails_naming_what_it_awaited() -> None:
    with pytest.raises(AssertionError, match="waiting for the moon"):
        wait_for(lambda: False, what="the moon", timeout=0.05 / polling.SCALE)


async def test_the_async_wait_lets_the_loop_run_the_task_it_waits_for() -> None:
    seen: list[int] = []

    async def later() -> None:
        await asyncio.sleep(0.02)
        seen.append(1)

    task = asyncio.create_task(later())
    await wait_for_async(lambda: seen, what="the task")
    await task
    with pytest.raises(AssertionError, match="waiting for never"):
        await wait_for_async(lambda: False, what="never", timeout=0.05 / polling.SCALE)


@pytest.mark.parametrize(("raw", "ok"), [("3", True), ("0", False), ("fast", False)])
def test_the_timeout_scale_comes_from_the_environment_and_a_bad_one_is_refused(raw: str, ok: bool) -> None:
    # A fresh interpreter: the scale is read once at import, before the fixtures clear NOTED_ variables.
    code = "from tests.support.polling import scaled; print(scaled(2))"
    env = {"NOTED_TEST_TIMEOUT_SCALE": raw, "PATH": ""}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    if ok:
        assert done.stdout.strip() == "6.0", done.stderr
    else:
        assert done.returncode != 0 and "must be a positive number" in done.stderr
