"""Small real images made with Pillow, and their base64, for the attachment tests."""

from __future__ import annotations

import base64
import io

from PIL import Image


def image_bytes(width: int = 800, height: int = 400, kind: str = "PNG", color: str = "teal") -> bytes:
    """A real image file of ``kind`` (PNG, JPEG, GIF, WEBP…) with a stripe, so it is not one flat colour."""
    image = Image.new("RGB", (width, height), color)
    for x in range(0, width, 7):
        for y in range(height // 3, height // 2):
            image.putpixel((x, y), (255, 200, 0))
    out = io.BytesIO()
    image.save(out, kind)
    return out.getvalue()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def size_of(data: bytes) -> tuple[int, int]:
    """(width, height) of an image file."""
    with Image.open(io.BytesIO(data)) as image:
        return image.size
