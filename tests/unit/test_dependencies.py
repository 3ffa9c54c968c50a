"""Every package ``src/noted`` imports is declared in ``pyproject.toml``'s ``[project] dependencies``.

A package that arrives only through another one (``httpx2`` through the model SDKs, ``rich``
through Textual) works until that other package stops needing it, and a package declared only in
the test extra works in every test and not in a plain install. The imports are read from the
source (an AST walk), so one inside a function or under ``TYPE_CHECKING`` counts too.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def imported_modules(source: str) -> set[str]:
    """The top-level names of the absolute imports in ``source``."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names - set(sys.stdlib_module_names) - {"__future__", "noted"}


def test_every_imported_package_is_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {_normal(re.split(r"[\s<>=!~;\[(]", spec, maxsplit=1)[0]) for spec in project["dependencies"]}
    distributions = importlib.metadata.packages_distributions()
    imported: dict[str, str] = {}
    for path in sorted((ROOT / "src" / "noted").rglob("*.py")):
        for module in imported_modules(path.read_text()):
            imported.setdefault(module, str(path.relative_to(ROOT)))
    assert {"textual", "apsw", "httpx2"} <= set(imported)  # the walk finds imports, nested ones too
    undeclared = {
        module: where
        for module, where in imported.items()
        if not {_normal(d) for d in distributions.get(module, [module])} & declared
    }
    assert not undeclared, f"imported but not in [project] dependencies: {undeclared}"
