"""The README's "Keys" table against the bindings, and the panes' help texts against the keymap.

Each row of the table names a pane; each entry of a row is keys in backticks followed by what
they do. Every key named must be bound in that pane, and where the binding is one of noted's
(it has an id, so ``ui.keymap`` can move it) the entry must say what its description says
(``s`` under "note list" must read "sort…"). Every binding with an id of every pane must be in
its row, and every class of the app that declares one must belong to a row (or be a dialog), so
a new pane or key cannot be left out. Textual's own keys (``Tab``, the arrows, ``Enter`` in a
list) have no id and no description a person would read: the table may name them, and they must
exist.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from textual.app import App
from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode
from textual.widgets import Button, Input, Switch, TextArea

import noted.ui
from noted.ui.app import NotedApp
from noted.ui.chat.batch_card import BatchCard
from noted.ui.chat.copying import CopyableMessage
from noted.ui.chat.pane import ChatPane
from noted.ui.chat.picker import ConversationPicker
from noted.ui.chat.views import ChatInput, UserMessageView
from noted.ui.dialogs.code_picker import CodeBlockPicker
from noted.ui.dialogs.confirm import Confirm
from noted.ui.dialogs.conflict import ConflictView, ProposalConflictView, RevertConflictView
from noted.ui.dialogs.keys import KeysOverlay
from noted.ui.dialogs.merge import MergeEditor
from noted.ui.dialogs.over import Over
from noted.ui.dialogs.picker import ChoicePicker
from noted.ui.dialogs.prompt import PathField, TextPrompt
from noted.ui.key_hints import PLACEHOLDER, KeyHints, class_bindings, spoken
from noted.ui.screens.changes import ChangeDiff, ChangesList, ChangesScreen
from noted.ui.screens.history import HistoryScreen, RevisionList
from noted.ui.screens.search import QueryField, ResultList, SearchScreen
from noted.ui.screens.settings import SettingsScreen
from noted.ui.widgets.note_editor import NoteEditor
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer
from noted.ui.widgets.notebook_tree import NotebookTree
from noted.ui.widgets.outline import LinkList, OutlineList
from noted.ui.widgets.prompt_bar import PromptBar, PromptField
from noted.ui.workspace import Workspace

README = Path(__file__).resolve().parents[2] / "README.md"
AROUND = (Workspace, NotedApp)
"""What every pane of the workspace also gets: the screen's and the app's keys."""
PANES: dict[str, tuple[tuple[type[DOMNode], ...], tuple[type[DOMNode], ...]]] = {
    "anywhere": ((NotedApp, Workspace, Over), ()),
    "notebook tree": ((NotebookTree,), AROUND),
    "note list": ((NoteList,), AROUND),
    "note": ((NoteViewer, NoteScroll), AROUND),
    "outline": ((OutlineList,), AROUND),
    "links and attachments": ((LinkList,), AROUND),
    "filter and find field": ((PromptBar, PromptField), (Input, *AROUND)),
    "editor": ((NoteEditor,), AROUND),
    "conflict view": ((ConflictView, ProposalConflictView, RevertConflictView), (Button, NotedApp)),
    "merge": ((MergeEditor,), (TextArea, NotedApp)),
    "chat": ((ChatPane, ChatInput, CopyableMessage, UserMessageView, BatchCard), AROUND),
    "earlier chats": ((ConversationPicker,), AROUND),
    "search": ((SearchScreen, QueryField, ResultList), (NotedApp,)),
    "changes": ((ChangesScreen, ChangesList, ChangeDiff), (NotedApp,)),
    "history": ((HistoryScreen, RevisionList), (NotedApp,)),
    "settings": ((SettingsScreen,), (NotedApp, Input, Switch)),
}
"""Each row's panes (whose every binding with an id must be in it) and what else works there."""
DIALOGS = (KeysOverlay, Confirm, TextPrompt, PathField, ChoicePicker, CodeBlockPicker)
"""Their keys are said where they open (each shows its own), not in the table."""
PALETTE = Binding(App.COMMAND_PALETTE_BINDING, "command_palette", "palette")
"""Textual adds this one to every app when it is built, not in a class's ``BINDINGS``."""
ENTRY = re.compile(r"((?:`[^`]+`)(?:(?:/| or )`[^`]+`)*)\s*(.*)")


