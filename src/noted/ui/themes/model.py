"""``ThemeFile``: what a theme file may hold, as a pydantic model of Textual's ``Theme``.

Every field of ``textual.theme.Theme`` and nothing else (``tests/unit/test_ui_themes.py`` checks the
two agree); colours must parse as Textual colours, types are strict (``dark = "yes"`` is refused),
and an unknown field such as ``primry`` is named. Imported only to read a person's own theme files:
pydantic takes longer to load than the whole start of the app has to spare, and the bundled themes
are checked by the same model in the tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from textual.color import Color, ColorParseError
from textual.theme import Theme


def _colour(value: str) -> str:
    try:
        Color.parse(value)
    except ColorParseError as exc:
        raise ValueError(str(exc)) from None
    return value


Colour = Annotated[str, AfterValidator(_colour)]
"""A colour Textual reads: ``#5fafd7``, ``rgb(95,175,215)``, ``ansi_blue``, a CSS name…"""


class ThemeFile(BaseModel):
    """The fields of one theme file; only ``primary`` is required (the name defaults to the file's)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: str | None = Field(default=None, min_length=1)
    primary: Colour
    secondary: Colour | None = None
    warning: Colour | None = None
    error: Colour | None = None
    success: Colour | None = None
    accent: Colour | None = None
    foreground: Colour | None = None
    background: Colour | None = None
    surface: Colour | None = None
    panel: Colour | None = None
    boost: Colour | None = None
    dark: bool = True
    luminosity_spread: float = 0.15
    text_alpha: float = 0.95
    variables: dict[str, str] = Field(default_factory=dict)
    """Textual's design variables (``border``, ``footer-background``…): colours, or styles like ``bold``."""
    ansi: bool = False


def theme_from_data(data: Mapping[str, Any], *, fallback_name: str) -> Theme:
    """A ``Theme`` from a theme file's parsed data.

    Raises:
        ValueError: what the model refuses, in one line naming each field at fault.
    """
    try:
        checked = ThemeFile.model_validate(data)
    except ValidationError as exc:
        raise ValueError("; ".join(_said(error) for error in exc.errors())) from None
    values = checked.model_dump(exclude_unset=True)  # Textual's own defaults for the rest
    values["name"] = checked.name or fallback_name
    return Theme(**values)


def _said(error: Any) -> str:
    field = ".".join(str(part) for part in error["loc"])
    if error["type"] == "extra_forbidden":
        return f"unknown field {field!r} (known: {', '.join(ThemeFile.model_fields)})"
    return f"{field!r}: {error['msg']}"
