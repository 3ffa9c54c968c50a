"""``noted edit`` (options or ``$EDITOR``) and ``noted history`` (an attachment's: ``noted.cli.attachment_history``).

An edit in ``$EDITOR`` (or ``--body-file``) saves with the ``updated_time`` the note had when it
was read, so a change made meanwhile by another process (the TUI, an MCP client), a move to the
trash included, is never overwritten unasked: by default both are kept (``noted.ops.conflicts``), the person's text as a
conflict copy, and the command exits with ``EXIT_CONFLICT``. ``--theirs`` keeps the other version
(the person's text goes to the history) and ``--overwrite`` saves over it (the other version stays
in the history). ``--append`` and ``--prepend`` are applied inside the write and never conflict.
"""

from __future__ import annotations

import argparse
import dataclasses
import re

from noted.cli import render
from noted.cli.args import MAX_ID, Commands, check_range, read_replacement
from noted.cli.attachment_history import attachment_named, cmd_attachment_history
from noted.cli.context import CliContext
from noted.cli.exits import ExitCode
from noted.errors import ConflictError, InvalidInputError, NotedError, NotFoundError
from noted.models import ACTOR_USER, Note, NotePatch
from noted.ops import notes as ops
from noted.ops.conflicts import Choice, Conflict, Resolved, keep_copy, resolve
from noted.ops.editing import as_text_file, edit_text, save_text, set_aside
from noted.ops.erased import ErasedNote, history_note
from noted.ops.resolve import folder_paths, live_note
from noted.wording import local_time, plural

EXIT_CONFLICT = ExitCode.CONFLICT
"""The exit status of an edit that met a change made meanwhile and did not replace it (both kept)."""


def register(sub: Commands) -> None:
    """Add ``edit`` and ``history``."""
    p = sub.add(
        "edit",
        cmd_edit,
        "Change a note. With no option, open its body in $VISUAL (or $EDITOR, else vi) and save it back.",
    )
    p.add_argument("note", help="id, id prefix (4+ hex digits) or exact title")
    p.add_argument("--title", metavar="TEXT", help="set the title")
    p.add_argument("--append", metavar="TEXT", help="add TEXT at the end of the body")
    p.add_argument("--prepend", metavar="TEXT", help="add TEXT at the start of the body")
    p.add_argument("--body-file", metavar="FILE", help="replace the body with FILE (- for standard input)")
    side = p.add_mutually_exclusive_group()
    side.add_argument(
        "--overwrite",
        action="store_true",
        help="if the note changed meanwhile, save over it (that version stays in its history)",
    )
    side.add_argument(
        "--theirs", action="store_true",
        help="if the note changed meanwhile, keep that version (yours goes to its history)",
    )  # fmt: skip

    p = sub.add(
        "history",
        cmd_history,
        "List a note's revisions (time, actor, edits), show or restore one; list an attachment's "
        "kept versions (given its id) or restore one, a deleted attachment included; or thin every "
        "note's old revisions and attachment versions now and give the space back (--prune).",
    )
    p.add_argument("note", nargs="?", help="note id, id prefix or exact title; or an attachment's id")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--show", type=int, metavar="REV", help="print the title and body of revision REV")
    which.add_argument(
        "--restore",
        type=int,
        metavar="REV",
        help="put the note back as it was in revision REV (an attachment: as it was in version REV)",
    )
    which.add_argument(
        "--prune",
        action="store_true",
        help="thin every note's old revisions by the history.* settings now, then reclaim the space",
    )


