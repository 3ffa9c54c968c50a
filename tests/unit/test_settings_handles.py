"""The typed setting handles agree with the settings table, and reads through them are typed."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

import noted
from noted.settings import SETTINGS, Kind, Settings
from noted.settings.handles import (
    AI_BUDGET_TOKENS,
    AI_ENABLED,
    HANDLES,
    MCP_ALLOWED_NOTEBOOKS,
    UI_KEYMAP,
    Setting,
    tool_switch,
)

_TYPE_OF_KIND: dict[Kind, type] = {
    Kind.BOOL: bool, Kind.INT: int, Kind.STR: str, Kind.ENUM: str, Kind.URL: str, Kind.PATH: str,
    Kind.LIST: tuple, Kind.TABLE: Mapping,
}  # fmt: skip


def test_every_handle_names_a_setting_of_its_type() -> None:
    specs = {spec.key: spec for spec in SETTINGS}
    assert len(HANDLES) >= 30  # not vacuous: the module's constants were collected
    for handle in HANDLES:
        assert handle.key in specs, f"{handle.key} is not in settings.table"
        assert handle.type is _TYPE_OF_KIND[specs[handle.key].kind], handle.key
        assert isinstance(specs[handle.key].default, handle.type), handle.key


def test_every_fixed_setting_has_a_handle() -> None:
    # A setting added to the table without a handle could only be read by a string key again.
    assert {spec.key for spec in SETTINGS} == {handle.key for handle in HANDLES}


def test_a_handle_reads_the_typed_value(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('ai.enabled = true\nmcp.allowedNotebooks = ["Work"]\n')
    settings = Settings.load(tmp_path / "config.toml", environ={"NOTED_AI_BUDGETTOKENS": "5000"})
    assert settings.get(AI_ENABLED) is True
    assert settings.get(AI_BUDGET_TOKENS) == 5000
    assert settings.get(MCP_ALLOWED_NOTEBOOKS) == ("Work",)
    assert isinstance(settings.get(UI_KEYMAP), Mapping)
    assert settings.get(tool_switch("delete_note")) is False
    assert settings.source(AI_BUDGET_TOKENS) == "environment (NOTED_AI_BUDGETTOKENS)"
    settings.set(AI_ENABLED, False)
    assert settings.resolve(AI_ENABLED).value is False
    assert "ai.enabled = false" in (tmp_path / "config.toml").read_text()


def test_a_handle_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    settings = Settings.load(tmp_path / "config.toml")
    with pytest.raises(TypeError, match="ai.enabled holds bool, not int"):
        settings.get(Setting[int]("ai.enabled", int))  # bool is an int to isinstance, not to a handle


def _string_reads(tree: ast.AST) -> list[int]:
    """Lines where a settings-reading method is called with a literal dotted key."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in {"get", "get_path", "resolve", "source", "set", "unset"} or not node.args:
            continue
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value in _KEYS:
            found.append(node.lineno)
    return found


_KEYS = {spec.key for spec in SETTINGS}


def test_the_code_reads_settings_through_handles() -> None:
    # A literal key in the code is where a typo hides from mypy; handles are the one way in.
    root = Path(noted.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        lines = _string_reads(ast.parse(path.read_text(encoding="utf-8")))
        offenders += [f"{path.relative_to(root)}:{line}" for line in lines]
    assert not offenders, offenders
    # not vacuous: the same walk finds a literal read
    assert _string_reads(ast.parse('settings.get("ai.enabled")')) == [1]
