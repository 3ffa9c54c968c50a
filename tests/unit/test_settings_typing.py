"""A setting is declared once, and that declaration is its typed handle: mypy catches a misspelt
handle, a key given as text where code reads a value, a value of the wrong type and a declaration
whose default does not fit its kind."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

import noted
from noted.settings import SETTINGS, Kind, Settings, tool_switch
from noted.settings.handles import AI_BUDGET_TOKENS, AI_ENABLED, MCP_ALLOWED_NOTEBOOKS, UI_KEYMAP

_TYPE_OF_KIND: dict[Kind, type] = {
    Kind.BOOL: bool, Kind.INT: int, Kind.STR: str, Kind.ENUM: str, Kind.URL: str, Kind.PATH: str,
    Kind.LIST: tuple, Kind.TABLE: Mapping,
}  # fmt: skip


def test_every_declaration_holds_a_default_of_its_kind() -> None:
    assert len(SETTINGS) >= 30  # not vacuous: the module's declarations were collected
    for setting in SETTINGS:
        assert setting.kind is not None, setting.key
        assert isinstance(setting.default, _TYPE_OF_KIND[setting.kind]), setting.key
        assert not (setting.kind is Kind.INT and isinstance(setting.default, bool)), setting.key


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


_GOOD = """\
from noted.settings import Settings
from noted.settings.handles import AI_ENABLED, MCP_PORT, MCP_ALLOWED_NOTEBOOKS
from noted.settings.spec import Setting

def use(settings: Settings) -> None:
    on: bool = settings.get(AI_ENABLED)
    port: int = settings.get(MCP_PORT)
    books: tuple[str, ...] = settings.get(MCP_ALLOWED_NOTEBOOKS)
    workers: int = settings.get(WORKERS)  # the type follows from the default
    settings.set(MCP_PORT, port + 1)
    settings.set("mcp.port", "8766")  # a key a person typed, as text
    print(on, books, workers)

WORKERS = Setting("x.workers", "Search", "Workers", default=2, minimum=1, maximum=8, help="How many.")
"""

_BAD = {
    "settings.get(MCP_PROT)": 'Name "MCP_PROT" is not defined',
    'settings.get("mcp.port")': 'Argument 1 to "get" of "Settings" has incompatible type "str"',
    "name: str = settings.get(MCP_PORT)": 'Incompatible types in assignment (expression has type "int"',
    'settings.set(MCP_PORT, "8765")': 'Cannot infer value of type parameter "T" of "set"',
    "settings.set(AI_ENABLED, 1)": 'Cannot infer value of type parameter "T" of "set"',
    'wrong: Setting[int] = Setting("x.y", "Search", "Y", default="2", help="")': 'Argument "default" to "Setting"',
}
"""Each line of code, put in ``use`` above, and the mypy error it must raise."""


@pytest.mark.slow
def test_mypy_refuses_misspelt_handles_text_keys_and_wrong_types(tmp_path: Path) -> None:
    bad = "\n".join(f"    {line}" for line in _BAD)
    (tmp_path / "good.py").write_text(_GOOD)
    (tmp_path / "bad.py").write_text(
        _GOOD.replace("    print(on, books, workers)\n", f"    print(on, books, workers)\n{bad}\n")
    )
    src = Path(noted.__file__).resolve().parents[1]
    env = dict(os.environ, MYPYPATH=str(src))
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--no-error-summary",
    ]
    good = subprocess.run(
        [*command, str(tmp_path / "good.py")], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    # not vacuous: the same code without the bad lines passes, so each error below comes from its line
    assert good.returncode == 0, good.stdout
    done = subprocess.run(
        [*command, str(tmp_path / "bad.py")], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    first_bad = _GOOD.splitlines().index("    print(on, books, workers)") + 2
    for offset, (line, expected) in enumerate(_BAD.items()):
        at = [e for e in errors if re.match(rf"bad\.py:{first_bad + offset}: error:", e)]
        assert any(expected in e for e in at), f"{line!r}: expected {expected!r}, mypy said {at}"


def _string_reads(tree: ast.AST) -> list[int]:
    """Lines where a settings method is called with a literal that looks like a setting's key."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)) or not node.args:
            continue
        first, method = node.args[0], node.func.attr
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            continue
        receiver = ast.unparse(node.func.value)
        wanted = method in {"get_path", "resolve", "source", "set", "unset"} or method == "get"
        if wanted and receiver.endswith("settings") and _KEY_SHAPE.fullmatch(first.value):
            found.append(node.lineno)
    return found


_KEY_SHAPE = re.compile(r"[a-z]+(\.[A-Za-z_]+)+")


def test_the_code_names_settings_through_handles() -> None:
    # A literal key in the code is where a typo hides from mypy; handles are the one way in. Any
    # key-shaped literal counts, a misspelt one too (the table cannot tell a typo from a new key).
    root = Path(noted.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        lines = _string_reads(ast.parse(path.read_text(encoding="utf-8")))
        offenders += [f"{path.relative_to(root)}:{line}" for line in lines]
    assert not offenders, offenders
    # not vacuous: the same walk finds a literal read, and a misspelt one
    assert _string_reads(ast.parse('settings.resolve("ai.enabled")\nself.settings.set("ai.enabeld", 1)')) == [
        1,
        2,
    ]
