"""The upgrade canary for noted's patches of Textual (``noted.ui.patches``), and their switch.

On a Textual upgrade these tests say which patch to look at: a private name gone or changed its
signature, a private name used or overridden that no patch declares, or a pin that no longer matches
the release the patches were written for. They compare against Textual's own code, with the
patches off, so a patch's replacement cannot pass for the original.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import logging
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
import textual
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.drivers._writer_thread import WriterThread
from textual.drivers.linux_driver import LinuxDriver
from textual.screen import Screen
from textual.strip import Strip

from noted.ui import patches
from noted.ui.patches import guard
from noted.ui.patches.guard import Private, textual_minor

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "src" / "noted" / "ui"
TOUCHED = {(touch.owner, touch.name) for patch in patches.PATCHES for touch in patch.touches}
TOUCHED_NAMES = {name for _, name in TOUCHED}
REPLACED = (
    (Stylesheet, "replace_rules"),
    (Screen, "_update_focus_styles"),
    (Strip, "crop_extend"),
    (Strip, "divide"),
    (App, "current_theme"),
    (App, "_handle_exception"),
    (App, "_fatal_error"),
    (App, "_print_error_renderables"),
    (WriterThread, "run"),
    (LinuxDriver, "run_input_thread"),
)


@pytest.fixture
def textuals_own() -> Iterator[None]:
    """Textual as it ships, for the length of the test; the patches back on after it."""
    patches.uninstall()
    yield
    patches.install()


def _owner(touch: Private) -> type:
    module, _, name = touch.owner.partition(":")
    owner = getattr(importlib.import_module(module), name)
    assert isinstance(owner, type)
    return owner


def _defined_by_textual(owner: type, name: str) -> bool:
    """Whether Textual defines ``name`` on ``owner``: in a class body, or as ``self.name`` in one."""
    for cls in owner.__mro__:
        if not cls.__module__.startswith("textual"):
            continue
        if name in vars(cls) or re.search(rf"\bself\.{re.escape(name)}\b", inspect.getsource(cls)):
            return True
    return False


@pytest.mark.usefixtures("textuals_own")
@pytest.mark.parametrize("touch", sorted({t for p in patches.PATCHES for t in p.touches}, key=str), ids=str)
def test_every_touched_private_name_is_textuals_with_the_expected_signature(touch: Private) -> None:
    owner = _owner(touch)
    assert _defined_by_textual(owner, touch.name), f"Textual {textual.__version__} has no {touch}"
    if touch.signature is not None:
        assert str(inspect.signature(getattr(owner, touch.name))) == touch.signature


def test_textual_is_pinned_to_the_minor_release_every_patch_was_written_for() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    dependencies = tomllib.loads(text)["project"]["dependencies"]
    (pin,) = [spec for spec in dependencies if re.match(r"textual\b", spec)]
    written_for = {patch.written_for for patch in patches.PATCHES}
    assert written_for == {textual_minor()}, "a patch written for another release than the one installed"
    major, minor = map(int, textual_minor().split("."))
    assert pin == f"textual>={major}.{minor},<{major}.{minor + 1}"
    # The pin's comment (its line and the comment lines under it) names every patch.
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if line.strip().startswith(f'"{pin}"'))
    comment = lines[at]
    for line in lines[at + 1 :]:
        if not line.strip().startswith("#"):
            break
        comment += line
    missing = [patch.name for patch in patches.PATCHES if patch.name not in comment]
    assert not missing, f"the pin's comment in pyproject.toml does not list {missing}"


@pytest.mark.parametrize("patch", patches.PATCHES, ids=lambda patch: patch.name)
def test_every_patch_says_what_upstream_does_and_how_to_report_it(patch: patches.Patch) -> None:
    doc = sys.modules[patch.module].__doc__ or ""
    assert f"Upstream (Textual {patch.written_for}" in doc
    assert "To report:" in doc


def _noted_ui_classes() -> Iterator[type]:
    for path in sorted(UI.rglob("*.py")):
        module = importlib.import_module(
            ".".join(path.relative_to(UI.parent.parent).with_suffix("").parts).removesuffix(".__init__")
        )
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__:
                yield value


def test_every_private_method_of_textual_that_noted_overrides_is_declared() -> None:
    # Without this a new override of a private method would escape the canary above. It finds the
    # ones declared today (``_size_updated``, ``_fatal_error``…), so it can fail.
    found: set[tuple[str, str]] = set()
    for cls in _noted_ui_classes():
        textual_bases = [base for base in cls.__mro__ if base.__module__.startswith("textual")]
        for own in (base for base in cls.__mro__ if base.__module__.startswith("noted.")):
            for name, value in vars(own).items():
                if not (name.startswith("_") and not name.startswith("__") and inspect.isfunction(value)):
                    continue
                for base in textual_bases:
                    if name in vars(base):
                        found.add((f"{base.__module__}:{base.__qualname__}", name))
                        break
    assert found, "the search found no override at all: it is broken"
    assert found <= TOUCHED, f"overrides of Textual's private methods in no patch: {found - TOUCHED}"


def _noted_names() -> set[str]:
    """Every name noted's own code defines or assigns (so ``self._run`` of noted's is not Textual's)."""
    names: set[str] = set()
    for path in (ROOT / "src" / "noted").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


