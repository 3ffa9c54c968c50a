"""Themes are data: TOML (or JSON) files, each a ``ThemeFile`` (``model``) made into ``textual.theme.Theme``.

The bundled ones are package data of this package (``noted-dark.toml``, ``noted-light.toml``), read
with ``importlib.resources`` so they travel inside a wheel. A person adds their own as
``themes/NAME.toml`` in the profile folder (beside ``config.toml``) or in the platform config folder.
A file of theirs that does not parse or that the model refuses is reported once (in ``problems``)
and skipped, so a typo never stops the app: the default theme stands in for it.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import platformdirs
from textual.theme import Theme

DEFAULT_THEME = "noted-dark"
_SUFFIXES = (".toml", ".json")


@dataclass(frozen=True, slots=True)
class LoadedThemes:
    """The themes found, by name; one line per file that could not be used, also by the file's stem."""

    themes: Mapping[str, Theme]
    problems: tuple[str, ...]
    broken: Mapping[str, str]
    """The problem of each file left out, by the name it would have had (its stem)."""


def bundled_themes() -> dict[str, Theme]:
    """The themes shipped with noted, by name.

    Made without the model, which costs more to import than the app's start can spare: they are
    noted's own files, and ``tests/unit/test_ui_themes.py`` checks each through ``ThemeFile``.
    """
    found: dict[str, Theme] = {}
    for item in sorted(resources.files(__name__).iterdir(), key=lambda item: item.name):
        if item.name.endswith(".toml"):
            data = tomllib.loads(item.read_text(encoding="utf-8"))
            theme = Theme(**{"name": item.name.removesuffix(".toml"), **data})
            found[theme.name] = theme
    return found


def user_theme_dirs(config_path: Path) -> tuple[Path, ...]:
    """Where a person's own themes are looked for: beside the config file, then the platform folder."""
    return (config_path.parent / "themes", Path(platformdirs.user_config_dir("noted")) / "themes")


def load_theme_file(path: Path) -> Theme:
    """Read and validate one theme file.

    Raises:
        ValueError: the file cannot be read or parsed, or the model refuses it; the message names it.
    """
    from noted.ui.themes.model import theme_from_data  # pydantic loads only for a person's own files

    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"theme file {path}: cannot read it: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"theme file {path}: expected a table of fields")
    try:
        return theme_from_data(data, fallback_name=path.stem)
    except ValueError as exc:
        raise ValueError(f"theme file {path}: {exc}") from None


def load_themes(user_dirs: Iterable[Path]) -> LoadedThemes:
    """The bundled themes and every theme file in ``user_dirs`` (a later one overrides by name)."""
    themes: dict[str, Theme] = bundled_themes()
    problems: list[str] = []
    broken: dict[str, str] = {}
    for folder in user_dirs:
        if not folder.is_dir():
            continue
        for path in sorted(p for p in folder.iterdir() if p.suffix in _SUFFIXES):
            try:
                theme = load_theme_file(path)
            except ValueError as exc:
                problems.append(str(exc))
                broken[path.stem] = str(exc)
                continue
            themes[theme.name] = theme
    return LoadedThemes(themes, tuple(problems), broken)
