"""The bytes of attachments: base64 in, checked types, text or downscaled images out.

Everything here runs before the store is touched, so a file that is too large, not base64, or not
the image it claims to be is refused with nothing written. Images are decoded with Pillow only to
check them and to make the small copy a model is shown; the stored file is always the original.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
from dataclasses import dataclass

from PIL import Image, ImageOps

from noted.errors import InvalidInputError
from noted.ops import filetypes
from noted.ops.filetypes import MAX_FILE, too_large
from noted.store.rules import attachment_name
from noted.tools.base import ToolError

MAX_BASE64 = 14_400_000
"""Room for ``MAX_FILE`` in base64 (13,981,016 characters) with line breaks every 76 characters."""
MAX_FILENAME = 255
DETAIL_PIXELS = {"low": 128, "medium": 256, "high": 512}
"""The longest side of the copy of an image a model is shown, by level of detail (as Joplin's)."""

MIME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$"
_MIME = re.compile(MIME_PATTERN)
_DATA_URL = re.compile(r"^data:[^,]{0,200};base64,", re.IGNORECASE)
_SPACE = re.compile(r"\s+")

_ALIASES = {
    "image/jpg": "image/jpeg",
    "image/pjpeg": "image/jpeg",
    "image/x-png": "image/png",
    "image/x-icon": "image/vnd.microsoft.icon",
    "image/x-ms-bmp": "image/bmp",
    "image/x-bmp": "image/bmp",
}
TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/x-yaml",
        "application/yaml",
        "application/javascript",
        "application/x-sh",
        "application/sql",
        "application/toml",
        "application/x-ndjson",
        "image/svg+xml",
    }
)


def normal_mime(mime: str, field: str = "mime") -> str:
    """``Image/JPG; q=1`` → ``image/jpeg``: lower case, parameters dropped, common aliases resolved."""
    base = mime.split(";", 1)[0].strip().lower()
    if not _MIME.match(base):
        raise ToolError(
            f'field "{field}" is not a media type such as "image/png" or "application/pdf"', field=field
        )
    return _ALIASES.get(base, base)


def is_text(mime: str) -> bool:
    return mime.startswith("text/") or mime in TEXT_TYPES or mime.endswith(("+json", "+xml"))


def clean_filename(name: str, field: str = "filename") -> str:
    """The file name the store will keep (``rules.attachment_name``: no folders, no leading dots,
    one line without control or format characters), checked before anything is written."""
    if len(name.strip()) > MAX_FILENAME:
        raise ToolError(f'field "{field}" is longer than {MAX_FILENAME} characters', field=field)
    try:
        return attachment_name(name.strip())
    except InvalidInputError as exc:
        raise ToolError(
            f'field "{field}" needs a file name such as "screenshot.png": {exc}', field=field
        ) from exc


def decoded_size(text: str) -> int:
    """How many bytes ``text`` (base64, possibly with line breaks) decodes to, without decoding it."""
    body = _SPACE.sub("", _DATA_URL.sub("", text.lstrip(), count=1))
    return len(body) * 3 // 4 - len(body) + len(body.rstrip("="))


def decode(text: str, field: str = "content_base64") -> bytes:
    """The bytes of a base64 text (standard or URL-safe alphabet, a ``data:`` URL prefix allowed).

    Raises:
        ToolError: the text is not base64, or decodes to more than ``MAX_FILE`` bytes (checked
            before decoding).
    """
    size = decoded_size(text)
    if size > MAX_FILE:
        raise ToolError(too_large(size), field=field)
    body = _SPACE.sub("", _DATA_URL.sub("", text.lstrip(), count=1))
    if "-" in body or "_" in body:
        body = body.replace("-", "+").replace("_", "/")
    body += "=" * (-len(body) % 4) if not body.endswith("=") else ""
    try:
        return base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raise ToolError(
            f'field "{field}" is not valid base64 (the file\'s bytes encoded with A–Z, a–z, 0–9, + and /)',
            field=field,
        ) from None


def check_type(data: bytes, mime: str, field: str = "mime") -> None:
    """Refuse an image whose bytes are not of its declared type (``ops.filetypes.check_type``).

    Raises:
        ToolError: the file is refused; its field is the input at fault.
    """
    try:
        filetypes.check_type(data, mime, field)
    except filetypes.FileTypeError as exc:
        raise ToolError(exc.message, field=exc.field) from None


def _open(data: bytes) -> Image.Image:
    try:
        return filetypes.open_image(data)
    except filetypes.FileTypeError as exc:
        raise ToolError(exc.message) from None


@dataclass(frozen=True, slots=True)
class Thumbnail:
    """The copy of an image a model is shown."""

    mime: str
    data: bytes
    width: int
    height: int
    original_width: int
    original_height: int


def thumbnail(data: bytes, mime: str, detail: str) -> Thumbnail:
    """``data`` scaled down so its longest side is at most the ``detail`` level's size (never up).

    JPEG stays JPEG (smaller for photos); every other type becomes PNG. EXIF rotation is applied.

    Raises:
        ToolError: the image cannot be decoded or has too many pixels.
    """
    side = DETAIL_PIXELS[detail]
    image = _open(data)
    original = image.size
    try:
        if image.format == "JPEG":
            image.draft("RGB", (side, side))  # decode at a fraction of the size: much faster
        image = ImageOps.exif_transpose(image)
        image.thumbnail((side, side), Image.Resampling.LANCZOS, reducing_gap=3.0)
        out = io.BytesIO()
        if mime == "image/jpeg":
            image.convert("RGB").save(out, "JPEG", quality=85, optimize=True)
            kind = "image/jpeg"
        else:
            if image.mode not in ("RGB", "RGBA", "L", "LA", "P"):
                image = image.convert("RGBA")
            image.save(out, "PNG", optimize=True)
            kind = "image/png"
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ToolError(f"the image cannot be read: {exc}") from None
    return Thumbnail(kind, out.getvalue(), image.width, image.height, *original)


def base64_text(data: bytes) -> str:
    """``data`` in standard base64."""
    return base64.b64encode(data).decode("ascii")
