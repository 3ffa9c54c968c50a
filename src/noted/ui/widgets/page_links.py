"""``follow_link``: what a link clicked in the reader's page leads to."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget

from noted.ui.messages import OpenNote
from noted.ui.opener import open_with_system
from noted.ui.workers import in_thread

if TYPE_CHECKING:
    from noted.ui.data import NoteView
    from noted.ui.widgets.attachments import AttachmentFlows

_NOTE_LINK = ":/"


def follow_link(widget: Widget, href: str, view: NoteView | None, attachments: AttachmentFlows) -> None:
    """Open what ``href`` leads to: an attachment of the note shown (with the system's app),
    another note (in the reader), a web or mail address (with the system's app); else nothing."""
    href = href.strip()
    if href.startswith(_NOTE_LINK):
        target = href[len(_NOTE_LINK) :].split("#", 1)[0]
        resources = {r.id: r for r in view.resources} if view else {}
        if target in resources:
            attachments.open(target, resources[target].title or resources[target].filename)
        else:
            widget.post_message(OpenNote(target))
    elif href.startswith(("http://", "https://", "mailto:")):
        in_thread(widget, lambda: open_with_system(href), "opener", f"opening {href}")