def cmd_edit(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.services.store
    note = live_note(store, args.note)
    choice = Choice.OVERWRITE if args.overwrite else Choice.THEIRS if args.theirs else Choice.KEEP_BOTH
    if args.title is None and args.append is None and args.prepend is None and args.body_file is None:
        return _edit_in_editor(ctx, note, choice)
    if args.body_file is not None and (args.append is not None or args.prepend is not None):
        raise InvalidInputError("--body-file replaces the body; give it without --append or --prepend")
    if args.title is not None and not args.title.strip():
        raise InvalidInputError("a note needs a title")
    for option, text in (("--append", args.append), ("--prepend", args.prepend)):
        if text == "":  # as the tools' min_length: "" would add a bare line break
            raise InvalidInputError(f"{option} is empty: give the text to add; nothing was written")
    # Read after the note: a change made while the file (or standard input) is read is a conflict.
    body = read_replacement(args.body_file) if args.body_file is not None else None
    if body is None:  # an append to a note deleted meanwhile fails: nothing typed at length to keep
        append = as_text_file(args.append) if args.append is not None else None
        patch = NotePatch(title=args.title, append=append, prepend=args.prepend)
        updated = ops.update_note(store, note.id, patch, actor=ACTOR_USER)
        return render.emit_note(ctx, updated, _saved(note, updated))
    saved = save_text(store, note, args.title, body, actor=ACTOR_USER)
    if saved.note is None:
        return _settle(ctx, note, args.title or note.title, body, choice)
    return render.emit_note(ctx, saved.note, _saved(note, saved.note))


def _saved(before: Note, after: Note) -> str:
    """What a save did: ``saved "T"``, or that the note already said so (nothing was written)."""
    if after.updated_time == before.updated_time:
        return "no change: the note already says the same"
    return f'saved "{after.title}"'


def _settle(ctx: CliContext, base: Note, title: str, body: str, choice: Choice) -> int:
    """Save the person's text that met a change made meanwhile, as ``choice`` says; never lose it."""
    store = ctx.services.store
    for _ in range(3):  # a fourth writer racing each retry is not worth waiting for: keep both
        try:
            conflict = Conflict.read(store, base, title, body)
            if conflict.settled:
                return render.emit_note(ctx, conflict.theirs, "no change: the note already says the same")
            return _report(ctx, base, resolve(store, conflict, choice, actor=ACTOR_USER))
        except ConflictError:
            continue
        except NotFoundError:
            break  # deleted for good meanwhile: only a copy can keep the text
    try:
        current: Note | None = store.get_note(base.id)
    except NotFoundError:
        current = None
    copy = keep_copy(store, base, title, body, actor=ACTOR_USER, gone=current is None)
    if current is None:
        current = copy  # the note is gone: the copy is what there is
    return _report(ctx, base, Resolved(Choice.KEEP_BOTH, current, copy, ""))


def _report(ctx: CliContext, base: Note, resolved: Resolved) -> int:
    code = 0 if resolved.choice is Choice.OVERWRITE else EXIT_CONFLICT
    if not ctx.json:
        if resolved.choice is Choice.OVERWRITE and resolved.note.is_trashed:
            ctx.out(
                f'saved "{resolved.note.title}", which was moved to the trash meanwhile and stays there; '
                f"`{ctx.command('restore', base.id)}` brings it back"
            )
        elif resolved.choice is Choice.OVERWRITE:
            ctx.out(
                f'saved "{resolved.note.title}" over a change made meanwhile, which is in '
                f"`{ctx.command('history', base.id)}`"
            )
        else:
            ctx.error(_conflict_line(ctx, base, resolved))
        return code
    store = ctx.services.store
    folders = folder_paths(store.list_folders(include_trashed=True))

    def as_json(note: Note) -> render.JsonDict:
        return render.note_json(note, folders.get(note.parent_id, ""), store.note_tags(note.id))

    copy = resolved.copy
    ctx.emit(
        {
            "conflict": resolved.choice.value,
            "note": as_json(resolved.note),
            "copy": None if copy is None else as_json(copy),
        }
    )
    return code


def _conflict_line(ctx: CliContext, base: Note, resolved: Resolved) -> str:
    """The one line on stderr for an edit that did not replace the note's text (its commands run
    as they are, ``--vault DIR`` and the like included)."""
    copy = resolved.copy
    if resolved.note.is_trashed:
        kept = (
            f"kept it there, yours is in `{ctx.command('history', base.id)}`"
            if copy is None
            else f'your text is the new note "{copy.title}" ({copy.id})'
        )
        return (
            f'note "{base.title}" was moved to the trash while you edited it; {kept}; '
            f"`{ctx.command('restore', base.id)}` brings the note back"
        )
    if copy is None:
        return (
            f'note "{base.title}" changed while you edited it; kept that version, yours is in '
            f"`{ctx.command('history', base.id)}`"
        )
    if resolved.note.id == copy.id:
        return f'note "{base.title}" was deleted while you edited it; your text is the new note "{copy.title}" ({copy.id})'
    return (
        f'note "{base.title}" changed while you edited it; kept both: your text is the new note '
        f'"{copy.title}" ({copy.id}); compare with: diff <({ctx.command("show", base.id)}) <({ctx.command("show", copy.id)})'
    )


def _edit_in_editor(ctx: CliContext, note: Note, choice: Choice) -> int:
    edited = edit_text(note.body, title=note.title, profile_root=ctx.profile.root)
    path, text = edited.path, edited.text
    if not edited.changed:
        path.unlink(missing_ok=True)
        return render.emit_note(ctx, note, "no change")
    store = ctx.services.store
    try:
        saved = save_text(store, note, None, text, actor=ACTOR_USER)
        if saved.note is None:  # changed, or deleted for good, meanwhile
            code = _settle(ctx, note, note.title, text, choice)
            path.unlink(missing_ok=True)  # the text is saved (a copy, a revision or the note)
            return code
    except NotedError as exc:
        exc.message = f"{exc.message}; nothing was saved and your text is kept in {set_aside(path)}"
        raise
    path.unlink(missing_ok=True)
    return render.emit_note(ctx, saved.note, _saved(note, saved.note))


def cmd_history(args: argparse.Namespace, ctx: CliContext) -> int:
    if args.prune:
        if args.note is not None:
            raise InvalidInputError("--prune thins every note's history; give no note with it")
        return _prune(ctx)
    if args.note is None:
        raise InvalidInputError("name a note (id, id prefix or exact title), or pass --prune")
    check_range("--show", args.show, 1, MAX_ID)
    check_range("--restore", args.restore, 1, MAX_ID)
    store = ctx.services.store
    attachment = attachment_named(store, args.note)
    if attachment is not None:
        return cmd_attachment_history(args, ctx, *attachment)
    try:
        note = history_note(store, args.note)
    except NotFoundError as exc:
        if re.fullmatch(r"[0-9a-fA-F]{4,}", args.note.strip()):  # an id, or the start of one
            exc.message = f'no note or attachment with id or title "{args.note.strip()}"'
        raise
    note_id, erased = note.id, isinstance(note, ErasedNote)
    if args.show is not None or args.restore is not None:
        rev_id = args.show if args.show is not None else args.restore
        if args.restore is not None:
            restored = ops.restore_revision(store, note_id, rev_id, actor=ACTOR_USER)
            same = not erased and restored == note  # it read so already: nothing was written
            said = f'"{restored.title}" is already' if same else f'restored "{restored.title}"'
            return render.emit_note(ctx, restored, f"{said} as it was in revision {rev_id}")
        revision = ops.revision_of(store, note_id, rev_id)
        if ctx.json:
            ctx.emit(render.revision_json(revision, with_body=True))
        else:
            ctx.line(f"# {revision.title}")
            label = f" · {revision.label}" if revision.label else ""
            ctx.out(f"revision {revision.id} · {local_time(revision.time)} · {revision.actor}{label}")
            ctx.out()
            ctx.out(revision.body)
        return 0
    revisions = store.note_history(note_id, bodies=False)
    if ctx.json:
        ctx.emit([render.revision_json(r) for r in revisions])
        return 0
    for rev in revisions:
        edits = "1 edit" if rev.edits == 1 else f"{rev.edits} edits"
        label = f"  ({rev.label})" if rev.label else ""
        ctx.line(f"{rev.id:>6}  {local_time(rev.time)}  {rev.actor:<20}  {edits:<9}  {rev.title}{label}")
    if not revisions:
        ctx.out("No revisions.")
    if erased:
        ctx.out(
            f"The note was erased (not by noted); `noted history {note_id} --restore N` "
            "writes it again as revision N."
        )
    return 0


def _prune(ctx: CliContext) -> int:
    pruned = ops.prune_history(ctx.services.store)
    if ctx.json:
        ctx.emit(dataclasses.asdict(pruned))
        return 0
    revisions = plural(pruned.removed, "old revision")
    notes = plural(pruned.notes, "note")
    before, after = pruned.size_before / 1e6, pruned.size_after / 1e6
    versions = f" and {plural(pruned.versions, 'old attachment version')}" if pruned.versions else ""
    ctx.out(
        f"Thinned {revisions} across {notes}{versions}; the database went from {before:.1f} MB to {after:.1f} MB."
    )
    return 0
