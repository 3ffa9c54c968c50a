"""Note subcommands that read: list, show, and the overview plain ``noted`` prints without a terminal.

``register`` also adds the notebook, write (``commands_write``), edit/history and import/export
subcommands of the sibling modules, in the order ``noted --help`` lists them.
"""

from __future__ import annotations

import argparse

from noted.cli import (
    commands_edit,
    commands_notebooks,
    commands_sync,
    commands_transfer,
    commands_write,
    render,
)
from noted.cli.args import MAX_COUNT, Commands, check_range, given
from noted.cli.context import CliContext
from noted.errors import InvalidInputError, NotFoundError
from noted.markdown import Outline, outline, outline_lines, section_text
from noted.models import Note
from noted.ops.resolve import folder_paths, resolve_folder, resolve_note
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.store.protocol import NoteOrder

RECENT = 5


def register(sub: Commands) -> None:
    """Add every note-related subcommand (notebooks, notes, tags, edit, history, import, export)."""
    commands_notebooks.register(sub)
    _register_reading(sub)
    commands_write.register_create(sub)
    commands_edit.register(sub)
    commands_write.register(sub)
    commands_transfer.register(sub)


def _register_reading(sub: Commands) -> None:
    p = sub.add("notes", cmd_notes, "List notes, newest first.")
    p.add_argument("--notebook", metavar="NOTEBOOK", help="only this notebook (id, prefix, title or path)")
    p.add_argument("--tag", metavar="TAG", help="only notes with this tag")
    p.add_argument("--todo", action="store_true", help="only to-dos")
    p.add_argument("--trash", action="store_true", help="list the notes in the trash instead")
    p.add_argument("--sort", choices=[o.value for o in NoteOrder], default="updated", help="sort order")
    p.add_argument("--limit", type=int, metavar="N", help="show at most N notes")

    p = sub.add("show", cmd_show, "Print a note: title, notebook, tags, times, to-do state and body.")
    p.add_argument("note", help="id, id prefix (4+ hex digits) or exact title")
    part = p.add_mutually_exclusive_group()
    part.add_argument("--outline", action="store_true", help="print path<TAB>chars<TAB>heading per section")
    part.add_argument(
        "--section", metavar="PATH|HEADING", help="print one section (e.g. 1.2) with its subsections"
    )


def summary(args: argparse.Namespace, ctx: CliContext) -> int:
    """What plain ``noted`` prints until the terminal app exists: an overview of the profile."""
    store = ctx.services.store
    folders = store.list_folders()
    counts = store.folder_note_counts()
    paths = folder_paths(folders)
    tags = store.list_tags(counted=False)  # only how many
    recent = store.list_notes(limit=RECENT)
    if ctx.json:
        ctx.emit(
            {
                "profile": str(ctx.profile.root),
                "notebooks": render.folders_json(folders, counts),
                "tag_count": len(tags),
                "recent": [render.meta_json(m, paths.get(m.parent_id, "")) for m in recent],
            }
        )
        return 0
    ctx.out(f"Profile: {ctx.profile.root}")
    ctx.out()
    ctx.out("Notebooks:")
    for line in render.folder_lines(folders, counts) or ["(none)"]:
        ctx.line(f"  {line}")
    ctx.out()
    ctx.out(f"Tags: {len(tags)}")
    ctx.out()
    ctx.out("Recent notes:")
    for meta in recent:
        ctx.line(f"  {render.meta_line(meta, paths.get(meta.parent_id, ''))}")
    if not recent:
        ctx.out("  (none)")
    ctx.out()
    ctx.out("Run `noted --help` for the commands, `noted show ID` to read a note.")
    return 0


def cmd_notes(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    folder_id = resolve_folder(store, args.notebook).id if args.notebook is not None else None
    tag_id = None
    if given(args.tag, "--tag", left_out="notes with any tag or none") is not None:
        tag = store.find_tag(args.tag)
        if tag is None:
            raise NotFoundError(f'no tag "{args.tag}"', hint="`noted tags` lists them")
        tag_id = tag.id
    check_range("--limit", args.limit, 1, MAX_COUNT)
    metas = store.list_notes(
        folder_id=folder_id,
        tag_id=tag_id,
        trashed=args.trash,
        todo_only=args.todo,
        order=NoteOrder(args.sort),
        limit=args.limit,
    )
    paths = folder_paths(store.list_folders(include_trashed=True))
    if ctx.json:
        ctx.emit([render.meta_json(m, paths.get(m.parent_id, "")) for m in metas])
        return 0
    for meta in metas:
        ctx.line(render.meta_line(meta, paths.get(meta.parent_id, "")))
    if not metas:
        ctx.out("No notes.")
    return 0


def cmd_show(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = resolve_note(store, args.note)
    if args.outline:
        return _show_outline(ctx, note)
    if (section := given(args.section, "--section", left_out="the whole note")) is not None:
        return _show_section(ctx, note, section)
    notebook, tags = render.notebook_of(store, note.parent_id), store.note_tags(note.id)
    conflict = commands_sync.conflict_of(store, note)
    if ctx.json:
        ctx.emit({**render.note_json(note, notebook, tags), **({"conflict": conflict} if conflict else {})})
        return 0
    for line in render.note_header(note, notebook, tags):
        ctx.line(line)
    if conflict:
        ctx.line(f"conflict: {conflict}")
    ctx.out()
    ctx.out(note.body)
    return 0


def _outline(ctx: CliContext, note: Note) -> Outline:
    """The note's outline, of its opening only when it is over ``notes.largeNoteChars``."""
    return outline(note.body, ctx.services.settings.get(LARGE_NOTE_CHARS))


def _show_outline(ctx: CliContext, note: Note) -> int:
    tree = _outline(ctx, note)
    if ctx.json:
        sections = [
            {"path": s.path, "chars": s.chars, "heading": s.heading, "level": s.level} for s in tree.sections
        ]
        partial = {"partial": tree.partial} if tree.partial else {}
        ctx.emit({"id": note.id, "title": note.title, "outline": sections, **partial})
        return 0
    for line in outline_lines(tree):
        ctx.out(line)
    if tree.partial:  # on stderr: stdout stays one section a line
        ctx.error(tree.partial)
    return 0


def _show_section(ctx: CliContext, note: Note, key: str) -> int:
    tree = _outline(ctx, note)
    found = tree.find(key)
    if not found:
        listed = f"{tree.partial} " if tree.partial else ""
        raise NotFoundError(
            f'no section "{key}" in note "{note.title}"', hint=f"{listed}`--outline` lists them"
        )
    if len(found) > 1:
        paths = ", ".join(f'{s.path} "{s.heading}"' for s in found)
        raise InvalidInputError(
            f'"{key}" names {len(found)} sections of "{note.title}": {paths}; give the path'
        )
    section = found[0]
    text = section_text(note.body, section)
    cut = tree.partial if tree.cut(section) else None  # the section may go on past the opening
    if ctx.json:
        shown = {"path": section.path, "heading": section.heading, "text": text}
        ctx.emit({"id": note.id, "title": note.title, "section": shown, **({"partial": cut} if cut else {})})
        return 0
    ctx.out(text.rstrip("\n"))
    if cut:
        ctx.error(cut)
    return 0
