"""Every action of the app, by name, for the command palette (``App.get_system_commands``).

Each entry calls the same action as its key, so the palette and the keys never drift apart; the
key an entry names is read from the bindings with ``ui.keymap`` applied (``KeyHints``), so a
remapped key is named as the person has it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode

from noted.settings.handles import UI_KEYMAP
from noted.ui.commands import open_tool_palette
from noted.ui.key_hints import KeyHints, class_bindings
from noted.ui.widgets.note_editor import NoteEditor
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer
from noted.ui.widgets.notebook_tree import NotebookTree
from noted.ui.widgets.outline import LinkList

if TYPE_CHECKING:
    from noted.ui.app import NotedApp
    from noted.ui.workspace import Workspace


def key_hints(app: NotedApp) -> KeyHints:
    """The hints for ``app``'s keys as they are now (``ui.keymap`` from the settings in memory)."""
    return KeyHints(app, app.services.settings.get(UI_KEYMAP))


def _command(
    hints: KeyHints, title: str, detail: str, callback: Callable[[], Any], owner: type[DOMNode] | None = None
) -> SystemCommand:
    """A palette entry whose help ends with the keys of ``callback``'s action, if it has any."""
    return SystemCommand(title, hints.for_callback(detail, callback, owner), callback)


def system_commands(app: NotedApp, screen: Workspace) -> Iterable[SystemCommand]:
    """The app's own commands and the chat pane's; the caller adds Textual's (theme, keys, quit…).

    Textual's "Theme" opens ``commands.open_theme_palette`` (``NotedApp.action_change_theme``), so
    a theme chosen there is saved like one chosen in the settings.
    """
    hints = key_hints(app)
    command = partial(_command, hints)
    tree = screen.query_one(NotebookTree)
    notes = screen.query_one(NoteList)
    viewer = screen.query_one(NoteViewer)
    editor = screen.query_one(NoteEditor)
    yield command("Search notes…", "Find notes by keyword or meaning", app.action_search)
    yield command("New note", "Create a note in the listed notebook", screen.action_new_note)
    # A pane's commands act on what it shows (its cursor, its marks, its note): offered only while
    # the layout shows it, as its keys are (a narrow screen hides panes, the chat covers them).
    if screen.shows(tree):
        yield from _pane_commands(hints, tree, _TREE_COMMANDS)
    if screen.shows(notes):
        yield from _pane_commands(hints, notes, _LIST_COMMANDS)
    if screen.shows(viewer) and viewer.view is not None:
        yield from _viewer_commands(hints, viewer)
    if editor.note is not None and (screen.shows(editor) or screen.editing and editor.dirty):
        # Text waiting in an editor the layout hides (the list, or the chat, in front) is saved too.
        yield command("Save note", "Save the note being edited", screen.action_save_edit)
    if screen.shows(editor) and editor.note is not None:
        yield command("Stop editing", "Save and go back to reading", editor.action_close)
    yield command("Toggle assistant", "Show or hide the chat pane", screen.action_toggle_chat)
    yield command("Toggle notebooks", "Show or hide the notebook tree", screen.action_toggle_sidebar)
    yield command("Settings", "Every setting, the assistant's tools, the MCP server", app.action_settings)
    yield command(
        "Review changes",
        "What assistants, AI apps and syncs changed, and the writes that wait",
        app.action_changes,
    )
    yield SystemCommand(
        "Toggle tool…", "Switch one of the assistant's tools on or off (saved in the settings)",
        partial(open_tool_palette, app),
    )  # fmt: skip
    yield SystemCommand("Focus notebooks", "Move the cursor to the notebook tree", screen.action_focus_tree)
    yield SystemCommand("Focus notes", "Move the cursor to the note list", screen.action_back)
    yield SystemCommand("Empty trash", "Delete the notes in the trash for good", screen.action_empty_trash)
    yield SystemCommand(
        "History of an erased note…", "Revisions noted kept of a note erased outside noted; restore one",
        partial(_erased_history, app),
    )  # fmt: skip
    if app.services.store.sync is not None:
        yield SystemCommand(
            "Sync now", "Have Joplin sync with your other machines (runs joplin.syncCommand)",
            screen.action_sync_now,
        )  # fmt: skip
    if screen.chat is not None and screen.shows(screen.chat):
        for entry in screen.chat.commands():
            owner, where = _chat_keys_elsewhere().get(getattr(entry.callback, "__name__", ""), (None, ""))
            yield SystemCommand(
                entry.title, hints.for_callback(entry.help, entry.callback, owner, where), entry.callback
            )


