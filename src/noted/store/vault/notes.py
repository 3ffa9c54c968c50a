"""Notes of the Markdown-folder store: reads from the mirror, writes to the file then the mirror."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from noted.errors import ConflictError, InvalidInputError, NotFoundError
from noted.markdown import link_marks
from noted.models import Note, NoteDraft, NotePatch
from noted.store.protocol import NoteOrder
from noted.store.rules import MAX_TITLE, check_body, clean_title
from noted.store.transfer.common import other_keys, safe_name
from noted.store.vault.base import TRIES, VaultPart, with_todo
from noted.store.vault.files import ABSENT, FileChanged, FileState, Skipped, decode
from noted.store.vault.rebase import rebased, redirected
from noted.store.vault.tag_sync import drop_bare_tags
from noted.store.vault.text import FileText, inline_tags, yaml_time
from noted.store.vault.trash import in_trash, trashed_copy


class Notes(VaultPart):
    """Notes: the mirror answers reads; each write replaces the file, then updates the mirror."""

    _paths: tuple[int, dict[str, str]] | None = None
    """``note_paths`` as read at a feed cursor (every change of a file's path is in the feed)."""

    def note_paths(self) -> dict[str, str]:
        """Read again only when the change feed moved (the reader asks at each note it opens)."""
        cursor = self.mirror.latest_cursor()
        cached = self._paths
        if cached is None or cached[0] != cursor:
            rows = self.ledger.all_notes()
            cached = (cursor, {r.note_id: r.path for r in rows if r.present and not in_trash(r.path)})
            self._paths = cached
        return dict(cached[1])

    def note_path(self, note_id: str) -> Path:
        """The note's file (in ``.trash/`` while it is trashed)."""
        row = self.ledger.note(note_id)
        if row is None:
            raise NotFoundError(f'no note with id "{note_id}"')
        return self.vault.root / row.path

    def note_properties(self, note_id: str) -> dict[str, object]:
        """``HasNoteProperties.note_properties``: from the file's front matter as noted last read it."""
        front = self.ledger.front(note_id)
        return other_keys(front.fields()) if front is not None else {}

    def as_read(self, note_id: str | None, draft: NoteDraft) -> NoteDraft:
        """``draft`` as the note reads once its file is written from it (``ReadsNotesFromText``):
        a heading on the body's first line is the title, whatever title the draft gives; the body
        is put into the note's file as a write puts it (its ``:/id`` links made paths, the file's
        front matter, line endings and final newline kept) and read back; times are kept to the
        second; the body's inline ``#tags`` are tags too."""
        ft = FileText.parse(draft.body)
        row = self.ledger.note(note_id) if note_id is not None else None
        if row is not None and row.present:
            with contextlib.suppress(OSError, Skipped):  # (gone meanwhile: the write will say)
                now = FileText.parse(decode(self.vault.read(row.path).data))
                body = self.attachments.place(draft.body, row.path, adopt=False)
                ft = FileText.parse(now.with_body(body).render())
        title = draft.title
        if ft.title_source() == "heading":
            title = ft.title(title)[:MAX_TITLE].strip() or title
        tags: dict[str, str] = {}
        for tag in [*draft.tags, *(m.group(1) for m in inline_tags(ft.body))]:
            tags.setdefault(tag.casefold(), tag)
        done = draft.todo_completed
        return replace(
            draft,
            title=title,
            body=ft.body,
            todo_due=draft.todo_due - draft.todo_due % 1000,  # as ``yaml_time`` writes it
            todo_completed=done if done == 1 else done - done % 1000,  # (1: done, with no time)
            tags=tuple(tags.values()),
        )

    def create_note(self, draft: NoteDraft, *, actor: str, session: str | None = None) -> Note:
        title = clean_title(draft.title) or "Untitled"
        ft = FileText.parse(check_body(draft.body))
        with self.core.batch(), self.vault.saving(actor):
            parent = self.mirror.get_folder(draft.parent_id) if draft.parent_id else None
            if parent is None:
                raise InvalidInputError("a note needs a notebook")
            if parent.is_trashed:
                raise InvalidInputError(f'notebook "{parent.title}" is in the trash; restore it first')
            if draft.id is not None and self.mirror.get_notes([draft.id]):
                raise InvalidInputError(f'a note with id "{draft.id}" exists already')
            folder, plan = self.core.folder_dir(parent.id), self.vault.planned
            was = (
                plan.paths.get(draft.id, "") if plan and draft.id else ""
            )  # (where links to it were written)
            rel = was if was.rpartition("/")[0] == folder else ""
            for _ in range(TRIES - 1):  # a name found free that another program takes meanwhile:
                with contextlib.suppress(FileChanged):  # never replaced; the next free one is taken
                    rel, data, state = self._write_new(draft, title, ft, folder, rel)
                    break
                rel = ""  # (``Vault.write`` forgot the names it listed: listed again)
            else:
                rel, data, state = self._write_new(draft, title, ft, folder, rel)
            note = self.core.put(rel, data, state, actor=actor, new_id=draft.id, session=session)
            if was and rel != was and plan:  # notes written linking it where it was to be: to where it is
                for linker in filter(None, map(self.ledger.note_at, plan.linkers.pop(note.id, ()))):
                    self.core.relink(linker.note_id, partial(redirected, old=was, new=rel), actor, session)
            return note

    def _write_new(
        self, draft: NoteDraft, title: str, ft: FileText, folder: str, rel: str
    ) -> tuple[str, bytes, FileState]:
        """Write a new note's file at ``rel`` (its planned path), else at a free name in ``folder``
        (its attachments written first where due); its path, bytes and state."""
        rel, plan = rel or self.vault.free_note_name(folder, safe_name(title)), self.vault.planned
        if plan and draft.id in plan.paths:
            plan.paths[draft.id] = rel  # (its own links to itself too)
        ft = ft.titled(title, PurePosixPath(rel).stem)
        ft = with_todo(ft, draft.is_todo, draft.todo_due, draft.todo_completed, draft.source_url)
        if draft.tags:
            ft = ft.with_tags(list(dict.fromkeys(draft.tags)))
        if draft.user_created_time:
            ft = ft.with_key("created", yaml_time(draft.user_created_time), ("created",))
        data = ft.with_body(self.attachments.place(ft.body, rel)).render().encode("utf-8")
        return rel, data, self.vault.write(rel, data, unchanged=ABSENT, at=draft.user_updated_time or 0)

    def plan_notes(self, drafts: Sequence[NoteDraft]) -> set[str]:
        """``HasFileLinks.plan_notes``: the path each new note's file will have, chosen now, so a
        ``:/id`` link to one made later in the batch is written as that path; the ids planned."""
        plan = self.vault.planned
        if plan is None:  # (outside a batch: nothing kept)
            return set()
        planned = plan.paths
        for draft in drafts:
            if not draft.id or draft.id in planned or self.ledger.note(draft.id) is not None:
                continue
            with contextlib.suppress(InvalidInputError, NotFoundError):  # (its create_note says why)
                if self.mirror.get_folder(draft.parent_id).is_trashed:
                    continue
                folder = self.core.folder_dir(draft.parent_id)
                planned[draft.id] = self.vault.free_note_name(
                    folder, safe_name(clean_title(draft.title) or "Untitled")
                )
        return {d.id for d in drafts if d.id and d.id in planned}

    def update_note(
        self,
        note_id: str,
        patch: NotePatch,
        *,
        actor: str,
        base_updated_time: int | None = None,
        session: str | None = None,
    ) -> Note:
        def write(old: Note) -> Note:
            if base_updated_time is not None and base_updated_time != old.updated_time:
                raise ConflictError(
                    f'note "{old.title}" changed since it was read; it was saved again meanwhile',
                    current_updated_time=old.updated_time,
                )
            return self._write_patch(old, patch, actor, session)

        with self.core.batch(), self.vault.saving(actor):
            try:  # an edit on the file meanwhile is caught up with, then a patch (an append) applied to it
                return self.core.rewrite(note_id, write)
            except ConflictError as exc:
                conflict = exc  # raised once the batch keeps the other side's version, caught up
        raise conflict

    def _write_patch(self, old: Note, patch: NotePatch, actor: str, session: str | None) -> Note:
        row = self.core.write_row(old)
        ft, read = self.core.current(row, old)
        ft = ft.with_body(check_body(patch.body_after(ft.body)))
        rel, rename = row.path, False
        stem = PurePosixPath(rel).stem
        title = ft.title(stem)
        if patch.title is not None and clean_title(patch.title) != title:
            title = clean_title(patch.title) or "Untitled"
            ft, rename = ft.with_title(title, stem)
            if rename and (patch.keep_file_name or self._linked_by_name(old.id, stem)):  # (would break them)
                ft, rename = ft.with_key("title", title, ("title",)), False
        ft = with_todo(ft, patch.is_todo, patch.todo_due, patch.todo_completed, patch.source_url)
        target = rel
        if not in_trash(rel):
            folder = (
                self.core.folder_dir(patch.parent_id)
                if patch.parent_id not in (None, old.parent_id)
                else None
            )
            if rename or folder is not None:
                here = rel.rpartition("/")[0] if folder is None else folder
                name = safe_name(clean_title(patch.title or old.title)) if rename else stem
                wanted = f"{here}/{name}.md".lstrip("/")
                # Its own name, or only its case changed (on a file system where no other file has it).
                same = wanted.casefold() == rel.casefold() and not self.vault.taken(wanted, by=rel)
                target = self.vault.check_followed(wanted) if same else self.vault.free_note_name(here, name)
        ft = ft.titled(title, PurePosixPath(target).stem)  # (a name taken, or not renamed in .trash/)
        ft = ft.with_body(self.attachments.place(rebased(self.vault, ft.body, rel, target), target))
        data = ft.render().encode("utf-8")
        moved = target != rel and read is not None
        if moved:  # first: a write after a move is put back with it after a crash (``moves``)
            self.vault.move(rel, target)  # (the file keeps its state)
        state = read.state if read is not None else None
        if read is None or data != read.data:
            try:
                unchanged = read.state if read is not None else ABSENT
                state = self.vault.write(target, data, unchanged=unchanged, at=patch.user_updated_time or 0)
            except FileChanged:  # (caught up with at its old place, and written again)
                if moved:
                    self.vault.move(target, rel)
                raise
        return self.core.put(
            target, data, state, actor=actor, note_id=old.id, session=session, origin=row.origin
        )

    def _linked_by_name(self, note_id: str, stem: str) -> bool:
        """Whether another note's text may link to the file name ``stem`` (``[[stem]]``,
        ``stem.md``…): renaming the file would leave such a link leading nowhere."""
        marks = link_marks(stem)
        found = " OR ".join("instr(lower(body), lower(?)) > 0" for _ in marks)
        with self.mirror.db.read() as conn:
            row = conn.execute(
                "SELECT 1 FROM notes WHERE id != ? AND deleted_time = 0"
                f" AND (instr(lower(body), lower(?)) > 0 OR instr(body, ?) > 0) AND ({found}) LIMIT 1",
                (note_id, stem, quote(stem), *marks),
            ).fetchone()
        return row is not None

    def restore_revision(self, revision_id: int, *, actor: str) -> Note:
        revision = self.mirror.get_revision(revision_id)
        return self.update_note(
            revision.note_id, NotePatch(title=revision.title, body=revision.body), actor=actor
        )

    def trash_note(self, note_id: str, *, actor: str) -> None:
        with self.core.batch():
            self.core.catch_up(note_id)
            self.mirror.trash_note(note_id, actor=actor)
            self.core.place([note_id], actor=actor)

    def restore_note(self, note_id: str, *, actor: str) -> Note:
        with self.core.batch():
            self.mirror.restore_note(note_id, actor=actor)
            self.core.place([note_id], actor=actor)
            return self.core.catch_up(note_id)

    def empty_trash(self, *, actor: str) -> int:
        """Delete the files noted moved to ``.trash/`` (unchanged since), then the notes for good."""
        with self.mirror.batch():
            trashed = self.mirror.list_notes(trashed=True, order=NoteOrder.ID)
            tags = {
                t for titles in self.mirror.note_tag_titles([m.id for m in trashed]).values() for t in titles
            }
            kept: set[str] = set()
            for meta in trashed:
                row = self.ledger.note(meta.id)
                if row is None:
                    continue
                if not row.present and trashed_copy(self.core, row) is not None:
                    kept.add(meta.id)  # moved there by another program: not noted's to delete
                    continue
                if row.present and in_trash(row.path):
                    try:
                        changed = self.vault.read(row.path).digest != row.hash
                    except FileNotFoundError:  # gone already: nothing to delete
                        changed = False
                    except (OSError, InvalidInputError):  # cannot be checked (a link, too large…): kept
                        changed = True
                    if changed:  # the person's text, which noted did not write: note and file stay
                        kept.add(meta.id)
                        continue
                    with contextlib.suppress(OSError):
                        self.vault.path(row.path).unlink()
                        self.vault.prune_trash(row.path)
                with self.core.db.write() as conn:
                    self.ledger.drop_note(conn, meta.id)
            deleted = self.mirror.notes.empty_trash(actor=actor, keep=frozenset(kept))
            left = {f.id for f in self.mirror.list_folders(include_trashed=True)}
            with self.core.db.write() as conn:  # a notebook erased for good leaves the ledger too
                for folder_id in set(self.ledger.all_folders().values()) - left:
                    self.ledger.drop_folder(conn, folder_id)
            drop_bare_tags(self.core, tags, actor)
            return deleted
