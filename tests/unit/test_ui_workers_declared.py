"""A worker's failure never ends the app: every ``@work(...)`` and ``run_worker(...)`` in the UI
says ``exit_on_error=False`` (Textual's default is True, which exits on the first error).

``noted.ui.workers.thread_work`` and ``in_thread`` say it once for the thread workers; a worker
declared by hand must say it too. The check reads the source (an AST walk, as
``test_store_writes`` does), so a worker added tomorrow is checked the day it is added. It found
two when written: the history screen's restore question and the path prompt's completion.
"""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "src" / "noted" / "ui"


def _declares_no_exit(call: ast.Call) -> bool:
    return any(
        k.arg == "exit_on_error" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in call.keywords
    )


def _worker_calls(tree: ast.Module) -> list[ast.Call]:
    calls: list[ast.Call] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in ("work", "run_worker"):
                calls.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            # A bare ``@work`` (no call) takes every default, exit_on_error=True among them.
            calls += [
                ast.copy_location(ast.Call(func=d, args=[], keywords=[]), d)
                for d in node.decorator_list
                if isinstance(d, ast.Name) and d.id == "work"
            ]
    return calls


def test_every_worker_in_the_ui_says_a_failure_does_not_end_the_app() -> None:
    found = [
        f"{path.relative_to(UI.parent)}:{call.lineno}"
        for path in sorted(UI.rglob("*.py"))
        for call in _worker_calls(ast.parse(path.read_text(encoding="utf-8")))
        if not _declares_no_exit(call)
    ]
    assert found == []


def test_the_check_sees_a_worker_that_would_end_the_app() -> None:
    # Not vacuous: the same walk finds both forms when they leave exit_on_error out.
    tree = ast.parse("@work\nasync def a(): ...\n@work(group='g')\ndef b(): ...\nself.run_worker(job)\n")
    assert len([c for c in _worker_calls(tree) if not _declares_no_exit(c)]) == 3
