"""``noted conflicts``: the conflict copies Joplin's sync made, compared and settled.

    noted conflicts                         # list them (each: copy id, the note it is a version of)
    noted conflicts show COPY               # both sides, and what differs
    noted conflicts resolve COPY --keep note|copy
    noted conflicts resolve COPY --body-file merged.md   # a text merged by hand (- : standard input)

Only the Joplin backend has them (``--joplin``). Settling one loses neither side: the copy's
text becomes a revision of the note (``noted history NOTE``) before the copy is erased.
"""

from __future__ import annotations

import argparse

from noted.cli import render
from noted.cli.args import Commands, read_replacement
from noted.cli.context import CliContext
from noted.errors import InvalidInputError, NotFoundError
from noted.models import ACTOR_USER, Note
from noted.ops.conflicts import settle_sync_conflict
from noted.ops.diffs import text_diff
from noted.settings.handles import JOPLIN_SYNC_COMMAND
from noted.store.protocol import Store
from noted.store.sync import SyncConflict, SyncConflicts, Syncing
from noted.wording import local_time


def register(sub: Commands) -> None:
    """Add ``noted conflicts`` and ``noted sync``."""
    s = sub.add("sync", cmd_sync, "Ask Joplin to sync now (runs joplin.syncCommand); --status: last sync.")
    s.add_argument("--status", action="store_true", help="only say when noted last had Joplin sync")
    p = sub.add("conflicts", cmd_conflicts, "List, compare and settle the conflicts of Joplin's sync.")
    p.add_argument("action", nargs="?", choices=["show", "resolve"], help="show or resolve one conflict")
    p.add_argument("copy", nargs="?", help="the conflict copy's id (or a prefix of 4+ hex digits)")
    keep = p.add_mutually_exclusive_group()
    keep.add_argument("--keep", choices=["note", "copy"], help="resolve: keep the note's text, or the copy's")
    keep.add_argument("--body-file", metavar="FILE", help="resolve: the text merged by hand (- : stdin)")
    p.add_argument("--title", help="resolve with --body-file: the title (default: the note's)")


def _conflict_store(store: Store) -> SyncConflicts:
    if store.conflicts is None:
        raise InvalidInputError(
            "conflicts of Joplin's sync exist only on the Joplin backend", hint="add --joplin"
        )
    return store.conflicts


def _sync_of(store: Store) -> Syncing:
    if store.sync is None:
        raise InvalidInputError("only the Joplin backend syncs", hint="add --joplin")
    return store.sync


def cmd_sync(args: argparse.Namespace, ctx: CliContext) -> int:
    services = ctx.services
    sync = _sync_of(services.store)
    if args.status:
        last = sync.last()
        if ctx.json:
            ctx.emit({"last_sync": last})
        else:
            ctx.out(f"Last sync from noted: {local_time(last)}" if last else "noted has not run a sync yet.")
        return 0
    run = sync.run(services.settings.get(JOPLIN_SYNC_COMMAND))
    conflicts = len(_conflict_store(services.store).sync_conflicts())
    if ctx.json:
        ctx.emit({"summary": run.summary, "finished": run.finished, "conflicts": conflicts})
        return 0
    ctx.out(f"Joplin synced: {run.summary}")
    if conflicts:
        ctx.out(f"{conflicts} conflict(s) to settle: noted conflicts")
    return 0


def conflict_of(store: Store, note: Note) -> str | None:
    """What ``noted show`` says of a note in a conflict of Joplin's sync (None: it is in none)."""
    return store.conflicts.conflict_summary(note) if store.conflicts is not None else None


def _resolve_copy(store: SyncConflicts, ref: str | None) -> SyncConflict:
    if not ref:
        raise InvalidInputError("name the conflict copy", hint="`noted conflicts` lists them")
    matches = [c for c in store.sync_conflicts() if c.copy_id == ref or c.copy_id.startswith(ref.lower())]
    if not matches or (len(ref) < 4 and matches[0].copy_id != ref):
        raise NotFoundError(f'no conflict copy "{ref}"', hint="`noted conflicts` lists them")
    if len(matches) > 1:
        raise InvalidInputError(f'"{ref}" names {len(matches)} conflict copies; give more of the id')
    return matches[0]


def cmd_conflicts(args: argparse.Namespace, ctx: CliContext) -> int:
    if args.action != "resolve" and (args.keep or args.body_file is not None or args.title):
        raise InvalidInputError("--keep, --body-file and --title go with `noted conflicts resolve COPY`")
    store = _conflict_store(ctx.services.store)
    if args.action is None:
        return _list(ctx, store)
    conflict = _resolve_copy(store, args.copy)
    copy, note = store.sync_conflict(conflict.copy_id)
    if args.action == "show":
        return _show(ctx, copy, note)
    if args.keep == "note":
        if note is None:
            raise InvalidInputError("the note is gone; only the copy is left", hint="use --keep copy")
        title, body = note.title, note.body
    elif args.keep == "copy":
        title, body = copy.title, copy.body
    elif args.body_file is not None:
        title, body = args.title or (note or copy).title, read_replacement(args.body_file)
    else:
        raise InvalidInputError("say which text to keep", hint="--keep note, --keep copy or --body-file FILE")
    kept = settle_sync_conflict(store, copy.id, title, body, actor=ACTOR_USER)
    if ctx.json:
        ctx.emit({"resolved": copy.id, "note": kept.id, "title": kept.title})
    else:
        ctx.out(
            f'Settled: "{kept.title}" ({kept.id}) keeps the chosen text; the other side is in its history.'
        )
    return 0


def _list(ctx: CliContext, store: SyncConflicts) -> int:
    conflicts = store.sync_conflicts()
    if ctx.json:
        ctx.emit([conflict_json(c) for c in conflicts])
        return 0
    for c in conflicts:
        of = f"copy of {c.original_id}" if c.original_id else "its note is gone"
        ctx.line(f"{c.copy_id}  {local_time(c.updated_time)}  {c.title}  ({of})")
    if not conflicts:
        ctx.out("No conflicts.")
    return 0


def conflict_json(c: SyncConflict) -> render.JsonDict:
    """One conflict as ``noted conflicts --json`` lists it."""
    return {
        "copy_id": c.copy_id,
        "note_id": c.original_id,
        "title": c.title,
        "notebook_id": c.parent_id,
        "updated_time": c.updated_time,
    }


def _show(ctx: CliContext, copy: Note, note: Note | None) -> int:
    base = (note.title, note.body) if note else ("", "")
    diff = text_diff(base, (copy.title, copy.body), ("the note", "the conflict copy"))
    if ctx.json:
        ctx.emit(
            {
                "copy": {"id": copy.id, "title": copy.title, "body": copy.body},
                "note": None if note is None else {"id": note.id, "title": note.title, "body": note.body},
                "diff": diff,
            }
        )
        return 0
    where = f'of "{note.title}" ({note.id})' if note else "(its note is gone)"
    ctx.out(f"Conflict copy {copy.id} {where}, made by Joplin's sync.")
    ctx.out("Lines with - are the note's, lines with + the copy's:")
    ctx.out()
    ctx.out(diff.rstrip("\n"))
    ctx.out()
    ctx.out(f"Settle it: noted conflicts resolve {copy.id} --keep note|copy, or --body-file FILE")
    return 0
