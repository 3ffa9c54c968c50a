"""Turn the bytes typed before the app took the terminal into the keys Textual would have read.

Upstream (Textual 8.2, ``_xterm_parser.py``, ``XTermParser``): the parser that turns a terminal's
bytes into key events lives in a private module; a driver feeds it only what it reads from the
terminal itself, and Textual offers no public way to parse, or to inject, bytes read before the
driver started. To report: "no public way to feed the input parser bytes read before the driver
started (keys typed ahead of the app)".

``parse_keys`` feeds Textual's parser (escape sequences become arrows, function keys, ``Alt+x``);
off (another Textual), each character becomes one key by itself, which is right for letters,
digits, Enter and Tab, and types the others into a focused text field.
"""

from __future__ import annotations

from textual import events

from noted.ui.patches.guard import Patch, Private, enabled

PATCH = Patch(
    name="key_parser",
    module=__name__,
    written_for="8.2",
    touches=(
        Private("textual._xterm_parser:XTermParser", "feed", "(self, data: 'str') -> 'Iterable[Message]'"),
    ),
)

_PLAIN = {"\r": "enter", "\t": "tab", "\x1b": "escape", " ": "space"}


def parse_keys(typed: str) -> list[events.Key]:
    """The keys in ``typed``, as the terminal sent them (a lone Escape at the end included)."""
    if not typed:
        return []
    if not enabled(PATCH):
        return [events.Key(_PLAIN.get(char, char), char) for char in typed]
    from textual._xterm_parser import XTermParser

    parser = XTermParser()
    parsed = [*parser.feed(typed), *parser.feed("")]  # "" ends the input: a last Escape is a key
    return [event for event in parsed if isinstance(event, events.Key)]