def _erased_history(app: NotedApp) -> None:
    from noted.ui.screens.history import open_erased_history  # loaded when first asked for

    open_erased_history(app.screen, app.services.store)


def _chat_keys_elsewhere() -> dict[str, tuple[type[DOMNode], str]]:
    """The chat's commands whose key is not the pane's but a focused message's: named as there (the
    keymap applied), rather than looked for on the pane, which has none. Imported here: the chat's
    package (its engine) loads only once a chat is shown, not at start-up (+70 ms)."""
    from noted.ui.chat.copying import CopyableMessage

    return {"action_copy_code": (CopyableMessage, " on a message")}


_TREE_COMMANDS = (
    ("New notebook", "new_notebook"),
    ("Rename notebook or tag", "rename"),
    ("Move notebook…", "move"),
    ("Trash notebook or delete tag", "trash"),
    ("Restore notebook", "restore"),
    ("Filter notebooks…", "filter"),
)
_LIST_COMMANDS = (
    ("Tag notes…", "tag"),
    ("Move notes to…", "move"),
    ("Complete to-dos", "complete"),
    ("Switch to-do / note", "todo"),
    ("Trash notes", "trash"),
    ("Restore notes", "restore"),
    ("Mark all notes", "mark_all"),
    ("Sort notes", "sort"),
    ("Filter notes…", "filter"),
)
"""(title, action) of a pane's commands; the help is the action's binding's tooltip, and its keys."""


def _pane_commands(
    hints: KeyHints, pane: DOMNode, commands: tuple[tuple[str, str], ...]
) -> Iterable[SystemCommand]:
    tips = {b.action: b.tooltip for b in class_bindings(type(pane)) if isinstance(b, Binding)}
    for title, action in commands:
        yield _command(hints, title, tips[action], getattr(pane, f"action_{action}"))


def _viewer_commands(hints: KeyHints, viewer: NoteViewer) -> Iterable[SystemCommand]:
    command = partial(_command, hints)
    yield command("Edit note", "Edit the open note here", viewer.action_edit)
    yield command("Edit note in $EDITOR", "Edit the open note in your own editor", viewer.action_external)
    yield command("Copy note", "Copy the open note's text (Markdown) to the clipboard", viewer.action_copy)
    yield command(
        "Copy code block…", "Copy a code block of the open note to the clipboard", viewer.action_copy_code
    )
    yield command("Go to outline", "Jump to a heading of the open note", viewer.action_outline)
    yield command("Find in note…", "Find words in the open note", viewer.query_one(NoteScroll).action_find)
    yield command(
        "Note history", "The open note's revisions: who left each and when, diffs, restore one",
        viewer.action_history,
    )  # fmt: skip
    yield command("Links and attachments", "Open a linked note or an attachment", viewer.action_links)
    yield command(
        "Add attachment from a path…", "Attach a file to the open note, linked at its end",
        viewer.action_add_attachment,
    )  # fmt: skip
    if viewer.view is not None and viewer.view.resources:
        flows = viewer.attachments
        yield SystemCommand(
            "Save attachment as…",
            hints.hint("Save a copy of one of the note's attachments", LinkList, "save", " in its list"),
            flows.save_as,
        )
        yield SystemCommand(
            "Remove attachment…",
            hints.hint(
                "Unlink an attachment from the note and delete it", LinkList, "remove", " in its list"
            ),
            flows.remove,
        )
