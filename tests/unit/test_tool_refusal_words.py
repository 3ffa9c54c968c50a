"""Every refusal a tool makes tells the person what went wrong in their words, not the model's
advice: read over the source, so a refusal added later is held to it too."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.support.tools_env import make_env

import noted
from noted.store.sqlite import SqliteStore
from noted.tools import all_tools

SOURCE = Path(noted.__file__).parent
_TOOL_NAMES = "|".join(sorted((t.name for t in all_tools()), key=len, reverse=True))
MODEL_WORDS = re.compile(
    rf"\b(you|your|yours|pass|call|instead|ask the person|ask them|{_TOOL_NAMES})\b", re.IGNORECASE
)
"""Words that address the model: its "you", what it should pass or call, the tools it has."""


def _constants() -> dict[str, str | tuple[str, ...]]:
    """Every module-level string (or tuple of strings) constant of noted, by name."""
    found: dict[str, str | tuple[str, ...]] = {}
    for path in SOURCE.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                try:
                    value = ast.literal_eval(node.value)
                except ValueError:
                    continue
                if isinstance(value, str) or (
                    isinstance(value, tuple) and all(isinstance(v, str) for v in value)
                ):
                    found[node.targets[0].id] = value
    return found


CONSTANTS = _constants()


def _text(node: ast.expr) -> str:
    """The words of a message expression that can be known from the source: its literal parts and
    the constants it names (other values, such as titles, count as nothing)."""
    match node:
        case ast.Constant(value=str(value)):
            return value
        case ast.JoinedStr(values=values):
            return "".join(_text(v) for v in values)
        case ast.FormattedValue(value=value):
            return _text(value)
        case ast.BinOp(left=left, op=ast.Add(), right=right):
            return _text(left) + _text(right)
        case ast.Name(id=name) if isinstance(CONSTANTS.get(name), str):
            return str(CONSTANTS[name])
        case ast.Subscript(value=ast.Name(id=name), slice=ast.Constant(value=int(index))):
            known = CONSTANTS.get(name)
            return known[index] if isinstance(known, tuple) else ""
    return ""


def person_lines() -> Iterator[tuple[str, str]]:
    """Where each ``ToolError`` and failed ``ToolResult`` is made, and what the person is told:
    its ``person`` line, else its message (``ToolResult.for_person``)."""
    for path in sorted(SOURCE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            keywords = {k.arg: k.value for k in node.keywords}
            if node.func.id == "ToolError" and node.args:
                said = keywords.get("person", node.args[0])
            elif node.func.id == "ToolResult" and "message" in keywords:
                said = keywords.get("person", keywords["message"])
            else:
                continue
            yield f"{path.relative_to(SOURCE)}:{node.lineno}", _text(said)


def test_the_walk_finds_the_refusals_and_the_models_words() -> None:
    """Not vacuous: the walk reaches the refusals (with their constants) and the rule catches the
    model's advice in them."""
    lines = dict(person_lines())
    assert len(lines) > 50, lines
    assert MODEL_WORDS.search("semantic search is unavailable here (no index); use search_notes instead")
    assert MODEL_WORDS.search("Pass the path of the one you want.")
    assert not MODEL_WORDS.search('note "Plan" has changed since the assistant read it; nothing was written.')


def test_no_refusal_gives_the_person_the_models_advice() -> None:
    """A refusal whose message speaks to the model ("use search_notes instead", "ask the person")
    carries a person line (``ToolError(person=…)``, or its ``advice`` kept apart)."""
    speaking = [f"{where}: {said}" for where, said in person_lines() if MODEL_WORDS.search(said)]
    assert not speaking, "\n".join(speaking)


async def test_a_refusal_keeps_the_models_advice_for_the_model_and_not_for_the_person(
    store: SqliteStore, tmp_path: Path
) -> None:
    """A search by meaning without an index told the person "…; use search_notes instead", and
    an ambiguous section "… Pass the path of the one you want.": now only the model is told."""
    env = make_env(store, tmp_path)
    unindexed = await env.error("semantic_search_notes", query="plans")
    assert unindexed.for_model()["error"].endswith("; use search_notes instead")
    assert unindexed.for_person() == "semantic search is unavailable here (no index)"
    note = env.note(env.folder("Work"), "Plan", "# Goals\n\none\n\n# Goals\n\ntwo\n")
    ambiguous = await env.error("read_note", id=note, section="Goals")
    assert "Pass the path" in ambiguous.for_model()["error"]
    assert ambiguous.for_person().startswith('section "Goals" matches 2 sections: '), ambiguous.for_person()
    assert not MODEL_WORDS.search(ambiguous.for_person()), ambiguous.for_person()
