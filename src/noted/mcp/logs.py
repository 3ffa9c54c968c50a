"""The SDK's and uvicorn's log lines go where noted's go: the profile's log file.

On stdio, stdout is the protocol and an AI app shows stderr to nobody, so a warning from the SDK
(a session that crashed, a client that sent garbage) is only useful in the file.
"""

from __future__ import annotations

import logging

LIBRARIES = ("mcp", "uvicorn", "sse_starlette")


def send_library_logs_to_noted(level: int = logging.WARNING) -> None:
    """Give the libraries' loggers the handlers of the ``noted`` logger (the profile's file).

    Call after ``noted.logs.setup_logging``; calling it again adds nothing twice.
    """
    handlers = logging.getLogger("noted").handlers
    for name in LIBRARIES:
        logger = logging.getLogger(name)
        for handler in handlers:
            if handler not in logger.handlers:
                logger.addHandler(handler)
        if handlers:
            logger.setLevel(level)
            logger.propagate = False
