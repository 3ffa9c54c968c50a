"""Keep a strip that ``crop_extend`` or ``divide`` leaves unchanged out of its own cache.

Upstream (Textual 8.2, ``strip.py``): ``Strip.crop_extend`` and ``Strip.divide`` keep their result in
the strip's own caches (``_crop_extend_cache``, ``_divide_cache``), and when nothing had to change
that result is (``crop_extend``) or holds (``divide``, ``[self]`` when the one cut is the strip's end)
the strip itself. Nearly every line Textual paints becomes a reference cycle (the strip and its seven
small caches), which only a full cyclic collection frees: tens of thousands of objects, freed all at
once in the middle of a key press (pauses of 100-250 ms while a note opened on a 10,000-note profile,
``tests/bench/bench_ui.py``). To report: "Strip.crop_extend/divide cache the strip in itself, making
a reference cycle of every unchanged line".

The patch makes both skip the cache in that case, so those strips die as soon as the last reference
goes. ``noted.ui.speed.Collector`` does the rest (when the collector runs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from noted.ui.patches.guard import Patch, Private, Swap

if TYPE_CHECKING:
    from rich.style import Style
    from textual.strip import Strip


def _crop_extend(self: Strip, start: int, end: int, style: Style | None) -> Strip:
    """``Strip.crop_extend`` as in Textual, without caching the strip in itself."""
    key = (start, end, style)
    cached = self._crop_extend_cache.get(key)
    if cached is not None:
        return cached
    strip = self.extend_cell_length(end, style).crop(start, end)
    if strip is not self:
        self._crop_extend_cache[key] = strip
    return strip


def _divide_uncached_whole(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    """``Strip.divide``, which caches ``[self]`` when the one cut is the strip's end: not cached here."""
    cuts = list(cuts)
    length = self.cell_length
    if [cut for cut in cuts if cut <= length] == [length]:
        return [self]
    divide: Callable[[Strip, Iterable[int]], Sequence[Strip]] = _SWAP.original("divide")
    return divide(self, cuts)


_SWAP = Swap("textual.strip:Strip", {"crop_extend": _crop_extend, "divide": _divide_uncached_whole})
PATCH = Patch(
    name="strip_cycles",
    module=__name__,
    written_for="8.2",
    speed=True,
    touches=(
        Private(
            "textual.strip:Strip",
            "crop_extend",
            "(self, start: 'int', end: 'int', style: 'Style | None') -> 'Strip'",
        ),
        Private("textual.strip:Strip", "divide", "(self, cuts: 'Iterable[int]') -> 'Sequence[Strip]'"),
        Private("textual.strip:Strip", "_crop_extend_cache"),
    ),
    swap=_SWAP,
)
