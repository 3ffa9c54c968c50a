"""``EarlyKeys`` on a real pseudo-terminal: what was typed before noted took it, and after, comes back
as the terminal sent it, and the terminal is given back in the mode it was found in.

Written into the pty's master side before ``take``, Enter is turned into a line feed by the
kernel (the terminal is cooked, ``ICRNL``): before the fix the app read that as ``Ctrl+J``.
"""

from __future__ import annotations

import os
import termios

from noted.cli.early_keys import EarlyKeys
from noted.ui.patches.key_parser import parse_keys


def test_keys_typed_before_and_after_come_back_as_keys_and_the_mode_is_restored() -> None:
    master, slave = os.openpty()
    try:
        cooked = termios.tcgetattr(slave)
        assert cooked[3] & termios.ICANON and cooked[0] & termios.ICRNL  # a terminal as a shell leaves it
        os.write(master, b"jj\r")  # typed while noted was starting: the kernel makes Enter "\n"
        early = EarlyKeys.take(slave)
        assert early is not None
        held = termios.tcgetattr(slave)
        assert not held[3] & (termios.ICANON | termios.ECHO) and not held[0] & termios.ICRNL
        os.write(master, b"\x1b[Ak\r")  # typed after: as the terminal sent it
        typed = early.give_back()
        assert typed == "jj\r\x1b[Ak\r"
        assert termios.tcgetattr(slave) == cooked
        assert [key.key for key in parse_keys(typed)] == ["j", "j", "enter", "up", "k", "enter"]
    finally:
        os.close(master)
        os.close(slave)


def test_no_terminal_holds_nothing() -> None:
    read, write = os.pipe()
    try:
        assert EarlyKeys.take(read) is None
    finally:
        os.close(read)
        os.close(write)
