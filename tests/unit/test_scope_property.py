"""Property: what a scoped client gets does not depend on anything outside its scope.

Hypothesis draws a notebook tree whose titles repeat (``Work`` under ``Work``, two ``Home`` s…),
notes with tags whose titles repeat in other cases, the client's notebooks, sometimes an
``mcp.allowedNotebooks`` too, and a run of tool calls (reads and writes, by ids the client was
given and by ids it should not know). The profile is then copied, so both copies hold the very
same ids, and only the copy's notebooks *outside* the scope are changed: notes added and trashed,
same-title notebooks made, tags put on notes there, the client's own proposals kept from when its
scope was wider (or none). The same calls, made by the same client on each copy through the
server's own call path (``NotedMcp.context``), must get the same answers (``proposal_status``
included), once the ids of things made during the run and their times are named by order of
appearance.

This is a non-interference check: any answer that returned, counted or depended on a note,
notebook or tag outside the scope would differ between the copies (the earlier tag oracle, the
title-matched scopes, the counts in ``list_tags`` and the profile-wide revision ids of
``note_history`` each did). Lists are compared as sets (``_unordered`` says why).
Times are not measured (a normal test must not); the scoped code paths read notebook by
notebook, inside the scope only, so the work done does not depend on what lies outside.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noted.mcp.client_tokens import ClientToken
from noted.mcp.deps import McpDeps
from noted.mcp.server import NotedMcp
from noted.models import NoteDraft
from noted.profile import Profile
from noted.search.keyword import KeywordSearch
from noted.settings import Settings
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.review import SqliteReview
from noted.tools import ToolRegistry, all_tools

TITLES = ("Work", "Home", "work")
NAMES = (*TITLES, "WORK", "home")
"""The titles a call or a change outside gives: those of the notebooks, and more of their cases."""
TAGS = ("x", "Y", "zed", "ſtraw")  # a long s: folded, "straw" (as "STRAW" outside)
WORDS = ("budget", "trip", "plan")
READS = ("list_notebooks", "list_notes", "list_tags", "get_tag", "list_tag_notes", "search_notes",
         "find_notes", "read_note", "get_notebook", "note_history", "proposal_status")  # fmt: skip
WRITES = ("create_note", "create_notebook", "update_notebook", "delete_notebook", "manage_tags",
          "create_tag", "rename_tag", "delete_tag", "delete_note", "restore_note", "update_note")  # fmt: skip
_ID = re.compile(r"[0-9a-f]{32}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


@dataclass(frozen=True)
class Case:
    folders: tuple[tuple[int | None, str], ...]
    """(parent index or None, title) of each notebook, parents first."""
    notes: tuple[tuple[int, str, tuple[str, ...]], ...]
    """(notebook index, word, tags)."""
    scope: frozenset[int]
    allowed: frozenset[int] | None
    outside: tuple[tuple[str, int, str], ...]
    """Changes made to the copy, outside the scope: (kind, which, title or word)."""
    calls: tuple[tuple[str, int, int, str], ...]
    """(tool, a reference, another reference, a title or word)."""


@st.composite
def cases(draw: st.DrawFn) -> Case:
    count = draw(st.integers(2, 6))
    folders = tuple(
        (draw(st.none() | st.integers(0, i - 1)) if i else None, draw(st.sampled_from(TITLES)))
        for i in range(count)
    )
    index = st.integers(0, count - 1)
    tags = st.lists(st.sampled_from(TAGS), max_size=2, unique=True).map(tuple)
    notes = tuple(draw(st.lists(st.tuples(index, st.sampled_from(WORDS), tags), min_size=1, max_size=7)))
    # the client's notebooks: one or two, or all those inside one it cannot see (whose name a
    # refusal beside them must not tell)
    children = (frozenset(i for i, f in enumerate(folders) if f[0] == p) for p in range(count))
    beside = [group for group in children if len(group) > 1]
    around = st.sampled_from(beside) if beside else st.nothing()
    scope = draw(st.sets(index, min_size=1, max_size=2).map(frozenset) | around)
    # the setting is a wider list the client's narrows (disjoint ones would leave nothing to test)
    allowed = draw(st.none() | st.sets(index, max_size=2).map(lambda extra: frozenset(scope | extra)))
    kinds = st.sampled_from(("note", "folder", "top", "beside", "rename", "tag", "trash", "proposal"))
    word = st.sampled_from(NAMES + TAGS + WORDS)
    outside = tuple(draw(st.lists(st.tuples(kinds, st.integers(0, 99), word), min_size=1, max_size=6)))
    ref = st.integers(0, 99)
    calls = tuple(
        draw(st.lists(st.tuples(st.sampled_from(READS + WRITES), ref, ref, word), min_size=1, max_size=14))
    )
    return Case(folders, notes, scope, allowed, outside, calls)


@dataclass
class Copy:
    """One copy of the profile, the client's context on it, and the ids the client may name."""

    store: SqliteStore
    registry: ToolRegistry
    mcp: NotedMcp
    client: ClientToken
    notes: list[str]
    folders: list[str]
    tags: list[str]
    """Every id of each kind the client may name: those of the copied profile, then those it was given."""
    seen: dict[str, list[str]] = field(default_factory=lambda: {"note": [], "folder": [], "tag": []})
    """The ids of each kind the client was given in answers (so visible to it, or made by it)."""
    names: dict[str, str] = field(default_factory=dict)

    async def call(self, name: str, args: dict[str, Any]) -> Any:
        result = await self.registry.call(name, args, self.mcp.context("mcp:scoped", self.client))
        answer = result.for_model()
        if result.ok:  # an error may echo an id the client named, which it need not see
            self._learn(json.dumps(answer))
        return _unordered(self._normal(answer))

    def _learn(self, text: str) -> None:
        """Ids first seen in an answer become ones the client may name in later calls."""
        for found in _ID.findall(text):
            if found not in self.names:
                self.names[found] = f"new{len(self.names)}"
                for kind, known in (("note", self.notes), ("folder", self.folders), ("tag", self.tags)):
                    if self._is(kind, found):
                        self.seen[kind].append(found)
                        if found not in known:
                            known.append(found)

    def _is(self, kind: str, item_id: str) -> bool:
        getter = {"note": self.store.get_note, "folder": self.store.get_folder, "tag": self.store.get_tag}[
            kind
        ]
        try:
            getter(item_id)
        except Exception:
            return False
        return True

    def _normal(self, answer: Any) -> Any:
        text = _TIME.sub("T", json.dumps(answer, sort_keys=True))
        return json.loads(_ID.sub(lambda m: self.names.get(m.group(), m.group()), text))


