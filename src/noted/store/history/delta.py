"""How a revision's body is stored: whole (zlib), or as the difference from the revision before it.

A new revision is stored as a delta against the note's revision just before it (``table.py``
says when it is stored whole instead: a chain at ``MAX_CHAIN``, or a delta that saves little): the
length of the bytes both share at the start and at the end, and the bytes between, compressed with
the older body's own middle as zlib's preset dictionary (so text moved or retyped within that span
costs little too). Appending to a note, as an AI app logging into one does, then stores each new
state in a few bytes instead of a copy of the whole note.

Everything works on the UTF-8 bytes, so a shared run may end inside a character: only the whole
is decoded, never a piece.
"""

from __future__ import annotations

import struct
import zlib

_HEADER = struct.Struct("<II")
_ZDICT = 32 * 1024
"""zlib looks back 32 KiB at most, so only that much of the dictionary can help."""


def pack_whole(body: bytes) -> bytes:
    """``body`` as a whole row stores it."""
    return zlib.compress(body, 6)


def unpack_whole(blob: bytes) -> bytes:
    return zlib.decompress(blob)


def _shared_start(a: bytes, b: bytes) -> int:
    """How many bytes ``a`` and ``b`` share at the start (a binary search of C comparisons)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _shared_end(a: bytes, b: bytes, limit: int) -> int:
    """How many bytes ``a`` and ``b`` share at the end, at most ``limit``."""
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid : len(a) - low] == b[len(b) - mid : len(b) - low]:
            low = mid
        else:
            high = mid - 1
    return low


def _dictionary(base: bytes, start: int, end: int) -> bytes:
    return base[max(start, end - _ZDICT) : end]


def pack_delta(base: bytes, body: bytes) -> bytes:
    """``body`` as the difference from ``base``; ``unpack_delta(base, …)`` gives ``body`` back."""
    start = _shared_start(base, body)
    end = _shared_end(base, body, min(len(base), len(body)) - start)
    middle = body[start : len(body) - end]
    squeeze = zlib.compressobj(6, zdict=_dictionary(base, start, len(base) - end) or b"\0")
    return _HEADER.pack(start, end) + squeeze.compress(middle) + squeeze.flush()


def unpack_delta(base: bytes, blob: bytes) -> bytes:
    """The body that ``pack_delta(base, body)`` stored in ``blob``."""
    start, end = _HEADER.unpack_from(blob)
    if start + end > len(base):
        raise ValueError("a revision delta that does not fit the revision it is based on")
    expand = zlib.decompressobj(zdict=_dictionary(base, start, len(base) - end) or b"\0")
    middle = expand.decompress(blob[_HEADER.size :]) + expand.flush()
    return base[:start] + middle + base[len(base) - end :]
