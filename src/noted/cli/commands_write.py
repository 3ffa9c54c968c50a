"""Note subcommands that change notes: create, move, tag, complete, trash, restore, empty the trash.

Each resolves the names it is given, then makes its change through an operation of ``noted.ops``.
"""

from __future__ import annotations

import argparse
import sys

from noted.cli import render
from noted.cli.args import Commands, read_body_stdin, read_text_file
from noted.cli.context import CliContext
from noted.errors import InvalidInputError, NotFoundError
from noted.models import ACTOR_USER, NoteDraft
from noted.ops import notes as ops
from noted.ops.resolve import live_note, resolve_folder, resolve_note
from noted.ops.trash import empty_if_unchanged, empty_trash, trash_contents


def register_create(sub: Commands) -> None:
    """Add ``create`` (before ``edit`` in ``noted --help``)."""
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


def register(sub: Commands) -> None:
    """Add ``move``, ``tag``, ``complete``, ``trash``, ``restore`` and ``empty-trash``."""
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


def _body_of(args: argparse.Namespace) -> str:
    given = [x for x in (args.body is not None, args.body_file is not None, args.stdin == "-") if x]
    if len(given) > 1:
        raise InvalidInputError("give the body once: --body, --body-file or - (standard input)")
    if args.body is not None:
        return str(args.body)
    if args.stdin == "-" or args.body_file == "-":  # as for `noted edit`: a failed pipe makes no note
        return read_body_stdin("nothing created", hint="for an empty note, give no body")
    if args.body_file is not None:
        return read_text_file(args.body_file)
    return ""


def cmd_create(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    due = render.parse_local_time(args.due, what="--due") if args.due is not None else 0
    body = _body_of(args)
    if not args.title.strip():
        raise InvalidInputError("a note needs a title")
    draft = NoteDraft(
        title=args.title,
        body=body,
        parent_id=resolve_folder(store, args.notebook).id if args.notebook is not None else "",
        is_todo=args.todo or bool(due),
        todo_due=due,
        source_url=args.source_url,
        tags=tuple(_tag_names(args.tag)),
    )
    note = ops.create_note(store, draft, actor=ACTOR_USER).note
    return render.emit_note(ctx, note, note.id)


def _tag_names(given: list[str]) -> list[str]:
    """The tags given, trimmed; an empty one (``--tag "$UNSET"``) is refused, not dropped."""
    names = [t.strip() for t in given]
    if "" in names:
        raise InvalidInputError('a tag needs a name, and one given is empty ("")')
    return names


def cmd_move(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = live_note(store, args.note)
    folder = resolve_folder(store, args.notebook)
    moved = ops.move_note(store, note.id, folder.id, actor=ACTOR_USER)
    where = render.notebook_of(store, folder.id)
    said = f'moved "{note.title}" to {where}' if moved.changed else f'"{note.title}" is in {where} already'
    return render.emit_note(ctx, moved.note, said)


def cmd_tag(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = live_note(store, args.note)
    titles = _tag_names(args.tags)
    if not titles:
        raise InvalidInputError("give at least one tag")
    if args.remove:
        change = ops.edit_tags(store, note.id, (), titles, actor=ACTOR_USER)
        if change.not_on_note and not ctx.json:
            ctx.line(f'not on "{note.title}", so not removed: {", ".join(change.not_on_note)}')
        tags = change.tags
    else:
        tags = ops.edit_tags(store, note.id, titles, (), actor=ACTOR_USER).tags
    shown = ", ".join(tags) or "(none)"
    return render.emit_note(ctx, store.get_note(note.id), f'tags of "{note.title}": {shown}')


def cmd_complete(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = live_note(store, args.note)
    change = ops.set_completed(store, note.id, not args.undo, actor=ACTOR_USER)
    state = "not done" if args.undo else "done"
    said = f'marked "{note.title}" {state}' if change.changed else f'"{note.title}" is {state} already'
    return render.emit_note(ctx, change.note, said)


def cmd_trash(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = resolve_note(store, args.note)
    if note.is_trashed:  # nothing to do, and nothing done
        return render.emit_note(ctx, note, f'"{note.title}" is already in the trash')
    trashed = ops.trash_note(store, note.id, actor=ACTOR_USER).note
    return render.emit_note(ctx, trashed, f'moved "{note.title}" to the trash')


def cmd_restore(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = resolve_note(store, args.note, prefer_trashed=True)
    if not note.is_trashed:
        raise NotFoundError(
            f'"{note.title}" is not in the trash, so there is nothing to restore',
            hint=f"it is in {render.notebook_of(store, note.parent_id)}",
        )
    restored = ops.restore_note(store, note.id, actor=ACTOR_USER).note
    return render.emit_note(
        ctx, restored, f'restored "{note.title}" to {render.notebook_of(store, restored.parent_id)}'
    )


def cmd_empty_trash(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    asked = trash_contents(store)
    if asked.empty:
        if ctx.json:
            ctx.emit({"deleted": 0, "stayed": 0, "held_notebooks": []})
        else:
            ctx.out("the trash is empty already")
        return 0
    if args.yes:
        emptied = empty_trash(store, actor=ACTOR_USER)
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
        done = empty_if_unchanged(store, asked, actor=ACTOR_USER)
        if not done:
            ctx.out(
                "the trash changed meanwhile, so nothing was deleted: run `noted empty-trash` again to see it"
            )
            return 1
        emptied = done
    if ctx.json:
        ctx.emit(
            {
                "deleted": emptied.notes,
                "stayed": emptied.stayed,
                "held_notebooks": [f.id for f in emptied.held],
            }
        )
    else:
        ctx.out(str(emptied))
    return 0
