"""What a file may be to become an attachment: its size, and whether an image is the image it claims.

Shared by every way a file joins a note (the ``attach_file`` tool, the app's "add attachment"), so
each refuses the same files with the same words. Pillow is imported only when an image is checked:
the app imports this module at start-up.
"""

from __future__ import annotations

import io
import warnings
from typing import TYPE_CHECKING

from noted.errors import InvalidInputError

if TYPE_CHECKING:
    from PIL import Image

MAX_FILE = 10 * 1024 * 1024
"""The largest attachment a tool stores or returns, decoded (10 MiB)."""
MAX_PIXELS = 64_000_000
"""Images with more pixels than this are not decoded (a small file can hold a huge image)."""

SHOWN_IMAGES = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WEBP",
    "image/bmp": "BMP",
    "image/tiff": "TIFF",
    "image/vnd.microsoft.icon": "ICO",
}
"""Image types a model can be shown (after downscaling), with Pillow's name for each."""
CHECKED_IMAGES = frozenset({*SHOWN_IMAGES, "image/svg+xml", "image/avif", "image/heic", "image/heif"})
"""Image types whose bytes can be checked against the declared type; other ``image/`` types are refused."""


class FileTypeError(InvalidInputError):
    """A file that cannot be stored as it was declared; ``field`` is the tool input at fault."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def too_large(size: int) -> str:
    """The refusal of a file of ``size`` bytes, over ``MAX_FILE``."""
    return (
        f"the file is {size:,} bytes; an attachment may be at most {MAX_FILE // (1024 * 1024)} MiB "
        f"({MAX_FILE:,} bytes). Nothing was written."
    )


def sniff_image(data: bytes) -> str | None:
    """The image type the bytes start with (``image/png``…), or None when they are no known image."""
    head = data[:64]
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"BM"):
        return "image/bmp"
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return "image/tiff"
    if head.startswith(b"\x00\x00\x01\x00"):
        return "image/vnd.microsoft.icon"
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in (b"avif", b"avis"):
            return "image/avif"
        if brand in (b"heic", b"heix", b"mif1", b"msf1"):
            return "image/heic"
    if _looks_like_svg(data):
        return "image/svg+xml"
    return None


def _looks_like_svg(data: bytes) -> bool:
    try:
        text = data[:4096].decode("utf-8").lstrip("\ufeff \t\r\n")
    except UnicodeDecodeError:
        return False
    return text.startswith("<") and "<svg" in text


def check_type(data: bytes, mime: str, field: str = "mime") -> None:
    """Refuse an image whose bytes are not of its declared type (other types are not checked).

    Raises:
        FileTypeError: ``mime`` is an image type and the bytes are another type, no image, a
            damaged image, or an image type noted cannot check.
    """
    if not mime.startswith("image/"):
        return
    if mime not in CHECKED_IMAGES:
        known = ", ".join(sorted(t.removeprefix("image/") for t in CHECKED_IMAGES))
        raise FileTypeError(
            f'noted cannot check that a file is really "{mime}"; the image types it takes are {known}. '
            'Send other files as "application/octet-stream".',
            field=field,
        )
    found = sniff_image(data)
    same = found == mime or (found == "image/heic" and mime == "image/heif")
    if not same:
        what = f'a "{found}" file' if found else "not an image"
        raise FileTypeError(
            f'the file was declared "{mime}" but its bytes are {what}; nothing was written. '
            "Send the file's real type (or the right file).",
            field=field,
        )
    if mime in SHOWN_IMAGES:
        try:
            open_image(data).verify()
        except FileTypeError:
            raise
        except Exception:
            raise FileTypeError(
                f'the file starts like "{mime}" but is damaged or cut short; nothing was written',
                field="content_base64",
            ) from None


def open_image(data: bytes) -> Image.Image:
    """The image in ``data``, opened lazily by Pillow.

    Raises:
        FileTypeError: the bytes are no image Pillow reads, or it has more than ``MAX_PIXELS``.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except UnidentifiedImageError:  # its text names a Python object: say what it means
        raise FileTypeError("the image cannot be read: its bytes are no image type noted knows") from None
    except (OSError, ValueError, Image.DecompressionBombWarning) as exc:
        raise FileTypeError(f"the image cannot be read: {exc}") from None
    except Image.DecompressionBombError:
        raise FileTypeError("the image has too many pixels to be shown") from None
    if image.width * image.height > MAX_PIXELS:
        raise FileTypeError(
            f"the image is {image.width}×{image.height} pixels, too many to be shown "
            f"(at most {MAX_PIXELS:,}); the person can open it in noted"
        )
    return image
