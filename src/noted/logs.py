"""Logging to a file in the profile: stacks go there, never to the person's screen.

The log is a help, never a reason to fail: when it cannot be opened (a read-only profile) or
written (a full disk), noted says so once on stderr and goes on without it.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import sys
from pathlib import Path

_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"


class _QuietHandler(logging.handlers.RotatingFileHandler):
    """A rotating file handler that, when a record cannot be written, says so once and stops."""

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 (logging's name)
        exc = sys.exc_info()[1]
        reason = getattr(exc, "strerror", None) or exc
        _warn(f"noted: cannot write the log file {self.baseFilename} ({reason}); going on without it")
        logger = logging.getLogger("noted")
        logger.removeHandler(self)
        logger.addHandler(logging.NullHandler())  # else logging's last resort prints to stderr
        with contextlib.suppress(OSError):
            self.close()


_warned: set[str] = set()


def _warn(message: str) -> None:
    """Print ``message`` on stderr once per process."""
    if message in _warned:
        return
    _warned.add(message)
    with contextlib.suppress(OSError):  # stderr itself is gone: nothing more to do
        print(message, file=sys.stderr)


def setup_logging(path: Path, level: int = logging.INFO) -> bool:
    """Send the ``noted`` loggers to a rotating file at ``path`` (once per process and path).

    Returns:
        False when the file cannot be opened; a one-line notice went to stderr and logging is off.
    """
    logger = logging.getLogger("noted")
    for handler in logger.handlers:
        if getattr(handler, "baseFilename", None) == str(path):
            return True
    try:
        # backslashreplace: a message quoting bad input (argv that is not UTF-8) is still written.
        handler = _QuietHandler(
            path, maxBytes=2_000_000, backupCount=2, encoding="utf-8", errors="backslashreplace"
        )
    except OSError as exc:
        _warn(f"noted: cannot open the log file {path} ({exc.strerror or exc}); going on without it")
        logger.setLevel(level)
        logger.propagate = False  # without a handler, records are dropped, never printed
        logger.addHandler(logging.NullHandler())
        return False
    handler.setFormatter(logging.Formatter(_FORMAT))
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    return True
