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
import warnings
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError

from noted.tools.base import ToolError

MAX_FILE = 10 * 1024 * 1024
"""The largest attachment a tool stores or returns, decoded (10 MiB)."""
MAX_BASE64 = 14_400_000
"""Room for ``MAX_FILE`` in base64 (13,981,016 characters) with line breaks every 76 characters."""
MAX_FILENAME = 255
DETAIL_PIXELS = {"low": 128, "medium": 256, "high": 512}
"""The longest side of the copy of an image a model is shown, by level of detail (as Joplin's)."""
MAX_PIXELS = 64_000_000
"""Images with more pixels than this are not decoded (a small file can hold a huge image)."""

MIME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$"
_MIME = re.compile(MIME_PATTERN)
_DATA_URL = re.compile(r"^data:[^,]{0,200};base64,", re.IGNORECASE)
_SPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

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
    """The last part of ``name`` (no folders), checked: one line, not empty, not too long."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not base or base in (".", ".."):
        raise ToolError(f'field "{field}" needs a file name such as "screenshot.png"', field=field)
    if _CONTROL.search(base):
        raise ToolError(f'field "{field}" must be one line without control characters', field=field)
    if len(base) > MAX_FILENAME:
        raise ToolError(f'field "{field}" is longer than {MAX_FILENAME} characters', field=field)
    return base


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


def too_large(size: int) -> str:
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
        ToolError: ``mime`` is an image type and the bytes are another type, no image, a damaged
            image, or an image type noted cannot check.
    """
    if not mime.startswith("image/"):
        return
    if mime not in CHECKED_IMAGES:
        known = ", ".join(sorted(t.removeprefix("image/") for t in CHECKED_IMAGES))
        raise ToolError(
            f'noted cannot check that a file is really "{mime}"; the image types it takes are {known}. '
            'Send other files as "application/octet-stream".',
            field=field,
        )
    found = sniff_image(data)
    same = found == mime or (found == "image/heic" and mime == "image/heif")
    if not same:
        what = f'a "{found}" file' if found else "not an image"
        raise ToolError(
            f'the file was declared "{mime}" but its bytes are {what}; nothing was written. '
            "Send the file's real type (or the right file).",
            field=field,
        )
    if mime in SHOWN_IMAGES:
        try:
            _open(data).verify()
        except ToolError:
            raise
        except Exception:
            raise ToolError(
                f'the file starts like "{mime}" but is damaged or cut short; nothing was written',
                field="content_base64",
            ) from None


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


def _open(data: bytes) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombWarning) as exc:
        raise ToolError(f"the image cannot be read: {exc}") from None
    except Image.DecompressionBombError:
        raise ToolError("the image has too many pixels to be shown") from None
    if image.width * image.height > MAX_PIXELS:
        raise ToolError(
            f"the image is {image.width}×{image.height} pixels, too many to be shown "
            f"(at most {MAX_PIXELS:,}); the person can open it in noted"
        )
    return image


def base64_text(data: bytes) -> str:
    """``data`` in standard base64."""
    return base64.b64encode(data).decode("ascii")
