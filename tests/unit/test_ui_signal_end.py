"""An app ended by SIGHUP or SIGTERM (``noted.ui.crash``) asks to close as a quit does; once, after
the terminal closed, it never closed (a thread waiting for good): the process lingered with its
profile open. The process now ends by itself ``GRACE_SECONDS`` after the signal."""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

import pytest

from noted.ui import crash


class _StuckApp:
    """An app whose quit never finishes: it records the request and nothing ends."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def exit(self, return_code: int = 0, message: Any = None) -> None:
        self.asked.append(return_code)


def test_an_app_that_does_not_close_after_the_signal_ends_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ended, done = [], threading.Event()

    def end(pid: int, signum: int) -> None:
        ended.append(signum)
        done.set()

    monkeypatch.setattr(crash, "GRACE_SECONDS", 0.05)
    monkeypatch.setattr(os, "kill", end)
    monkeypatch.setattr(signal, "signal", lambda signum, handler: None)
    app = _StuckApp()
    report = crash.CrashReport(app, lambda error: "line")  # type: ignore[arg-type]
    report._ended_by(signal.SIGTERM)
    assert app.asked == [143]  # asked to close as a quit does, first
    assert done.wait(30), "the process was never ended"
    assert ended == [signal.SIGTERM]  # ended by the signal's own default action
