"""The core runs headless and starts light: checked in a fresh interpreter, as harlequin does.

import-linter checks the import graph statically (see pyproject.toml); this checks what really
gets loaded, which also catches imports made at run time inside functions: each probe imports
every module of the core and then does the core's work (a save, a search, a tool call, a chat turn,
an MCP server) before it looks at ``sys.modules``. It also checks that the contracts in
pyproject.toml name the same core and leave no package of noted out of the layers, and that no
module is longer than 400 lines.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import noted

_ROOT = Path(__file__).resolve().parents[2]
_FRONT_ENDS = {"noted.ui", "noted.cli"}
_ENTRY_POINTS = {"noted.__main__"}  # runs the command line when imported
_HEAVY = {"openai", "anthropic", "mcp", "onnxruntime", "textual", "pydantic"}
"""What ``noted show`` must not pay for: the model SDKs, the MCP SDK, the ONNX runtime, Textual, pydantic."""


def _loaded(code: str, tmp_path: Path) -> set[str]:
    """The top-level names in ``sys.modules`` after ``code`` ran in a fresh interpreter."""
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(_ROOT / "src")}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, cwd=tmp_path, env=env
    )
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _top(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def _packages() -> set[str]:
    """Every top-level module and package of noted, as ``noted.x``."""
    return {f"noted.{info.name}" for info in pkgutil.iter_modules(noted.__path__)}


def _core() -> list[str]:
    return sorted(_packages() - _FRONT_ENDS - _ENTRY_POINTS)


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _import_all(packages: list[str]) -> str:
    """Code that imports every module under ``packages`` (not just their ``__init__``)."""
    return textwrap.dedent(f"""
        import importlib, pkgutil
        for name in {packages!r}:
            module = importlib.import_module(name)
            for info in pkgutil.walk_packages(getattr(module, "__path__", []), name + "."):
                importlib.import_module(info.name)
    """)


_CORE_WORK = """
import asyncio, os, pathlib
os.environ.update(NOTED_AI_ENABLED="1", NOTED_AI_PROVIDER="fake")
from noted.models import NoteDraft
from noted.profile import Profile
from noted.services import Services
from noted.mcp.deps import McpDeps
from noted.mcp.server import NotedMcp

services = Services.open(Profile(pathlib.Path("profile")))
folder = services.store.create_folder("Work", actor="test")
services.store.create_note(NoteDraft(title="Plan", body="ship the beta", parent_id=folder.id), actor="test")
assert services.keyword.search("beta").total == 1
ctx = services.tool_context("test")
result = asyncio.run(services.registry.call("search_notes", {"query": "beta"}, ctx))
assert result.ok, result


async def chat():
    conversation = services.transcripts.create()
    return [event async for event in services.chat_engine().run(conversation, "What is in my notes?")]


assert type(asyncio.run(chat())[-1]).__name__ == "Done"
NotedMcp(McpDeps.of(services))
services.close()
"""


def test_the_core_never_imports_textual(tmp_path: Path) -> None:
    loaded = _loaded(_import_all(_core()) + _CORE_WORK, tmp_path)
    assert {"noted.services", "noted.chat.engine", "noted.mcp.server", "noted.tools.search"} <= loaded
    # Only Textual: rich is barred from noted's own imports by the contract, but httpx loads it.
    assert "textual" not in _top(loaded)


def test_the_probe_sees_textual_when_it_is_loaded(tmp_path: Path) -> None:
    # not vacuous: the same probe does report Textual once a front end pulls it in
    loaded = _loaded("import noted.ui.app", tmp_path)
    assert "textual" in _top(loaded)
    # The app starts without the chat: its pane and engine load once a chat is shown (an import of
    # the chat's package at start-up, by the palette, cost 70 ms before the first page).
    assert not {"noted.ui.chat", "noted.chat.engine"} & loaded, sorted(
        {"noted.ui.chat", "noted.chat.engine"} & loaded
    )


def test_the_command_line_starts_without_the_sdks(tmp_path: Path) -> None:
    # `noted show` must not pay for the model SDKs, the MCP SDK or the ONNX runtime, neither on
    # import nor while it runs: the overview and `show` open the store, list and read a note.
    code = textwrap.dedent("""
        from noted.cli import main
        assert main(["--profile", "profile", "init"]) == 0
        assert main(["--profile", "profile"]) == 0
        from noted.profile import Profile
        from noted.services import Services
        services = Services.open(Profile(__import__("pathlib").Path("profile")))
        note_id = services.store.list_notes()[0].id
        services.close()
        assert main(["--profile", "profile", "show", note_id]) == 0
    """)
    loaded = _loaded(code, tmp_path)
    assert "noted.cli" in loaded and "noted.store.sqlite" in loaded
    assert not _HEAVY & _top(loaded), sorted(_HEAVY & _top(loaded))


def test_the_bundled_themes_load_without_pydantic(tmp_path: Path) -> None:
    # pydantic costs the app's start about a quarter of its CPU time: only a person's own theme
    # files go through the model (not vacuous: one such file does load it).
    code = "from noted.ui.themes import load_themes\nload_themes([__import__('pathlib').Path('mine')])"
    assert "pydantic" not in _top(_loaded(code, tmp_path))
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "mine.toml").write_text('primary = "#ff0000"\n', encoding="utf-8")
    assert "pydantic" in _top(_loaded(code, tmp_path))


def test_the_contracts_cover_the_core_and_every_package() -> None:
    contracts = {c["name"]: c for c in _contracts()}
    textual = next(c for name, c in contracts.items() if name.startswith("The core never imports Textual"))
    # The static check and the run-time check above must mean the same core.
    assert set(textual["source_modules"]) == set(_core())
    assert textual["allow_indirect_imports"] is False
    layers = next(c for c in contracts.values() if c["type"] == "layers")
    layered = {part.strip() for layer in layers["layers"] for part in layer.replace(":", "|").split("|")}
    assert layered == _packages() - _ENTRY_POINTS, sorted(layered ^ (_packages() - _ENTRY_POINTS))


MAX_MODULE_LINES = 400
"""STYLE.md's bound: a module longer than this is split into cohesive parts, not squeezed."""


def test_no_module_is_over_the_line_bound() -> None:
    modules = sorted((_ROOT / "src" / "noted").rglob("*.py"))
    assert len(modules) > 100  # the walk found the package
    long = {
        str(path.relative_to(_ROOT)): lines
        for path in modules
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}
