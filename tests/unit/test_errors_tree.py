"""Every exception class noted defines sits in the tree ``errors.py`` draws, under the parent drawn."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import noted
from noted import errors

_ENTRY = re.compile(r"^    (?P<lead>[│├└─ ]*)(?P<name>_?[A-Z]\w*)\b")


def _drawn_parents(doc: str) -> dict[str, str | None]:
    """Each class the docstring draws, with the class drawn as its parent (None for a root)."""
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []  # (column of the name, name) of the open ancestors
    for line in doc.splitlines():
        match = _ENTRY.match(line)
        if match is None:
            continue
        column = match.start("name")
        while stack and stack[-1][0] >= column:
            stack.pop()
        parents[match["name"]] = stack[-1][1] if stack else None
        stack.append((column, match["name"]))
    return parents


def _defined_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class defined in a module of noted (``__main__`` would run the CLI)."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(noted.__path__, "noted."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name:
                assert value.__name__ not in found or found[value.__name__] is value, value
                found[value.__name__] = value
    return found


def test_the_drawing_parses() -> None:
    drawn = _drawn_parents(errors.__doc__ or "")
    # not vacuous: the parser reads nesting, not just names
    assert drawn["NotedError"] is None and drawn["Interruption"] is None
    assert drawn["QueryError"] == "InvalidInputError"
    assert drawn["DatabaseBusyError"] == "StorageError"
    assert drawn["ToolError"] == "NotedError"


def test_every_exception_is_drawn_under_its_real_parent() -> None:
    drawn = _drawn_parents(errors.__doc__ or "")
    defined = _defined_exceptions()
    assert {"NotedError", "ToolError", "ProviderError", "Stopped"} <= set(defined)  # the walk reached them
    for name, cls in defined.items():
        assert name in drawn, f"{cls.__module__}.{name} is not drawn in errors.py"
        parent = drawn[name]
        if parent is None:
            assert cls.__bases__ == (Exception,), name
        else:
            assert cls.__bases__ == (defined[parent],), f"{name} is drawn under {parent}"
    assert set(drawn) <= set(defined), set(drawn) - set(defined)  # nothing drawn that is gone


def test_every_exception_has_one_of_the_two_roots() -> None:
    for name, cls in _defined_exceptions().items():
        if cls in (errors.NotedError, errors.Interruption):
            continue
        assert issubclass(cls, errors.NotedError) != issubclass(cls, errors.Interruption), name
