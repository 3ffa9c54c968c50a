"""The core runs headless and starts light: checked in a fresh interpreter, as harlequin does.

import-linter checks the import graph statically (see pyproject.toml); this checks what really
gets loaded, which also catches imports made at run time inside functions.
"""

from __future__ import annotations

import json
import subprocess
import sys

_CORE = [
    "noted.services",
    "noted.store.sqlite",
    "noted.search.keyword",
    "noted.search.semantic",
    "noted.indexer.service",
    "noted.tools",
    "noted.ops",
    "noted.chat.engine",
    "noted.settings",
]


def _loaded(code: str) -> set[str]:
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_core_never_imports_textual() -> None:
    loaded = _loaded("\n".join(f"import {m}" for m in _CORE))
    assert "noted.services" in loaded  # not vacuous: the core really was imported
    assert not {m for m in loaded if m == "textual" or m.startswith("textual.")}


def test_the_command_line_starts_without_the_sdks() -> None:
    # `noted show` must not pay for the model SDKs, the MCP SDK or the ONNX runtime.
    loaded = _loaded("import noted.cli")
    assert "noted.cli" in loaded
    heavy = {"openai", "anthropic", "mcp", "onnxruntime", "textual"}
    assert not heavy & loaded, sorted(heavy & loaded)
