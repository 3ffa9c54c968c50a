"""Note subcommands: list, show, create, move, tag, complete, trash, restore, empty the trash.

``register`` also adds the notebook, edit/history and import/export subcommands of the sibling
modules, so ``cli/__init__.py`` needs to know only this module and the search one.
"""

from __future__ import annotations

import argparse
import sys

from noted.cli import commands_edit, commands_notebooks, commands_sync, commands_transfer, render
from noted.cli.args import MAX_COUNT, Commands, check_range, read_stdin, read_text_file
from noted.cli.context import CliContext
from noted.errors import InvalidInputError, NotFoundError
from noted.markdown import outline, outline_lines, section_text
from noted.models import ACTOR_USER, Note, NoteDraft
from noted.ops import notes as ops
from noted.ops.resolve import folder_paths, live_note, resolve_folder, resolve_note
from noted.ops.trash import empty_if_unchanged, empty_trash, trash_contents
from noted.store.protocol import NoteOrder, Store
from noted.wording import plural

RECENT = 5


def register(sub: Commands) -> None:
    """Add every note-related subcommand (notebooks, notes, tags, edit, history, import, export)."""
    commands_notebooks.register(sub)
    _register_reading(sub)
    _register_create(sub)
    commands_edit.register(sub)
    _register_changes(sub)
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


def _register_create(sub: Commands) -> None:
    p = sub.add("create", cmd_create, "Create a note and print its id.")
    p.add_argument("title", help="the note's title")
    p.add_argument("stdin", nargs="?", choices=["-"], help="read the body from standard input")
    p.add_argument(
        "--notebook",
        metavar="NOTEBOOK",
        help=f'where to put it (default: "{ops.DEFAULT_NOTEBOOK}", made when missing)',
    )
    p.add_argument("--body", metavar="TEXT", help="the body, as Markdown")
    p.add_argument("--body-file", metavar="FILE", help="read the body from FILE")
    p.add_argument("--todo", action="store_true", help="make it a to-do")
    p.add_argument("--due", metavar="YYYY-MM-DD[THH:MM]", help="due date (local time); implies --todo")
    p.add_argument("--tag", action="append", default=[], metavar="TAG", help="tag it (repeatable)")
    p.add_argument("--source-url", metavar="URL", default="", help="where the content came from")


def _register_changes(sub: Commands) -> None:
    p = sub.add("move", cmd_move, "Move a note to another notebook.")
    p.add_argument("note", help="id, id prefix or exact title")
    p.add_argument("notebook", help="id, id prefix, title or path of the notebook")

    p = sub.add("tag", cmd_tag, "Add tags to a note (missing tags are created), or remove them.")
    p.add_argument("note", help="id, id prefix or exact title")
    p.add_argument("tags", nargs="+", metavar="TAG")
    p.add_argument("--remove", action="store_true", help="remove these tags instead")

    p = sub.add("complete", cmd_complete, "Mark a to-do done (or not done with --undo).")
    p.add_argument("note", help="id, id prefix or exact title")
    p.add_argument("--undo", action="store_true", help="mark it not done")

    p = sub.add("trash", cmd_trash, "Move a note to the trash.")
    p.add_argument("note", help="id, id prefix or exact title")
    p = sub.add("restore", cmd_restore, "Bring a note back from the trash into its notebook.")
    p.add_argument("note", help="id, id prefix or exact title")
    p = sub.add("empty-trash", cmd_empty_trash, "Delete the notes and notebooks in the trash for good.")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")


def notebook_of(store: Store, folder_id: str) -> str:
    """The ``Parent/Child`` path of a notebook, for display."""
    return folder_paths(store.list_folders(include_trashed=True)).get(folder_id, "")


def summary(args: argparse.Namespace, ctx: CliContext) -> int:
    """What plain ``noted`` prints until the terminal app exists: an overview of the profile."""
    store = ctx.services.store
    folders = store.list_folders()
    counts = store.folder_note_counts()
    paths = folder_paths(folders)
    tags = store.list_tags()
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
        ctx.out(f"  {line}")
    ctx.out()
    ctx.out(f"Tags: {len(tags)}")
    ctx.out()
    ctx.out("Recent notes:")
    for meta in recent:
        ctx.out(f"  {render.meta_line(meta, paths.get(meta.parent_id, ''))}")
    if not recent:
        ctx.out("  (none)")
    ctx.out()
    ctx.out("Run `noted --help` for the commands, `noted show ID` to read a note.")
    return 0


