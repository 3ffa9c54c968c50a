"""Logging to a file in the profile: stacks go there, never to the person's screen."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"


def setup_logging(path: Path, level: int = logging.INFO) -> None:
    """Send the ``noted`` loggers to a rotating file at ``path`` (once per process and path)."""
    logger = logging.getLogger("noted")
    for handler in logger.handlers:
        if getattr(handler, "baseFilename", None) == str(path):
            return
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=2_000_000, backupCount=2, encoding="utf-8")
    handler.setFormatter(logging.Formatter(_FORMAT))
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
