"""Keys typed while the app starts, before Textual takes the terminal.

Until Textual's driver starts (about a second: the notebook opens, Textual loads) the terminal is
in its cooked mode, where the kernel turns Enter into a line feed, which Textual reads as
``Ctrl+J``: ``noted`` then ``j j Enter`` typed at once moved the cursor and lost the Enter.
``EarlyKeys`` puts the terminal in Textual's own input mode as soon as the app is chosen, and reads
what was typed before (turning the kernel's line feeds back into Enter); just before the app runs,
it reads what came since, and gives the terminal back as it found it, so that Textual saves and
restores that mode (around ``$EDITOR`` and at exit) and not this one. The app replays the keys
before any it reads itself (``noted.ui.typeahead``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import termios
import tty
from typing import Any

_NO_LINE_MODE = termios.ECHO | termios.ICANON | termios.IEXTEN
"""Off, as in Textual's driver: no echo, no line editing; ``ISIG`` stays, so ``Ctrl+C`` still
interrupts a long start (an upgrade, a first scan)."""
_NO_INPUT_MAPPING = termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR
"""Off, as in Textual's driver: ``Ctrl+S``/``Ctrl+Q`` reach the app, Enter stays a carriage return."""


class EarlyKeys:
    """The terminal held in Textual's input mode from ``take`` until ``give_back``."""

    def __init__(self, fd: int, saved: list[Any], typed: str) -> None:
        self._fd = fd
        self._saved = saved
        self._typed = typed

    @classmethod
    def take(cls, fd: int | None = None) -> EarlyKeys | None:
        """Hold the terminal on ``fd`` (standard input), or None when it is not a terminal."""
        fd = sys.stdin.fileno() if fd is None else fd
        try:
            saved = termios.tcgetattr(fd)
        except (termios.error, OSError):
            return None
        mode = termios.tcgetattr(fd)
        mode[tty.LFLAG] &= ~_NO_LINE_MODE
        mode[tty.IFLAG] &= ~_NO_INPUT_MAPPING
        mode[tty.CC][termios.VMIN] = 1
        termios.tcsetattr(fd, termios.TCSANOW, mode)
        # Typed in cooked mode: the kernel made each Enter a line feed (ICRNL); make it Enter again.
        return cls(fd, saved, _pending(fd).replace("\n", "\r"))

    def give_back(self) -> str:
        """Give the terminal back as it was; the keys typed meanwhile, as the terminal sent them."""
        typed = self._typed + _pending(self._fd)
        self._typed = ""
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(self._fd, termios.TCSANOW, self._saved)
        return typed


def _pending(fd: int) -> str:
    """What the terminal holds unread (nothing blocks: the terminal is non-canonical)."""
    blocking = os.get_blocking(fd)
    os.set_blocking(fd, False)
    chunks: list[bytes] = []
    try:
        while chunk := os.read(fd, 4096):
            chunks.append(chunk)
    except (BlockingIOError, OSError):
        pass
    finally:
        os.set_blocking(fd, blocking)
    return b"".join(chunks).decode("utf-8", errors="replace")
