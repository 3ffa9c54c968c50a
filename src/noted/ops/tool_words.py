"""What a tool call does, in a person's words: the one wording of the Changes view, ``noted changes``,
the chat's tool lines and ``noted ask``, so none of them shows a tool's name (``update_note``).

Each tool has two forms: ``to_do``, for a call asked about, running, refused or waiting as a
proposal (``update note``, ``search for``), and ``done``, for one that ran (``updated note``,
``searched for``). A name missing here (a tool the model made up) is shown as it was sent.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ToolWords:
    """A tool's call in words: what it would do, and what it did."""

    to_do: str
    done: str


_WORDS: dict[str, tuple[str, str]] = {
    "find_notes": ("search for", "searched for"),
    "search_notes": ("search for", "searched for"),
    "semantic_search_notes": ("search by meaning for", "searched by meaning for"),
    "read_note": ("read", "read"),
    "read_notes": ("read notes", "read notes"),
    "note_history": ("look at the history of", "looked at the history of"),
    "note_links": ("look at the links of", "looked at the links of"),
    "list_notes": ("list notes", "listed notes"),
    "list_tag_notes": ("list the notes tagged", "listed the notes tagged"),
    "list_notebooks": ("list notebooks", "listed notebooks"),
    "list_tags": ("list tags", "listed tags"),
    "list_notebook_notes": ("list the notes of notebook", "listed the notes of notebook"),
    "get_notebook": ("look up notebook", "looked up notebook"),
    "get_tag": ("look up tag", "looked up tag"),
    "list_attachments": ("list attachments", "listed attachments"),
    "get_attachment": ("look up attachment", "looked up attachment"),
    "read_attachment": ("read attachment", "read attachment"),
    "proposal_status": ("check on its proposals", "checked on its proposals"),
    "create_notebook": ("create notebook", "created notebook"),
    "update_notebook": ("update notebook", "updated notebook"),
    "delete_notebook": ("delete notebook", "deleted notebook"),
    "restore_notebook": ("restore notebook", "restored notebook"),
    "create_tag": ("create tag", "created tag"),
    "rename_tag": ("rename tag", "renamed tag"),
    "delete_tag": ("delete tag", "deleted tag"),
    "attach_file": ("attach a file", "attached a file"),
    "replace_attachment": ("replace attachment", "replaced attachment"),
    "delete_attachment": ("delete attachment", "deleted attachment"),
    "create_note": ("create note", "created note"),
    "update_note": ("update note", "updated note"),
    "delete_note": ("delete note", "deleted note"),
    "restore_note": ("restore note", "restored note"),
    "manage_tags": ("retag", "retagged"),
    "editor_read_note": ("read the open note", "read the open note"),
    "editor_append": ("append", "appended"),
    "editor_insert_before": ("insert before", "inserted before"),
    "editor_insert_after": ("insert after", "inserted after"),
    "editor_replace": ("replace", "replaced"),
    "editor_replace_selection": ("replace the selection with", "replaced the selection with"),
}


def tool_words(name: str) -> ToolWords:
    """The words of a call of the tool ``name``."""
    to_do, done = _WORDS.get(name) or (name, name)
    return ToolWords(to_do, done)


def known(name: str) -> bool:
    """Whether ``name`` has words of its own here (a test checks that every tool has)."""
    return name in _WORDS
