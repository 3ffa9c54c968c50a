"""Themes are data: TOML (or JSON) files validated into ``textual.theme.Theme``.

The bundled ones live in the repository's top-level ``themes/`` folder; a person adds their own as
``themes/NAME.toml`` in the profile folder (beside ``config.toml``) or in the platform config folder.
A file that does not parse or names an unknown field is reported once (in ``problems``) and skipped,
so a typo never stops the app: the default theme stands in for it.
"""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import platformdirs
from textual.color import Color, ColorParseError
from textual.theme import Theme

DEFAULT_THEME = "noted-dark"


def _bundled_dir() -> Path:
    """``themes/`` at the top of the repository (an editable install), else the copy a wheel puts
    under ``<prefix>/share/noted/themes`` (``[tool.setuptools.data-files]`` in pyproject.toml)."""
    checkout = Path(__file__).resolve().parents[3] / "themes"
    if checkout.is_dir():
        return checkout
    return Path(sys.prefix) / "share" / "noted" / "themes"


BUNDLED_DIR = _bundled_dir()
"""Where the bundled themes are."""

_COLOR_FIELDS: tuple[str, ...] = ("primary", "secondary", "warning", "error", "success", "accent")
_COLOR_FIELDS += ("foreground", "background", "surface", "panel", "boost")
_FIELDS = {f.name for f in fields(Theme)}
_SUFFIXES = (".toml", ".json")


@dataclass(frozen=True, slots=True)
class LoadedThemes:
    """The themes found, by name, and one line per file that could not be used."""

    themes: Mapping[str, Theme]
    problems: tuple[str, ...]


def user_theme_dirs(config_path: Path) -> tuple[Path, ...]:
    """Where a person's own themes are looked for: beside the config file, then the platform folder."""
    return (config_path.parent / "themes", Path(platformdirs.user_config_dir("noted")) / "themes")


def theme_from_data(data: Mapping[str, Any], *, fallback_name: str) -> Theme:
    """A ``Theme`` from parsed file data.

    Raises:
        ValueError: an unknown field, a value of the wrong type, or a colour that does not parse.
    """
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} (known: {', '.join(sorted(_FIELDS))})")
    values = dict(data)
    values.setdefault("name", fallback_name)
    if not isinstance(values.get("primary"), str):
        raise ValueError('"primary" (a colour such as "#5fafd7") is required')
    for key in _COLOR_FIELDS:
        if key in values:
            _check_color(key, values[key])
    for key in ("dark", "ansi"):
        if key in values and not isinstance(values[key], bool):
            raise ValueError(f"{key!r} must be true or false")
    for key in ("luminosity_spread", "text_alpha"):
        if key in values and not isinstance(values[key], int | float):
            raise ValueError(f"{key!r} must be a number")
    variables = values.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ValueError('"variables" must be a table of text values')
    if not isinstance(values["name"], str) or not values["name"]:
        raise ValueError('"name" must be text')
    return Theme(**values)


def _check_color(key: str, value: object) -> None:
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a colour in quotes")
    try:
        Color.parse(value)
    except ColorParseError as exc:
        raise ValueError(f"{key!r}: {exc}") from None


def load_theme_file(path: Path) -> Theme:
    """Read and validate one theme file.

    Raises:
        ValueError: the file cannot be read or parsed, or fails validation; the message names it.
    """
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"theme file {path}: cannot read it: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"theme file {path}: expected a table of fields")
    try:
        return theme_from_data(data, fallback_name=path.stem)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"theme file {path}: {exc}") from None


def load_themes(dirs: Iterable[Path]) -> LoadedThemes:
    """Every theme file in ``dirs`` (later folders override earlier ones of the same name)."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for folder in dirs:
        if not folder.is_dir():
            continue
        for path in sorted(p for p in folder.iterdir() if p.suffix in _SUFFIXES):
            try:
                theme = load_theme_file(path)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            themes[theme.name] = theme
    return LoadedThemes(themes, tuple(problems))