def cmd_notes(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    folder_id = resolve_folder(store, args.notebook).id if args.notebook else None
    tag_id = None
    if args.tag:
        tag = store.find_tag(args.tag)
        if tag is None:
            raise NotFoundError(f'no tag "{args.tag}"', hint="`noted tags` lists them")
        tag_id = tag.id
    check_range("--limit", args.limit, 0, MAX_COUNT)
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
        ctx.out(render.meta_line(meta, paths.get(meta.parent_id, "")))
    if not metas:
        ctx.out("No notes.")
    return 0


def cmd_show(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = resolve_note(store, args.note)
    if args.outline:
        return _show_outline(ctx, note)
    if args.section:
        return _show_section(ctx, note, args.section)
    notebook, tags = notebook_of(store, note.parent_id), store.note_tags(note.id)
    conflict = commands_sync.conflict_of(store, note)
    if ctx.json:
        ctx.emit({**render.note_json(note, notebook, tags), **({"conflict": conflict} if conflict else {})})
        return 0
    for line in render.note_header(note, notebook, tags):
        ctx.out(line)
    if conflict:
        ctx.out(f"conflict: {conflict}")
    ctx.out()
    ctx.out(note.body)
    return 0


def _show_outline(ctx: CliContext, note: Note) -> int:
    if ctx.json:
        sections = outline(note.body).sections
        ctx.emit(
            {
                "id": note.id,
                "title": note.title,
                "outline": [
                    {"path": s.path, "chars": s.chars, "heading": s.heading, "level": s.level}
                    for s in sections
                ],
            }
        )
        return 0
    for line in outline_lines(note.body):
        ctx.out(line)
    return 0


def _show_section(ctx: CliContext, note: Note, key: str) -> int:
    found = outline(note.body).find(key)
    if not found:
        raise NotFoundError(f'no section "{key}" in note "{note.title}"', hint="`--outline` lists them")
    if len(found) > 1:
        paths = ", ".join(f'{s.path} "{s.heading}"' for s in found)
        raise InvalidInputError(
            f'"{key}" names {len(found)} sections of "{note.title}": {paths}; give the path'
        )
    section = found[0]
    text = section_text(note.body, section)
    if ctx.json:
        ctx.emit(
            {
                "id": note.id,
                "title": note.title,
                "section": {"path": section.path, "heading": section.heading, "text": text},
            }
        )
        return 0
    ctx.out(text.rstrip("\n"))
    return 0


def _body_of(args: argparse.Namespace) -> str:
    given = [x for x in (args.body is not None, args.body_file is not None, args.stdin == "-") if x]
    if len(given) > 1:
        raise InvalidInputError("give the body once: --body, --body-file or - (standard input)")
    if args.body is not None:
        return str(args.body)
    if args.body_file is not None:
        return read_text_file(args.body_file)
    if args.stdin == "-":
        return read_stdin()
    return ""


def cmd_create(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    due = render.parse_local_time(args.due, what="--due") if args.due else 0
    body = _body_of(args)
    if not args.title.strip():
        raise InvalidInputError("a note needs a title")
    draft = NoteDraft(
        title=args.title,
        body=body,
        parent_id=resolve_folder(store, args.notebook).id if args.notebook else "",
        is_todo=args.todo or bool(due),
        todo_due=due,
        source_url=args.source_url,
        tags=tuple(t.strip() for t in args.tag if t.strip()),
    )
    note = ops.create_note(store, draft, actor=ACTOR_USER).note
    if ctx.json:
        ctx.emit(render.note_json(note, notebook_of(store, note.parent_id), store.note_tags(note.id)))
    else:
        ctx.out(note.id)
    return 0


def _done(ctx: CliContext, note: Note, message: str) -> int:
    store = ctx.services.store
    if ctx.json:
        ctx.emit(render.note_json(note, notebook_of(store, note.parent_id), store.note_tags(note.id)))
    else:
        ctx.out(message)
    return 0


def cmd_move(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = live_note(store, args.note)
    folder = resolve_folder(store, args.notebook)
    moved = ops.move_note(store, note.id, folder.id, actor=ACTOR_USER).note
    return _done(ctx, moved, f'moved "{note.title}" to {notebook_of(store, folder.id)}')


def cmd_tag(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = live_note(store, args.note)
    titles = [t.strip() for t in args.tags if t.strip()]
    if not titles:
        raise InvalidInputError("give at least one tag")
    if args.remove:
        tags = ops.edit_tags(store, note.id, (), titles, actor=ACTOR_USER).tags
    else:
        tags = ops.edit_tags(store, note.id, titles, (), actor=ACTOR_USER).tags
    shown = ", ".join(tags) or "(none)"
    return _done(ctx, store.get_note(note.id), f'tags of "{note.title}": {shown}')


def cmd_complete(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = live_note(store, args.note)
    updated = ops.set_completed(store, note.id, not args.undo, actor=ACTOR_USER).note
    state = "not done" if args.undo else "done"
    return _done(ctx, updated, f'marked "{note.title}" {state}')


def cmd_trash(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = resolve_note(store, args.note)
    if note.is_trashed:  # nothing to do, and nothing done
        return _done(ctx, note, f'"{note.title}" is already in the trash')
    trashed = ops.trash_note(store, note.id, actor=ACTOR_USER).note
    return _done(ctx, trashed, f'moved "{note.title}" to the trash')


def cmd_restore(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = resolve_note(store, args.note, prefer_trashed=True)
    if not note.is_trashed:
        raise NotFoundError(
            f'"{note.title}" is not in the trash, so there is nothing to restore',
            hint=f"it is in {notebook_of(store, note.parent_id)}",
        )
    restored = ops.restore_note(store, note.id, actor=ACTOR_USER).note
    return _done(ctx, restored, f'restored "{note.title}" to {notebook_of(store, restored.parent_id)}')


def cmd_empty_trash(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    asked = trash_contents(store)
    if asked.empty:
        if ctx.json:
            ctx.emit({"deleted": 0})
        else:
            ctx.out("the trash is empty already")
        return 0
    if args.yes:
        deleted = empty_trash(store, actor=ACTOR_USER)
    else:
        if not sys.stdin.isatty():
            raise InvalidInputError(
                "refusing to empty the trash without --yes (standard input is not a terminal)"
            )
        answer = input(f"Delete {asked} in the trash for good? There is no undo. [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            ctx.out("kept the trash as it is")
            return 1
        # What the person agreed to erase, and nothing trashed meanwhile by another process.
        if not empty_if_unchanged(store, asked, actor=ACTOR_USER):
            ctx.out(
                "the trash changed meanwhile, so nothing was deleted: run `noted empty-trash` again to see it"
            )
            return 1
        deleted = asked.notes
    if ctx.json:
        ctx.emit({"deleted": deleted})
    else:
        ctx.out(f"deleted {plural(deleted, 'note')} for good" if args.yes else f"deleted {asked} for good")
    return 0
