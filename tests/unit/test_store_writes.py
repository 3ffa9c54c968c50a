"""Every change to the notes goes through ``noted.ops``: no store write outside ``store/`` and ``ops/``.

A store write is a method of the ``Store`` protocol (or of its ``SyncConflicts`` capability) that
takes an ``actor``: the names come from the protocols themselves, so a write added to the protocol
is watched the day it is added. The one write that records no change, and so takes no actor, is
named here (``UNRECORDED_WRITES``). The check reads the source (an AST walk, like the Textual patches'
canary): any ``x.<write>`` outside the two packages is a finding, unless ``x`` is a ``noted.ops``
module imported under that name (``ops.trash_note(store, …)`` is the operation, not the store).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from noted.store.protocol import Store
from noted.store.sync import SyncConflicts

SRC = Path(__file__).resolve().parents[2] / "src" / "noted"
ALLOWED = (SRC / "store", SRC / "ops")


UNRECORDED_WRITES = frozenset({"prune_history"})
"""Store writes without an ``actor``: thinning the revisions changes no note, so the feed gets nothing."""


def _writes() -> frozenset[str]:
    names: set[str] = set(UNRECORDED_WRITES)
    for protocol in (Store, SyncConflicts):
        for name, member in inspect.getmembers(protocol, inspect.isfunction):  # inherited ones too
            if "actor" in inspect.signature(member).parameters:
                names.add(name)
    return frozenset(names)


WRITES = _writes()


def _ops_aliases(tree: ast.Module) -> set[str]:
    """The names a module binds to modules of ``noted.ops`` (``from noted.ops import notes as ops``)."""
    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full.startswith("noted.ops") and (node.module != "noted.ops" or alias.name != "*"):
                    aliases.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("noted.ops") and alias.asname:
                    aliases.add(alias.asname)
    return aliases


def store_writes(source: str) -> list[tuple[int, str]]:
    """(line, method) of every reference to a store write in ``source`` that is not an ops call."""
    tree = ast.parse(source)
    aliases = _ops_aliases(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr not in WRITES:
            continue
        if isinstance(node.value, ast.Name) and node.value.id in aliases:
            continue
        found.append((node.lineno, node.attr))
    return sorted(found)


def test_the_write_names_come_from_the_protocol() -> None:
    # Not vacuous: the protocol's writes are found by their ``actor`` parameter, reads are not.
    assert {
        "create_note",
        "update_note",
        "add_resource",
        "restore_revision",
        "resolve_sync_conflict",
    } <= WRITES
    assert not {"get_note", "list_notes", "note_history", "changes_since"} & WRITES
    # A renamed write without an actor would drop out of the check unseen: it must be a Store method.
    assert all(inspect.isfunction(getattr(Store, name, None)) for name in UNRECORDED_WRITES)
    assert "prune_history" in WRITES


def test_the_check_tells_a_store_write_from_an_operation() -> None:
    source = (
        "from noted.ops import notes as ops\n"
        "from noted.ops.notebooks import rename_tag\n"
        "ops.trash_note(store, 'n', actor='user')\n"
        "rename_tag(store, 't', 'x', actor='user')\n"
        "store.trash_note('n', actor='user')\n"
        "save = ctx.store.create_note\n"
    )
    assert store_writes(source) == [(5, "trash_note"), (6, "create_note")]


def test_no_store_write_outside_store_and_ops() -> None:
    found = {
        f"{path.relative_to(SRC)}:{line} {name}"
        for path in sorted(SRC.rglob("*.py"))
        if not any(path.is_relative_to(allowed) for allowed in ALLOWED)
        for line, name in store_writes(path.read_text())
    }
    assert not found, (
        f"store writes outside noted.store and noted.ops (make them operations): {sorted(found)}"
    )
