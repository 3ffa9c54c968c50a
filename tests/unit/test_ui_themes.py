"""Themes are data: the bundled ones validate, a broken file is reported once and skipped."""

from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

from noted.ui.themes import BUNDLED_DIR, DEFAULT_THEME, load_theme_file, load_themes


def test_the_bundled_dark_and_light_themes_load() -> None:
    found = load_themes([BUNDLED_DIR])
    assert found.problems == ()
    assert {"noted-dark", "noted-light"} <= set(found.themes)
    assert DEFAULT_THEME in found.themes
    assert found.themes["noted-dark"].dark and not found.themes["noted-light"].dark


def test_a_user_theme_overrides_and_a_broken_one_is_reported_once(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text(
        'primary = "#ff0000"\ndark = false\n[variables]\n"border" = "#00ff00"\n'
    )
    (tmp_path / "broken.toml").write_text('primary = "not a colour"\n')
    (tmp_path / "typo.json").write_text('{"name": "typo", "primry": "#ffffff"}')
    (tmp_path / "notes.txt").write_text("not a theme, not read")
    found = load_themes([BUNDLED_DIR, tmp_path])
    mine = found.themes["mine"]  # the name defaults to the file's stem
    assert isinstance(mine, Theme) and mine.primary == "#ff0000" and mine.variables["border"] == "#00ff00"
    assert len(found.problems) == 2
    assert any("broken.toml" in p and "primary" in p for p in found.problems)
    assert any("typo.json" in p and "primry" in p for p in found.problems)
    assert "broken" not in found.themes and "typo" not in found.themes


def test_a_theme_file_that_is_not_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("primary = \n")
    try:
        load_theme_file(path)
    except ValueError as exc:
        assert str(path) in str(exc)
    else:
        raise AssertionError("a file that does not parse must be refused")
