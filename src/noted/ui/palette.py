"""Every action of the app, by name, for the command palette (``App.get_system_commands``).

Each entry calls the same action as its key, so the palette and the keys never drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from noted.store.joplin.sync_conflicts import SyncConflictOps
from noted.ui.commands import open_tool_palette
from noted.ui.widgets.note_editor import NoteEditor
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteViewer
from noted.ui.widgets.notebook_tree import NotebookTree

if TYPE_CHECKING:
    from noted.ui.app import NotedApp
    from noted.ui.workspace import Workspace


def system_commands(app: NotedApp, screen: Workspace) -> Iterable[SystemCommand]:
    """The app's own commands and the chat pane's; the caller adds Textual's (theme, keys, quit…).

    Textual's "Theme" opens ``commands.open_theme_palette`` (``NotedApp.action_change_theme``), so
    a theme chosen there is saved like one chosen in the settings.
    """
    tree = screen.query_one(NotebookTree)
    notes = screen.query_one(NoteList)
    viewer = screen.query_one(NoteViewer)
    editor = screen.query_one(NoteEditor)
    yield SystemCommand("Search notes…", "Find notes by keyword or meaning (/)", app.action_search)
    yield SystemCommand("New note", "Create a note in the listed notebook (ctrl+n)", app.action_new_note)
    # A pane's commands act on what it shows (its cursor, its marks, its note): offered only while
    # the layout shows it, as its keys are (a narrow screen hides panes, the chat covers them).
    if screen.shows(tree):
        yield from _tree_commands(tree)
    if screen.shows(notes):
        yield from _list_commands(notes)
    if screen.shows(viewer) and viewer.view is not None:
        yield from _viewer_commands(viewer)
    if screen.shows(editor) and editor.note is not None:
        yield SystemCommand("Save note", "Save the note being edited (ctrl+s)", editor.action_save)
        yield SystemCommand("Stop editing", "Save and go back to reading (esc)", editor.action_close)
    yield SystemCommand("Toggle assistant", "Show or hide the chat pane (ctrl+t)", app.action_toggle_chat)
    yield SystemCommand(
        "Toggle notebooks", "Show or hide the notebook tree (ctrl+b)", app.action_toggle_sidebar
    )
    yield SystemCommand(
        "Settings", "Every setting, the assistant's tools, the MCP server (f2)", app.action_settings
    )
    yield SystemCommand(
        "Toggle tool…", "Switch one of the assistant's tools on or off (saved in the settings)",
        partial(open_tool_palette, app),
    )  # fmt: skip
    yield SystemCommand("Focus notebooks", "Move the cursor to the notebook tree", app.action_focus_tree)
    yield SystemCommand("Focus notes", "Move the cursor to the note list", app.action_focus_list)
    yield SystemCommand("Empty trash", "Delete the notes in the trash for good", app.action_empty_trash)
    if isinstance(app.services.store, SyncConflictOps):
        yield SystemCommand(
            "Sync now", "Have Joplin sync with your other machines (runs joplin.syncCommand)",
            screen.action_sync_now,
        )  # fmt: skip
    if screen.chat is not None and screen.shows(screen.chat):
        yield from screen.chat.commands()


def _tree_commands(tree: NotebookTree) -> Iterable[SystemCommand]:
    yield SystemCommand(
        "New notebook", "Create a notebook inside the highlighted one", tree.action_new_notebook
    )
    yield SystemCommand("Rename notebook or tag", "Rename what the tree's cursor is on", tree.action_rename)
    yield SystemCommand("Move notebook…", "Move the highlighted notebook into another", tree.action_move)
    yield SystemCommand(
        "Trash notebook or delete tag",
        "Move the highlighted notebook to the trash, or delete the highlighted tag",
        tree.action_trash,
    )
    yield SystemCommand("Restore notebook", "Bring a notebook back from the trash", tree.action_restore)


def _list_commands(notes: NoteList) -> Iterable[SystemCommand]:
    yield SystemCommand("Tag notes…", "Add or remove tags on the marked notes", notes.action_tag)
    yield SystemCommand("Move notes to…", "Move the marked notes to a notebook", notes.action_move)
    yield SystemCommand("Complete to-dos", "Complete or reopen the marked to-dos", notes.action_complete)
    yield SystemCommand("Switch to-do / note", "Turn the marked notes into to-dos or back", notes.action_todo)
    yield SystemCommand("Trash notes", "Move the marked notes to the trash", notes.action_trash)
    yield SystemCommand("Restore notes", "Bring the marked notes back from the trash", notes.action_restore)
    yield SystemCommand("Mark all notes", "Mark every listed note, or clear the marks", notes.action_mark_all)
    yield SystemCommand("Sort notes", "Sort by updated time, title or created time", notes.action_sort)


def _viewer_commands(viewer: NoteViewer) -> Iterable[SystemCommand]:
    yield SystemCommand("Edit note", "Edit the open note here (e)", viewer.action_edit)
    yield SystemCommand(
        "Edit note in $EDITOR", "Edit the open note in your own editor", viewer.action_external
    )
    yield SystemCommand(
        "Copy note", "Copy the open note's text (Markdown) to the clipboard (y)", viewer.action_copy
    )
    yield SystemCommand(
        "Copy code block…", "Copy a code block of the open note to the clipboard (Y)", viewer.action_copy_code
    )
    yield SystemCommand("Go to outline", "Jump to a heading of the open note", viewer.action_outline)
    yield SystemCommand("Links and attachments", "Open a linked note or an attachment", viewer.action_links)
    yield SystemCommand(
        "Add attachment from a path…", "Attach a file to the open note, linked at its end (A)",
        viewer.action_add_attachment,
    )  # fmt: skip
    if viewer.view is not None and viewer.view.resources:
        flows = viewer.attachments
        yield SystemCommand(
            "Save attachment as…", "Save a copy of one of the note's attachments (s in its list)",
            flows.save_as,
        )  # fmt: skip
        yield SystemCommand(
            "Remove attachment…", "Unlink an attachment from the note and delete it (d in its list)",
            flows.remove,
        )  # fmt: skip