def _unordered(value: Any) -> Any:
    """Lists of rows sorted: rows made during the run tie-break on their random ids, and keyword
    search ranks by how rare a word is in the whole index (see ``tools.search``)."""
    if isinstance(value, dict):
        return {k: _unordered(v) for k, v in value.items()}
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        return sorted((_unordered(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


def _build(root: Path, case: Case) -> tuple[list[str], list[str]]:
    """The profile of ``case`` in ``root``: the notebook and note ids, in the order drawn."""
    profile = Profile(root).ensure()
    store = SqliteStore.open(profile.db_path, profile.resources_dir)
    try:
        with store.batch():
            folders: list[str] = []
            for parent, title in case.folders:
                made = store.create_folder(
                    title, parent_id=folders[parent] if parent is not None else "", actor="user"
                )
                folders.append(made.id)
            notes = [
                store.create_note(
                    NoteDraft(f"{word} note", f"the {word} of it", folders[f], tags=tags), actor="user"
                ).id
                for f, word, tags in case.notes
            ]
        rows = SqliteReview(store.db)
        for note_id in notes:  # the client's own proposals, on every note: those in scope it is shown
            _propose(rows, note_id, [[sorted(folders[i] for i in case.scope), "the client"]])
    finally:
        store.close()
    lines = [f"ai.tool.{tool}.enabled = true" for tool in WRITES]
    if case.allowed is not None:
        lines.append(f"mcp.allowedNotebooks = {json.dumps([folders[i] for i in sorted(case.allowed)])}")
    profile.config_path.write_text("\n".join(lines) + "\n")
    return folders, notes


def _propose(rows: SqliteReview, note_id: str, scope: list[Any]) -> None:
    """A proposal of the client's ("mcp:scoped"), on ``note_id`` ('' for a new note), made in ``scope``."""
    tool, arguments = (
        ("update_note", {"id": note_id, "append": "x"}) if note_id else ("create_note", {"title": "x"})
    )
    rows.propose(
        client="mcp:scoped", tool=tool, note_id=note_id, title=f"secret {note_id[:4]}", base_updated_time=0,
        time=1_800_000_000_000, detail={"arguments": arguments, "scope": scope},
    )  # fmt: skip


def _open(root: Path, case: Case, folders: list[str], notes: list[str]) -> Copy:
    profile = Profile(root)
    store = SqliteStore.open(profile.db_path, profile.resources_dir)
    settings = Settings.load(profile)
    registry = ToolRegistry(settings, all_tools())
    deps = McpDeps(store, KeywordSearch(store), settings, registry, review=SqliteReview(store.db))
    mcp = NotedMcp(deps, poll_seconds=0)
    client = ClientToken("scoped", "0" * 64, tuple(folders[i] for i in sorted(case.scope)))
    tags = [t.id for t in store.list_tags()]
    return Copy(store, registry, mcp, client, list(notes), list(folders), tags)


def _change_outside(copy: Copy, case: Case) -> None:
    """Change the copy only where the client's scope does not reach."""
    scope = copy.mcp.context("mcp:scoped", copy.client).scope.view(copy.store)
    store = copy.store
    for kind, which, word in case.outside:
        hidden = [f.id for f in store.list_folders() if not scope.allows_folder(f.id)]
        notes = [n.id for n in store.list_notes() if not scope.allows_note(n)]
        title = TITLES[which % len(TITLES)]  # the titles the scope's own notebooks have
        tops = [f for f in store.list_folders() if scope.is_root(f)]
        if kind == "top" or (kind == "folder" and not hidden):
            store.create_folder(title, actor="user")
        elif kind == "beside" and tops:  # a name beside a top of the scope, in any case (and case aside)
            top = tops[which % len(tops)]
            store.create_folder(
                _case(top.title if which % 2 else word, which), parent_id=top.parent_id, actor="user"
            )
        elif kind == "rename" and hidden:  # the notebook around a top of the scope, say, named otherwise
            around = [t.parent_id for t in tops if t.parent_id] if which % 2 else []
            renamed = (around or hidden)[which % len(around or hidden)]
            store.update_folder(renamed, title=_case(word, which), actor="user")
        elif kind == "folder":
            made = store.create_folder(title, parent_id=hidden[which % len(hidden)], actor="user")
            store.create_note(NoteDraft(f"{word} below", f"{word} budget", made.id), actor="user")
        elif kind == "note" and hidden:
            tags = (TAGS[which % len(TAGS)].upper(), word)  # the client's tags, in another case
            draft = NoteDraft(
                f"{word} secret", f"secret {word} budget", hidden[which % len(hidden)], tags=tags
            )
            store.create_note(draft, actor="user")
        elif kind == "tag" and notes:
            store.tag_note(notes[which % len(notes)], [TAGS[which % len(TAGS)], word], actor="user")
        elif kind == "trash" and notes:
            store.trash_note(notes[which % len(notes)], actor="user")
        elif kind == "proposal":  # the client's own, made when its scope was wider (or none)
            rows, made_in = SqliteReview(store.db), [[hidden[:1], "wider"]] if hidden else []
            _propose(
                rows, notes[which % len(notes)] if notes and which % 3 else "", made_in if which % 2 else []
            )


def _case(title: str, which: int) -> str:
    """``title`` in one of its cases: as it is, lower, upper or swapped."""
    return (title, title.lower(), title.upper(), title.swapcase())[which // 2 % 4]


def _args(copy: Copy, tool: str, first: int, second: int, word: str) -> dict[str, Any]:
    """The arguments of one drawn call, naming the ids the client knows by position."""

    def pick(kind: str, known: Sequence[str], at: int) -> str:
        seen = copy.seen[kind]  # two times in three an id the client was given, else any id at all
        known = seen if seen and at % 3 else known
        return known[at % len(known)] if known else "0" * 32

    note, folder, tag = (
        pick("note", copy.notes, first),
        pick("folder", copy.folders, first),
        pick("tag", copy.tags, first),
    )
    other = pick("folder", copy.folders, second) if second % 5 else ""
    tops = copy.client.notebooks or ()  # a rename of a top of the scope, one time in two: beside
    renamed = tops[second // 2 % len(tops)] if tops and second % 2 else folder  # it lie names outside
    table: dict[str, dict[str, Any]] = {
        "list_notebooks": {"include_trashed": bool(first % 2)},
        "list_notes": [{}, {"notebook_id": folder}, {"tag_id": tag}][first % 3],
        "list_tags": {},
        "get_tag": {"id": tag},
        "list_tag_notes": {"tag_id": tag},
        "search_notes": {"query": [word, f"tag:{word}", f"notebook:{word}"][second % 3], "limit": 50},
        # misspelt words of the notes outside ("secret", "below"): never mended in the scope
        "find_notes": {"query": [word, f"secrat {word}", f"belw {word}"][second % 3], "limit": 50},
        "read_note": {"id": note},
        "get_notebook": {"id": folder},
        "note_history": {"id": note},
        "proposal_status": [{}, {"ids": [f"p{first % 9 + 1}", f"p{second % 9 + 1}"]}][second % 2],
        "create_note": {"title": f"{word} made", "body": f"{word} budget", "notebook_id": folder},
        "create_notebook": {"title": word, "parent_id": folder},
        "update_notebook": {"id": folder, "parent_id": other}
        if first % 2
        else {"id": renamed, "title": word},
        "delete_notebook": {"id": folder},
        "manage_tags": {"note_id": note, "add": [word]}
        if second % 2
        else {"note_id": note, "remove": [word]},
        "create_tag": {"title": word},
        "rename_tag": {"id": tag, "title": word},
        "delete_tag": {"id": tag},
        "delete_note": {"id": note},
        "restore_note": {"id": note},
        "update_note": {"id": note, "notebook_id": pick("folder", copy.folders, second)},
    }
    return table[tool]


SURVEY = (("list_notebooks", 1, 0, ""), ("list_tags", 0, 0, ""), ("list_notes", 0, 0, ""),
          *(("search_notes", 0, 0, w) for w in WORDS), *(("find_notes", 0, i, "plan") for i in range(3)), *(("get_tag", i, 0, "") for i in range(3)),
          *(("note_history", i, 0, "") for i in (1, 2)), ("read_note", 1, 0, ""), ("proposal_status", 0, 0, ""))  # fmt: skip
"""Reads made before and after the drawn calls, so every example looks at everything it can see."""
RENAMES = tuple(("update_notebook", 0, second, name) for second in (1, 3) for name in NAMES)
"""Made last: each top of the scope renamed to every name, beside which the copy's changes outside
put those names in every case (a name taken there must not be told, as ``refuse_taken`` once did)."""


async def _run(copies: list[Copy], case: Case) -> None:
    outside = [_outside(copy) for copy in copies]
    for tool, first, second, word in (*SURVEY, *case.calls, *SURVEY, *RENAMES):
        answers = [await copy.call(tool, _args(copy, tool, first, second, word)) for copy in copies]
        assert answers[0] == answers[1], (tool, answers)
    assert [_outside(copy) for copy in copies] == outside  # the client changed nothing outside its scope


def _outside(copy: Copy) -> dict[str, Any]:
    """Everything outside the scope: notebooks, and notes with their tags (titles as stored)."""
    scope = copy.mcp.context("mcp:scoped", copy.client).scope.view(copy.store)
    store = copy.store
    folders = {f.id: (f.title, f.parent_id, f.is_trashed) for f in store.list_folders(include_trashed=True)}
    notes = [*store.list_notes(), *store.list_notes(trashed=True)]
    return {
        "folders": {i: f for i, f in folders.items() if not scope.allows_folder(i)},
        "notes": {
            n.id: (n.title, n.parent_id, n.is_trashed, sorted(t.title for t in store.note_tags(n.id)))
            for n in notes
            if not scope.allows_note(n)
        },
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_a_scoped_client_gets_the_same_answers_whatever_lies_outside_its_scope(case: Case) -> None:
    with tempfile.TemporaryDirectory() as directory:
        first, second = Path(directory) / "a", Path(directory) / "b"
        folders, notes = _build(first, case)
        shutil.copytree(first, second)
        copies = [_open(first, case, folders, notes), _open(second, case, folders, notes)]
        try:
            _change_outside(copies[1], case)
            asyncio.run(_run(copies, case))
        finally:
            for copy in copies:
                copy.store.close()
