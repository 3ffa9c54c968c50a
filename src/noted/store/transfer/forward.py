"""Links to notes an import writes later, on a store that writes links as paths."""

from __future__ import annotations

import secrets

from noted.markdown import linked_ids
from noted.models import ACTOR_IMPORT, NoteDraft, NotePatch
from noted.store.protocol import HasFileLinks, Store


class ForwardLinks:
    """A store that writes links as paths (a Markdown folder) can write a ``:/id`` link only to a
    note whose path it knows: one already written, or one its slice makes (``plan``: its path chosen
    first). A note linking one a later slice writes is written again in the slice that writes the
    last of those, so no id of noted's stays in the files."""

    def __init__(self, store: Store, note_ids: set[str]) -> None:
        self.store = store
        self.session = f"import:{secrets.token_hex(8)}"
        """The import's writes: a note written again joins the revision its first write added."""
        self.note_ids = note_ids if isinstance(store, HasFileLinks) else set()
        self.written: set[str] = set()
        self.waiting: dict[str, tuple[str, set[str]]] = {}

    def plan(self, drafts: list[NoteDraft]) -> None:
        """Inside a slice's batch: the new notes it makes (``HasFileLinks.plan_notes``), whose paths
        are known from now on."""
        if self.note_ids and drafts and isinstance(self.store, HasFileLinks):
            self.written |= self.store.plan_notes(drafts)

    def wrote(self, note_id: str, body: str) -> None:
        """The note ``note_id`` was written from ``body`` (``""``: left as it was)."""
        if ahead := linked_ids(body) & self.note_ids - self.written:  # (itself included)
            self.waiting[note_id] = (body, ahead)
        self.written.add(note_id)

    def settle(self) -> None:
        """Write again the notes whose linked notes are all written now."""
        for note_id, (body, ahead) in list(self.waiting.items()):
            if ahead <= self.written:
                del self.waiting[note_id]
                kept = self.store.get_note(note_id).user_updated_time  # (the file's, not now)
                patch = NotePatch(body=body, user_updated_time=kept)
                self.store.update_note(note_id, patch, actor=ACTOR_IMPORT, session=self.session)
