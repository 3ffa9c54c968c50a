"""``noted notebooks``, ``noted notebook create|rename|move|trash|restore`` and ``noted tags``."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from noted.cli import render
from noted.cli.args import Commands
from noted.cli.context import CliContext
from noted.errors import InvalidInputError, NotFoundError
from noted.models import ACTOR_USER, Folder
from noted.ops import notebooks as ops
from noted.ops.resolve import folder_paths, resolve_folder


def register(sub: Commands) -> None:
    """Add the notebook and tag subcommands."""
    p = sub.add("notebooks", cmd_notebooks, "List notebooks as a tree with their note counts.")
    p.add_argument("--trash", action="store_true", help="list the notebooks in the trash instead")

    nb, nb_sub = sub.group(
        "notebook", None, "Create, rename, move, trash or restore a notebook.", dest="notebook_command"
    )
    nb.set_defaults(func=lambda args, ctx: _usage(nb))

    p = nb_sub.add("create", cmd_create, "Create a notebook and print its id.")
    p.add_argument("title", help="the notebook's title")
    p.add_argument("--parent", metavar="NOTEBOOK", help="id, id prefix, title or path of the parent")

    p = nb_sub.add("rename", cmd_rename, "Rename a notebook.")
    p.add_argument("notebook", help="id, id prefix, title or path")
    p.add_argument("title", help="the new title")

    p = nb_sub.add("move", cmd_move, "Move a notebook under another one, or to the top level.")
    p.add_argument("notebook", help="id, id prefix, title or path")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--parent", metavar="NOTEBOOK", help="the new parent")
    where.add_argument("--top", action="store_true", help="make it a top-level notebook")

    p = nb_sub.add("trash", cmd_trash, "Move a notebook, its notes and sub-notebooks to the trash.")
    p.add_argument("notebook", help="id, id prefix, title or path")

    p = nb_sub.add("restore", cmd_restore, "Bring a notebook back from the trash, where it was.")
    p.add_argument("notebook", help="id, id prefix, title or path")

    sub.add("tags", cmd_tags, "List tags with the number of notes carrying each.")


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_usage(sys.stderr)
    print("noted notebook: give an action (create, rename, move, trash, restore)", file=sys.stderr)
    return 2


def cmd_notebooks(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    folders = store.list_folders(include_trashed=args.trash)
    if args.trash:
        trashed = [f for f in folders if f.is_trashed]
        live_ids = {f.id for f in folders if not f.is_trashed}
        # Show a trashed sub-notebook under its trashed parent, at the top when the parent is live.
        folders = [f if f.parent_id not in live_ids else replace(f, parent_id="") for f in trashed]
    counts = store.folder_note_counts()
    if ctx.json:
        ctx.emit(render.folders_json(folders, counts))
        return 0
    lines = render.folder_lines(folders, counts)
    if not lines:
        ctx.out("The trash holds no notebooks." if args.trash else "No notebooks yet.")
    for line in lines:
        ctx.line(line)
    return 0


def _report(ctx: CliContext, folder: Folder, verb: str) -> int:
    store = ctx.services.store
    if ctx.json:
        path = folder_paths(store.list_folders(include_trashed=True)).get(folder.id, folder.title)
        counts = store.folder_note_counts()
        n = counts.get(folder.id, 0)
        ctx.emit(render.folder_json(folder, path=path, depth=path.count("/"), note_count=n, total=n))
    elif verb == "created":
        ctx.out(folder.id)
    else:
        ctx.line(f'{verb} notebook "{folder.title}" ({folder.id[:8]})')
    return 0


def cmd_create(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    parent = resolve_folder(store, args.parent).id if args.parent is not None else ""
    title = args.title.strip()
    if not title:
        raise InvalidInputError("a notebook needs a title")
    folder = ops.create_notebook(store, title, parent_id=parent, actor=ACTOR_USER)
    _say_name(ctx, title, folder)
    return _report(ctx, folder, "created")


def _say_name(ctx: CliContext, asked: str, folder: Folder) -> None:
    """Say so when the notebook got another name than ``asked`` (a Markdown folder's, taken)."""
    if (said := ops.named_otherwise(asked, folder)) and not ctx.json:
        ctx.error(said)


def cmd_rename(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    folder = resolve_folder(store, args.notebook)
    title = args.title.strip()
    if not title:
        raise InvalidInputError("a notebook needs a title")
    renamed = ops.update_notebook(store, folder.id, title=title, actor=ACTOR_USER)
    if not renamed.changed and not ctx.json:
        ctx.line(f'notebook "{renamed.folder.title}" is named so already')
        return 0
    _say_name(ctx, title, renamed.folder)
    return _report(ctx, renamed.folder, "renamed")


def cmd_move(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    folder = resolve_folder(store, args.notebook)
    parent = "" if args.top else resolve_folder(store, args.parent).id
    moved = ops.update_notebook(store, folder.id, parent_id=parent, actor=ACTOR_USER)
    if moved.changed or ctx.json:
        return _report(ctx, moved.folder, "moved")
    where = (
        f'in "{render.notebook_of(store, moved.folder.parent_id)}"'
        if moved.folder.parent_id
        else "at the top level"
    )
    ctx.line(f'notebook "{moved.folder.title}" is {where} already')
    return 0


def cmd_trash(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    folder = resolve_folder(store, args.notebook)
    change = ops.trash_notebook(store, folder.id, actor=ACTOR_USER)
    if not change.changed and not ctx.json:  # nothing to do, and nothing done
        ctx.line(f'the notebook "{folder.title}" is already in the trash')
        return 0
    return _report(ctx, change.folder, "trashed")


def cmd_restore(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    folder = resolve_folder(store, args.notebook, prefer_trashed=True)
    if not folder.is_trashed:
        raise NotFoundError(
            f'the notebook "{folder.title}" is not in the trash, so there is nothing to restore'
        )
    return _report(ctx, ops.restore_notebook(store, folder.id, actor=ACTOR_USER).folder, "restored")


def cmd_tags(args: argparse.Namespace, ctx: CliContext) -> int:
    tags = ctx.services.store.list_tags()
    if ctx.json:
        ctx.emit([render.tag_json(t) for t in tags])
        return 0
    if not tags:
        ctx.out("No tags yet.")
    for tag in sorted(tags, key=lambda t: t.title.casefold()):
        ctx.line(f"{tag.title} ({tag.note_count})")
    return 0