def test_private_names_of_textual_are_read_only_where_a_patch_declares_them() -> None:
    textual_source = "\n".join(path.read_text() for path in Path(textual.__file__).parent.rglob("*.py"))
    ours = _noted_names()
    undeclared: dict[str, str] = {}
    declared_seen: set[str] = set()
    for path in UI.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                not isinstance(node, ast.Attribute)
                or not node.attr.startswith("_")
                or node.attr.startswith("__")
            ):
                continue
            if node.attr in TOUCHED_NAMES:
                declared_seen.add(node.attr)
            elif node.attr not in ours and re.search(
                rf"\b(def |self\.){re.escape(node.attr)}\b", textual_source
            ):
                undeclared[node.attr] = f"{path.relative_to(ROOT)}:{node.lineno}"
    assert "_dirty_widgets" in declared_seen  # the scan sees the uses the patches declare
    assert not undeclared, f"private names of Textual used outside any patch: {undeclared}"


@pytest.mark.usefixtures("textuals_own")
def test_uninstall_gives_back_textuals_own_methods_and_install_is_idempotent() -> None:
    own = [owner.__dict__[name] for owner, name in REPLACED]
    assert patches.installed() == ()
    assert len(patches.install()) == len(patches.PATCHES)
    patches.install()  # a second app in the same process: nothing is wrapped twice
    for (owner, name), original in zip(REPLACED, own, strict=True):
        replacement = owner.__dict__[name]
        assert replacement is not original
        function = getattr(
            replacement, "__func__", getattr(replacement, "fget", replacement)
        )  # a property's getter
        assert function.__module__.startswith("noted.ui.patches")
    patches.uninstall()
    assert [owner.__dict__[name] for owner, name in REPLACED] == own
    assert all(now is then for now, then in zip([o.__dict__[n] for o, n in REPLACED], own, strict=True))
    assert patches.installed() == ()


@pytest.mark.usefixtures("textuals_own")
def test_a_patch_written_for_another_textual_is_left_out_and_logged(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The warning is given once per process: start from none given, whichever test ran before.
    monkeypatch.setattr(guard, "_warned", set())
    # Catch the records at the guard's logger itself: a test before this one on the same worker may
    # have set up noted's logging, whose "noted" logger does not pass records up to caplog's root.
    logger = logging.getLogger("noted.ui.patches.guard")
    logger.addHandler(caplog.handler)
    monkeypatch.setattr(logger, "disabled", False)
    patches.uninstall()
    own = [owner.__dict__[name] for owner, name in REPLACED]
    major, minor = textual_minor().split(".")
    with caplog.at_level(logging.WARNING, logger="noted.ui.patches.guard"):
        assert patches.install(f"{major}.{int(minor) + 1}.0") == ()
    assert patches.installed() == ()
    assert [owner.__dict__[name] for owner, name in REPLACED] == own  # Textual's code untouched
    logger.removeHandler(caplog.handler)
    logged = " ".join(record.getMessage() for record in caplog.records)
    assert all(repr(patch.name) in logged for patch in patches.PATCHES)
    assert all(patches.enabled(patch) for patch in patches.install())  # its own release: all on


def test_control_characters_of_text_are_pictured_never_written_to_the_terminal() -> None:
    """A note's ESC reached the terminal as it was: opening a note an AI app wrote with
    ``ESC[2J`` in it cleared the screen, and ``ESC]52`` could set the clipboard."""
    from rich.console import Console
    from rich.segment import ControlType, Segment
    from rich.style import Style
    from textual.strip import Strip

    patches.install()
    console = Console(color_system="truecolor", force_terminal=True)
    bold = Style(bold=True)
    clean = Strip([Segment("a?b", bold), Segment(" c?d")]).render(console)
    evil = Strip([Segment("a\x1bb", bold), Segment(" c\x9bd")]).render(console)
    assert evil == clean.replace("a?b", "a␛b").replace("c?d", "c\ufffdd")
    control = Strip([Segment("\x1b[2J", None, [(ControlType.CLEAR,)])]).render(console)  # Textual's own stay
    assert control == "\x1b[2J"


def test_characters_that_reorder_text_are_left_out_of_what_the_terminal_draws() -> None:
    """A model's answer holding U+202E … U+202C pushed the chat pane's right border out: Rich lays
    them out as 0 cells wide, some terminals draw each in a cell. Left out, the
    line is exactly as wide as laid out; this fails while any reaches the terminal."""
    from rich.cells import cell_len
    from rich.console import Console
    from rich.segment import Segment
    from rich.style import Style

    patches.install()
    console = Console(color_system="truecolor", force_terminal=True)
    bold = Style(bold=True)
    strip = Strip([Segment("rlo:\u202eevil\u202c: end", bold), Segment(" \u2066a\u2069\u200f │")])
    clean = Strip([Segment("rlo:evil: end", bold), Segment(" a │")]).render(console)
    assert strip.cell_length == cell_len("rlo:evil: end a │")  # what the layout counted
    assert strip.render(console) == clean
