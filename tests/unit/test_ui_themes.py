"""Themes are data validated by a model: the bundled ones pass it, a broken file is reported once."""

from __future__ import annotations

import dataclasses
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from textual.theme import Theme

from noted.ui.themes import DEFAULT_THEME, bundled_themes, load_theme_file, load_themes
from noted.ui.themes.model import ThemeFile, theme_from_data


def test_the_bundled_dark_and_light_themes_load() -> None:
    found = load_themes([])
    assert found.problems == ()
    assert {"noted-dark", "noted-light"} <= set(found.themes)
    assert DEFAULT_THEME in found.themes
    assert found.themes["noted-dark"].dark and not found.themes["noted-light"].dark


def test_the_bundled_themes_are_package_data_that_the_model_accepts() -> None:
    # The app makes the bundled themes without the model (pydantic would slow its start); this is
    # where they meet it, so a broken bundled file fails here instead of in someone's terminal.
    files = [f for f in resources.files("noted.ui.themes").iterdir() if f.name.endswith(".toml")]
    assert len(files) >= 2  # not vacuous: the package data is there, read the way the app reads it
    for item in files:
        checked = theme_from_data(tomllib.loads(item.read_text(encoding="utf-8")), fallback_name="x")
        assert checked == bundled_themes()[checked.name], item.name


def test_the_model_has_every_field_of_textuals_theme() -> None:
    assert set(ThemeFile.model_fields) == {f.name for f in dataclasses.fields(Theme)}


def test_a_user_theme_overrides_and_a_broken_one_is_reported_once(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text(
        'primary = "#ff0000"\ndark = false\n[variables]\n"border" = "#00ff00"\n'
    )
    (tmp_path / "broken.toml").write_text('primary = "not a colour"\n')
    (tmp_path / "typo.json").write_text('{"name": "typo", "primry": "#ffffff"}')
    (tmp_path / "notes.txt").write_text("not a theme, not read")
    found = load_themes([tmp_path])
    mine = found.themes["mine"]  # the name defaults to the file's stem
    assert isinstance(mine, Theme) and mine.primary == "#ff0000" and mine.variables["border"] == "#00ff00"
    assert mine.luminosity_spread == Theme("x", "#000000").luminosity_spread  # Textual's default stands
    assert len(found.problems) == 2
    assert any("broken.toml" in p and "primary" in p for p in found.problems)
    assert any("typo.json" in p and "primry" in p for p in found.problems)
    assert "broken" not in found.themes and "typo" not in found.themes
    assert set(found.broken) == {"broken", "typo"}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('primary = "#fff"\ndark = "yes"\n', "'dark': Input should be a valid boolean"),
        ('primary = "#fff"\ntext_alpha = "0.9"\n', "'text_alpha': Input should be a valid number"),
        ('primary = "#fff"\n[variables]\nborder = 3\n', "'variables.border': Input should be a valid string"),
        ('secondary = "#fff"\n', "'primary': Field required"),
        ('primary = "#fff"\nname = ""\n', "'name': String should have at least 1 character"),
    ],
)
def test_the_model_names_the_field_at_fault(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"theme file {path}: .*{said}"):
        load_theme_file(path)


def test_a_theme_file_that_is_not_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("primary = \n")
    with pytest.raises(ValueError, match="cannot read it"):
        load_theme_file(path)
