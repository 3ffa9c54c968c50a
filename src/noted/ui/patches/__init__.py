"""Every change noted makes to Textual's private internals, with a way to undo them.

Each module here is one patch: its docstring says what Textual does upstream (file, method, the
behaviour and what it cost noted), how to report it, and what the patch does instead; its ``PATCH``
(a ``guard.Patch``) names the Textual minor release it was written for and every private name it
touches. ``tests/unit/test_textual_patches.py`` is the upgrade canary: it checks each of those names
and signatures against the installed Textual, and that ``pyproject.toml`` pins Textual to that minor
release and lists every patch in the pin's comment.

Three kinds, one switch:

- process-wide replacements, swapped in by ``install`` and back out by ``uninstall``:
  ``same_rules`` (``Stylesheet.replace_rules``), ``focus_within`` (``Screen._update_focus_styles``),
  ``strip_cycles`` (``Strip.crop_extend``, ``Strip.divide``), ``keys_in_order`` (``Widget._on_key``:
  a text field's own keys in the order typed), ``control_text`` (``Strip.render``: a note's control
  characters pictured, never written to the terminal), ``dead_terminal`` (``WriterThread.run``: the
  output queue emptied once the terminal is gone, so the app still ends), ``end_of_input``
  (``LinuxDriver.run_input_thread``: end of input ends the app as SIGHUP does, not a busy loop);
- overrides in noted's own subclasses, which do what Textual does unless their patch is on:
  ``steady_scrollbars`` (``SteadyScrollbars._size_updated``), ``crash_output``
  (``noted.ui.crash.LastResort``);
- helpers that read or call private names for a widget, and fall back to Textual's way when off:
  ``pending_layout`` (``Workspace.refresh``), ``option_rows`` (``NoteList``), ``raw_output``
  (``CopiesThroughTmux``: a copy passed through tmux), ``binding_chain`` (the keys the help lists),
  ``key_parser`` (the keys typed before the app started).

``install`` turns on each patch written for the running Textual and leaves out, with one warning in
``noted.log``, any written for another release: noted then runs as plain Textual does, slower but
correct. ``NotedApp`` installs them when it is built; nothing else has to.
"""

from __future__ import annotations

from noted.ui.patches import (
    binding_chain,
    control_text,
    crash_output,
    dead_terminal,
    end_of_input,
    focus_within,
    key_parser,
    keys_in_order,
    option_rows,
    pending_layout,
    raw_output,
    same_rules,
    steady_scrollbars,
    strip_cycles,
    theme_cache,
)
from noted.ui.patches.guard import Patch, Private, enabled, turn_off, turn_on

__all__ = ["PATCHES", "Patch", "Private", "enabled", "install", "installed", "uninstall"]

PATCHES: tuple[Patch, ...] = (
    same_rules.PATCH,
    focus_within.PATCH,
    strip_cycles.PATCH,
    theme_cache.PATCH,
    steady_scrollbars.PATCH,
    pending_layout.PATCH,
    option_rows.PATCH,
    crash_output.PATCH,
    raw_output.PATCH,
    binding_chain.PATCH,
    key_parser.PATCH,
    keys_in_order.PATCH,
    control_text.PATCH,
    dead_terminal.PATCH,
    end_of_input.PATCH,
)
"""Every patch, in the order ``install`` applies them (``uninstall`` goes backwards)."""


def install(textual_version: str | None = None, *, speed: bool = True) -> tuple[Patch, ...]:
    """Turn on every patch written for this Textual (once per process); give the ones that are on.

    Args:
        textual_version: The Textual version to guard by; the installed one when ``None``.
        speed: False leaves out (and turns off) the patches that exist only for speed
            (``noted.ui.speed``'s switch).
    """
    for patch in PATCHES:
        if patch.speed and not speed:
            turn_off(patch)
    return tuple(patch for patch in PATCHES if (speed or not patch.speed) and turn_on(patch, textual_version))


def uninstall() -> None:
    """Give Textual back its own code: every patch off, every replaced method restored."""
    for patch in reversed(PATCHES):
        turn_off(patch)


def installed() -> tuple[Patch, ...]:
    """The patches that are on."""
    return tuple(patch for patch in PATCHES if enabled(patch))