def _table() -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """The table's rows: where → [(keys, what they do)], prose entries (no leading key) left out."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Keys") :]
    rows: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for line in section.splitlines()[2:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        where, cell = (part.strip() for part in line.strip("|").split("|"))
        if where in ("where", "---"):
            continue
        entries = []
        for entry in cell.split(" · "):
            match = ENTRY.fullmatch(entry.strip())
            if match is not None:
                keys = tuple(re.findall(r"`([^`]+)`", match.group(1)))
                entries.append((keys, match.group(2).replace("`", "").lower()))
        rows[where] = entries
    return rows


def _bindings(classes: tuple[type[DOMNode], ...]) -> list[Binding]:
    found = [binding for cls in classes for _, binding in BindingsMap(class_bindings(cls))]
    return [*found, PALETTE] if NotedApp in classes else found


def _spoken(binding: Binding) -> set[str]:
    return {spoken(key.strip()) for key in binding.key.split(",")}


def _says(text: str, binding: Binding) -> bool:
    return re.search(rf"(?<!\w){re.escape(binding.description.lower())}(?!\w)", text) is not None


TABLE = _table()


def test_the_table_has_a_row_for_each_pane() -> None:
    assert list(TABLE) == list(PANES)


@pytest.mark.parametrize("where", PANES)
def test_every_key_in_the_row_is_bound_there_with_that_meaning(where: str) -> None:
    own, around = PANES[where]
    bindings = _bindings(own + around)
    for keys, text in TABLE[where]:
        for key in keys:
            bound = [binding for binding in bindings if key in _spoken(binding)]
            assert bound, f"{where}: `{key}` is bound to nothing there"
            ours = [binding for binding in bound if binding.id]
            # Not vacuous: "`s` sort" under the note list passes, "`s` save" there fails.
            assert not ours or any(_says(text, binding) for binding in ours), (
                f"{where}: `{key}` {text!r} does not say {[b.description for b in ours]}"
            )


@pytest.mark.parametrize("where", PANES)
def test_every_binding_of_the_pane_is_in_its_row(where: str) -> None:
    own, _ = PANES[where]
    everywhere = {binding.id for binding in _bindings(PANES["anywhere"][0])}
    for binding in _bindings(own):
        if not binding.id or (where != "anywhere" and binding.id in everywhere):
            continue
        listed = [text for keys, text in TABLE[where] if _spoken(binding) & set(keys)]
        assert any(_says(text, binding) for text in listed), f"{where}: {binding.id} is not in the table"


def test_every_class_with_keys_of_its_own_is_a_pane_of_the_table_or_a_dialog() -> None:
    for module in pkgutil.walk_packages(noted.ui.__path__, prefix="noted.ui."):
        importlib.import_module(module.name)
    placed = {cls for own, _ in PANES.values() for cls in own} | set(DIALOGS)
    pending: list[type[DOMNode]] = [DOMNode]
    keyed: set[type[DOMNode]] = set()
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        declared = vars(cls).get("BINDINGS", ())
        if cls.__module__.startswith("noted.ui.") and any(isinstance(b, Binding) and b.id for b in declared):
            keyed.add(cls)
    assert NoteList in keyed  # the search finds the panes
    assert keyed <= placed, f"keys of {keyed - placed} are in no row of the README's table"


# The panes' help texts ----------------------------------------------------------------------------


def _helps() -> dict[type[DOMNode], str]:
    for module in pkgutil.walk_packages(noted.ui.__path__, prefix="noted.ui."):
        importlib.import_module(module.name)
    found: dict[type[DOMNode], str] = {}
    pending: list[type[DOMNode]] = [DOMNode]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        text = vars(cls).get("HELP")
        if cls.__module__.startswith("noted.ui.") and isinstance(text, str):
            found[cls] = text
    return found


def test_every_key_a_help_text_names_is_a_binding_id_and_none_of_ours_is_written_out() -> None:
    helps = _helps()
    assert len(helps) >= 16 and NoteList in helps
    hints = KeyHints(App(), {})
    for cls, text in helps.items():
        for binding_id in PLACEHOLDER.findall(text):
            assert hints.spoken_keys(binding_id), (
                f"{cls.__name__}'s help names {{{binding_id}}}: no key has it"
            )
        # A key of the pane's own written out would not follow the keymap (Textual's own may be).
        own = {key for binding in _bindings((cls,)) if binding.id for key in _spoken(binding)}
        written = set(re.findall(r"\*\*([^*]+)\*\*", text))
        assert not written & own, f"{cls.__name__}'s help writes out {written & own}"


def test_the_help_of_a_pane_names_its_keys_as_the_keymap_has_them() -> None:
    text = NoteList.HELP
    before = KeyHints(App(), {}).fill(text)
    after = KeyHints(App(), {"list.mark": "x", "list.trash": "ctrl+d"}).fill(text)
    assert "**Space** marks a note" in before and "**d** or **Delete** moves to the trash" in before
    # Not vacuous: the same text, filled with the keymap in effect, names the new keys.
    assert "**x** marks a note" in after and "**Space** marks" not in after
    assert "**Ctrl+D** moves to the trash" in after
    assert "**\\*** marks all" in after  # a key Markdown would read as emphasis is escaped
    assert not PLACEHOLDER.search(after)
