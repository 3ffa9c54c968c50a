"""Tags of the Markdown-folder store: front-matter ``tags`` and inline ``#tags`` in the files."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

from noted.models import Note, Tag
from noted.store.protocol import NoteOrder
from noted.store.rules import clean_tag_title, clean_title
from noted.store.vault.base import VaultPart
from noted.store.vault.files import ABSENT
from noted.store.vault.text import FileText, front_tags


class Tags(VaultPart):
    """Tags: noted adds to front-matter ``tags``; removing and renaming also edit inline ``#tags``."""

    def tag_note(self, note_id: str, titles: Sequence[str], *, actor: str) -> list[Tag]:
        """Tags missing from the note are added to its front-matter ``tags``."""
        titles = [clean_tag_title(t) for t in titles]
        return self._retag(note_id, actor, lambda ft: _add_tags(ft, titles), want=titles)

    def untag_note(self, note_id: str, titles: Sequence[str], *, actor: str) -> list[Tag]:
        """Removed from front-matter ``tags`` and as inline ``#tags`` in the text."""
        return self._retag(note_id, actor, lambda ft: _drop_tags(ft, titles), want=None)

    def add_note_properties(self, note_id: str, properties: dict[str, object], *, actor: str) -> None:
        """``HasNoteProperties.add_note_properties``: into the file's front matter, after its keys."""

        def add(ft: FileText) -> FileText:
            have = ft.fields()
            for key, value in properties.items():
                ft = ft if key in have else ft.with_key(key, value, (key,))
            return ft

        self._retag(note_id, actor, add, want=None)

    def _retag(
        self, note_id: str, actor: str, edit: Callable[[FileText], FileText], *, want: Sequence[str] | None
    ) -> list[Tag]:
        def write(note: Note) -> None:
            row = self.core.write_row(note)  # (its file gone outside noted: into .trash/)
            ft, read = self.core.current(row, note)
            data = edit(ft).render().encode("utf-8")
            if read is None or data != read.data:
                state = self.vault.write(row.path, data, unchanged=read.state if read else ABSENT)
                self.core.put(row.path, data, state, actor=actor, note_id=note_id, origin=row.origin)

        with self.core.batch(), self.vault.saving(actor):  # (one note's save: ``moves``)
            self.core.rewrite(note_id, write)
            tags = self.mirror.note_tags(note_id)
            if want is None:
                return tags
            keys = {t.casefold() for t in want}
            return [t for t in tags if t.title.casefold() in keys]

    def rename_tag(self, tag_id: str, title: str, *, actor: str) -> Tag:
        """Renamed in every note that carries it (front matter and inline), then in the mirror."""
        tag = self.mirror.get_tag(tag_id)
        title = clean_title(title, "tag")
        with self._several_files():
            notes = self._tag_notes(tag_id)
            renamed = self.mirror.rename_tag(tag_id, title, actor=actor)
            for note_id in notes:
                self._retag(note_id, actor, lambda ft: _rename_tag(ft, tag.title, title), want=None)
            return renamed

    def delete_tag(self, tag_id: str, *, actor: str) -> None:
        tag = self.mirror.get_tag(tag_id)
        with self._several_files():
            notes = self._tag_notes(tag_id)
            self.mirror.delete_tag(tag_id, actor=actor)
            for note_id in notes:
                self._retag(note_id, actor, lambda ft: _drop_tags(ft, [tag.title]), want=None)

    @contextlib.contextmanager
    def _several_files(self) -> Iterator[None]:
        """A change of every file carrying a tag: all or none of them, a kill half way included."""
        with self.core.batch():
            self.vault.of_several_notes()
            yield

    def _tag_notes(self, tag_id: str) -> list[str]:
        return [
            m.id
            for trashed in (False, True)
            for m in self.mirror.list_notes(tag_id=tag_id, trashed=trashed, order=NoteOrder.ID)
        ]


def _add_tags(ft: FileText, titles: Sequence[str]) -> FileText:
    have = {t.casefold() for t in ft.tags()}
    missing = [t for t in dict.fromkeys(titles) if t.casefold() not in have]
    if not missing:
        return ft
    return ft.with_tags([*front_tags(ft.fields()), *missing])


def _drop_tags(ft: FileText, titles: Sequence[str]) -> FileText:
    drop = {t.casefold() for t in titles}
    kept = [t for t in front_tags(ft.fields()) if t.casefold() not in drop]
    if len(kept) != len(front_tags(ft.fields())):
        ft = ft.with_tags(kept)
    for title in titles:
        ft = ft.replace_inline_tag(title, None)
    return ft


def _rename_tag(ft: FileText, old: str, new: str) -> FileText:
    tags = front_tags(ft.fields())
    if any(t.casefold() == old.casefold() for t in tags):
        ft = ft.with_tags([new if t.casefold() == old.casefold() else t for t in tags])
    return ft.replace_inline_tag(old, new)
