"""The architecture guide (``src/noted/ARCHITECTURE.md``) stays true to the tree.

Every ``noted.…`` name it writes in backticks must resolve, a module or an attribute of one (a
class, a function, a method), so a rename that forgets the guide fails here; every ``src/noted/…``
or ``tests/…`` path must exist; its numbered layer list must be the layers contract of
``pyproject.toml``, in order; and it must name every top-level module of noted and every Textual
patch.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import noted

_ROOT = Path(__file__).resolve().parents[2]
_GUIDE = _ROOT / "src" / "noted" / "ARCHITECTURE.md"
_NAME = re.compile(r"^noted(?:\.[A-Za-z_]\w*)+$")
_PATH = re.compile(r"^(?:src/noted|tests)/[\w./-]+$")
_LAYER = re.compile(r"^\d+\. ((?:`noted[\w.]*`(?: \| )?)+):", re.MULTILINE)


def _quoted(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", text)


def _names(text: str) -> list[str]:
    return sorted({q for q in _quoted(text) if _NAME.match(q)})


def _paths(text: str) -> list[str]:
    return sorted({q for q in _quoted(text) if _PATH.match(q)})


def _is_module(name: str) -> bool:
    """Whether ``name`` is a module, found without running it (``noted.__main__`` would run the CLI)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent is not a package
        return False


def _module_of(parts: list[str]) -> tuple[ModuleType, list[str]]:
    """The longest prefix of ``parts`` that is a module, imported, and the attribute names after it."""
    for end in range(len(parts) - 1, 0, -1):
        if _is_module(".".join(parts[:end])):
            return importlib.import_module(".".join(parts[:end])), parts[end:]
    raise AssertionError(f"{parts[0]} is not a module")


def _missing(name: str) -> str | None:
    """Why ``name`` does not resolve, or None when it does."""
    if _is_module(name):
        return None
    module, attributes = _module_of(name.split("."))
    target: object = module
    for attribute in attributes:
        if not hasattr(target, attribute):
            return f"{name}: {getattr(target, '__name__', target)!s} has no {attribute!r}"
        target = getattr(target, attribute)
    return None


def _layers(text: str) -> list[str]:
    return [" | ".join(re.findall(r"`([^`]+)`", m)) for m in _LAYER.findall(text)]


def _contract_layers() -> list[str]:
    config = tomllib.loads((_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    return [" | ".join(part.strip() for part in line.split("|")) for line in layers]


@pytest.fixture(scope="module")
def guide() -> str:
    return _GUIDE.read_text(encoding="utf-8")


def test_the_guide_is_short(guide: str) -> None:
    assert len(guide.splitlines()) <= 250


def test_every_name_in_the_guide_exists(guide: str) -> None:
    names = _names(guide)
    assert len(names) > 100  # the guide names things; a parse that found none would pass vacuously
    assert [why for name in names if (why := _missing(name)) is not None] == []


def test_every_path_in_the_guide_exists(guide: str) -> None:
    paths = _paths(guide)
    assert paths  # not vacuous: the guide points at files
    assert [p for p in paths if not (_ROOT / p).exists()] == []


def test_the_guide_lists_the_layers_of_the_contract_in_order(guide: str) -> None:
    assert _layers(guide) == _contract_layers()


def test_the_guide_names_every_top_level_module(guide: str) -> None:
    named = {".".join(name.split(".")[:2]) for name in _names(guide)}
    modules = {f"noted.{info.name}" for info in pkgutil.iter_modules(noted.__path__)}
    assert modules - named == set()


def test_the_guide_names_every_textual_patch(guide: str) -> None:
    from noted.ui import patches

    assert {p.module for p in patches.PATCHES} - set(_names(guide)) == set()


def test_a_misspelt_name_a_missing_path_and_a_wrong_layer_are_caught() -> None:
    # The checks above are only as good as these helpers: each must notice a guide gone stale.
    assert _missing("noted.ops.editing.save_txt") is not None
    assert _missing("noted.ops.editorial") is not None
    assert _missing("noted.ops.editing.save_text") is None
    assert not (_ROOT / _paths("see `src/noted/ops/nothing.py`")[0]).exists()
    assert _layers("1. `noted.cli`: x\n2. `noted.ui` | `noted.mcp`: y\n") == [
        "noted.cli",
        "noted.ui | noted.mcp",
    ]
