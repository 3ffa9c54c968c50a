"""The chat pane's key bindings (each with an id for ``ui.keymap``) and its F1 help."""

from __future__ import annotations

from textual.binding import Binding, BindingType

CHAT_BINDINGS: list[BindingType] = [
    Binding("escape", "cancel", "Stop", id="chat.cancel", tooltip="Stop the answer; what was said so far is kept"),
    # Textual's Ctrl+C copies what is selected (the box's text, then the screen's) and otherwise only
    # says how to quit: here it stops the answer as Esc does, once the copies have passed it by.
    Binding("ctrl+c", "cancel(True)", "Stop", id="chat.interrupt", show=False,
            tooltip="Stop the answer, as Esc does; with text selected, copy it instead"),
    Binding("y", "accept", "Accept", id="chat.accept", tooltip="Write the proposed change to the note"),
    Binding("n", "reject", "Reject", id="chat.reject", tooltip="Refuse the proposed change; nothing is written"),
    # Not on the bar, where it would push Ctrl+T and Esc off at 80 columns: always on (to say when there
    # is nothing to undo), it is named on each change's card instead.
    Binding("ctrl+z,u", "undo", "Undo edit", id="chat.undo", show=False,
            tooltip="Restore the note as it was before the last saved change"),
    Binding("ctrl+n", "new_chat", "New chat", id="chat.new", tooltip="Start a new conversation about this note"),
    Binding("ctrl+r", "history", "Chats", id="chat.history", tooltip="Resume an earlier conversation about this note"),
    # ↑ reaches the pane from the message box only when the box is empty (``ChatInput.check_action``),
    # as in oterm and shells; elsewhere in the pane the focused widget's ↑ comes first.
    Binding("up", "edit_last", "Edit last", id="chat.edit", show=False,
            tooltip="In the empty box: your last message back, to edit; sending it replaces the last exchange"),
    Binding("ctrl+g", "regenerate", "Regenerate", id="chat.regenerate", show=False,
            tooltip="Drop the last answer and ask the same again"),
    Binding("ctrl+l", "models", "Model", id="chat.model", show=False,
            tooltip="Choose the model from the server's list"),
    Binding("ctrl+y", "copy", "Copy reply", id="chat.copy", show=False,
            tooltip="Copy the focused message, or the last reply, to the clipboard"),
]  # fmt: skip
"""Bindings of the pane; ``chat.send`` (Enter) is on the input, ``chat.history.close`` on the list."""

CHAT_COMMANDS = (
    ("new_chat", "Chat: new chat", "Start a new conversation about this note"),
    ("history", "Chat: earlier chats…", "Resume a saved conversation about this note"),
    ("cancel", "Chat: stop the answer", "Keep what was said so far"),
    ("accept", "Chat: accept the change", "Write the proposed change to the note"),
    ("reject", "Chat: reject the change", "Write nothing"),
    ("undo", "Chat: undo the last edit", "Restore the note as it was before it"),
    (
        "edit_last",
        "Chat: edit the last message",
        "Put it back in the box; sending it replaces the last exchange",
    ),
    ("regenerate", "Chat: regenerate the last answer", "Drop it and ask the same again"),
    ("models", "Chat: choose the model…", "From the server's list; saved as ai.model"),
    ("copy", "Chat: copy the reply", "The focused message, or the last reply, to the clipboard"),
    ("copy_code", "Chat: copy a code block…", "Of the focused message, or of the last reply"),
)
"""(action, title, help) of the pane's commands for the command palette; shown when available."""

SEND_BINDING = Binding("enter", "submit", "Send", id="chat.send", tooltip="Send the message to the assistant")
NEWLINE_BINDING = Binding(
    "ctrl+j",
    "newline",
    "New line",
    id="chat.newline",
    tooltip="Start a new line in the message (Enter sends it)",
    show=False,  # named in the placeholder; on the key bar it pushed off Ctrl+T and Esc at 80 columns
)
"""Ctrl+J is the line feed every terminal sends as such. Shift+Enter reaches few programs, and
Alt+Enter arrives in Textual as Esc then Enter (it sent the message, in tmux)."""

CHAT_HELP = """\
## Chat

Ask the assistant about the open note. It reads the note and uses only the tools switched on in
Settings → Tools. Each conversation is saved with its note and comes back when you return to it.

- {chat.send} sends · {chat.newline} starts a new line (a paste keeps its lines) ·
  {chat.cancel} stops an answer (what was said so far is kept); so does {chat.interrupt}, unless
  text is selected (it copies that)
- **Shift+Tab** from the message box moves up through the messages, tool calls and changes;
  **Enter** on a call shows its arguments and result
- {chat.accept} / {chat.reject} accept or reject a proposed change (or use its buttons)
- {chat.undo} undoes the last saved change (a letter only away from the message box), unless the
  note changed since
- {chat.edit} in the empty message box brings back your last message: sending it replaces that
  message and its answer (tool calls included), on screen and in the saved chat.
  {chat.regenerate} drops the last answer and asks the same again. Changes an answer made to
  notes stay made: their cards stay, and undo works on them as before
- {chat.model} lists the server's models; the one chosen is saved as `ai.model` (every chat uses
  it from the next message) and shown in the status bar
- {chat.new} new chat · {chat.history} earlier chats about this note
- {chat.copy} copies the last reply (its Markdown) to the clipboard; on a message (**Shift+Tab**
  from the message box reaches the last one) {chat.message.copy} copies it and
  {chat.message.copy.code} one of its code blocks

Keys can be changed in settings, e.g. `noted config set ui.keymap.chat.send ctrl+s`
(ids: chat.send, chat.newline, chat.cancel, chat.interrupt, chat.accept, chat.reject, chat.undo, chat.new, chat.history,
chat.edit, chat.regenerate, chat.model, chat.copy, chat.message.copy, chat.message.copy.code).
"""
