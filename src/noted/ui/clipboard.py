"""Copying text to the person's own clipboard, over SSH and inside tmux, with OSC 52.

Textual's ``App.copy_to_clipboard`` writes ``ESC ] 52 ; c ; <base64> BEL`` to the terminal, which
the terminal (not the machine noted runs on) puts on its clipboard, so a copy made over SSH lands
on the laptop. Inside tmux the sequence reaches tmux, which acts on it only with
``set -g set-clipboard on`` (tmux ≥ 2.6; it then keeps a paste buffer and passes the copy on to
the outer terminal). tmux's default, ``external``, drops it; for a tmux kept that way but with
``set -g allow-passthrough on`` (tmux ≥ 3.3), the same sequence is sent a second time wrapped in
tmux's passthrough (``ESC P tmux; … ESC \\``), which tmux hands to the outer terminal untouched
and ignores when passthrough is off. Both go out because noted cannot see tmux's options without
running tmux; a terminal given the copy twice keeps the same text.
"""

from __future__ import annotations

import base64
import os
from typing import Any

from textual.app import App

from noted.ui.patches.raw_output import write_raw

_ESC = "\x1b"


def osc52(text: str) -> str:
    """The OSC 52 sequence that sets the terminal's clipboard to ``text`` (as Textual writes it)."""
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"{_ESC}]52;c;{encoded}\a"


def tmux_passthrough(sequence: str) -> str:
    """``sequence`` wrapped for tmux to pass to the outer terminal (each ESC inside doubled)."""
    return f"{_ESC}Ptmux;{sequence.replace(_ESC, _ESC + _ESC)}{_ESC}\\"


def line_count(text: str) -> int:
    """Lines as a person counts them: a last line without a newline counts, a final newline does not."""
    return len(text.splitlines())


def pass_through_tmux(app: App[Any], text: str) -> None:
    """Inside tmux, send the copy of ``text`` once more, through tmux's passthrough, so that it
    reaches the outer terminal from a tmux with only passthrough on (``NotedApp.copy_to_clipboard``
    calls this after Textual's own copy)."""
    if os.environ.get("TMUX"):
        write_raw(app, tmux_passthrough(osc52(text)))


def copy_text(app: App[Any], text: str, what: str, *, nothing: str) -> bool:
    """Copy ``text`` and say so in one line ("Copied 12 lines: the note"); False when empty.

    Args:
        app: The running app, whose terminal gets the copy.
        text: What to copy.
        what: What it is, for the notice ("the note “Plans”").
        nothing: What to say instead when ``text`` is blank ("This note is empty.").
    """
    if not text.strip():
        app.notify(f"{nothing} Nothing was copied.", severity="warning")
        return False
    app.copy_to_clipboard(text)
    lines = line_count(text)
    app.notify(f"Copied {lines} line{'s' if lines != 1 else ''}: {what}.")
    return True
