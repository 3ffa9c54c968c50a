"""The log is a help, never a crash: a log that cannot be opened or written is reported once."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from noted.logs import setup_logging


@pytest.fixture(autouse=True)
def _fresh_logger() -> Iterator[None]:
    # setup_logging changes the process-wide "noted" logger: put all of it back for later tests
    # (pytest's caplog needs records to propagate).
    logger = logging.getLogger("noted")
    saved = list(logger.handlers), logger.propagate, logger.level
    logger.handlers.clear()
    yield
    for handler in logger.handlers:
        handler.close()
    logger.handlers[:], logger.propagate, logger.level = saved[0], saved[1], saved[2]


def test_a_log_that_cannot_be_opened_is_reported_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "noted.log").mkdir()  # a folder where the file should be: open() fails for anyone
    assert setup_logging(tmp_path / "noted.log") is False
    logging.getLogger("noted.test").error("dropped, never printed")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot open the log file" in err and "dropped" not in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full to make writes fail")
def test_a_log_that_cannot_be_written_is_reported_once_then_dropped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # /dev/full opens but every write fails with "No space left on device": a real full disk.
    assert setup_logging(Path("/dev/full")) is True
    log = logging.getLogger("noted.test")
    log.error("first")
    log.error("second")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write the log file /dev/full" in err, err
    assert "Traceback" not in err and "Logging error" not in err
