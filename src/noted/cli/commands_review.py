"""``noted changes``: what assistants, outside AI apps, syncs and outside edits changed, to review.

``noted changes`` lists what waits (grouped by note, newest first; what went along with a change,
as the notes a notebook took to the trash, under it: ``↳``), ``show ID`` prints one diff,
``accept``, ``revert`` and ``reject`` act on several ids at once. An id is a change's number, or
``pN`` for a proposal (a write that waits for you). Exit codes: 0 done; 1 refused (an id that names
nothing or was reviewed already: nothing is marked); 2 bad input; 3 a revert met a note changed
since and kept both sides (or left it where it was moved to since).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence

from noted.cli import proposal_cli
from noted.cli.args import Commands, given
from noted.cli.context import CliContext
from noted.cli.exits import ExitCode
from noted.errors import DatabaseReadOnlyError, DiskFullError, FolderNotWritableError, InvalidInputError
from noted.ops import review_actions, review_items
from noted.ops.conflicts import Choice
from noted.ops.review import PERSON_ACTORS, Review, summary
from noted.ops.review_list import along_line, folded
from noted.search.dates import DATE_FORMS, resolve_date
from noted.store.review import EntryRow
from noted.wording import local_time, plural

_ID = re.compile(r"^(p?)(\d{1,18})$")


def register(sub: Commands) -> None:
    """Add ``changes`` and its actions."""
    p, actions = sub.group(
        "changes",
        cmd_changes,
        "List the changes assistants, AI apps, syncs and outside edits made that you have not reviewed.",
        dest="action",
    )
    p.add_argument(
        "--actor", metavar="A", help="only this actor's (mcp, mcp:NAME, assistant, sync, outside…)"
    )
    p.add_argument("--since", metavar="T", help=f"only changes since T ({DATE_FORMS})")
    p.add_argument("--pending", action="store_true", help="only the writes that wait for you (proposals)")
    show = actions.add("show", cmd_changes, "Show one change's diff against the version before it.")
    show.add_argument("ids", nargs=1, metavar="ID")
    for name, text in (
        ("accept", "Mark changes reviewed (a proposal is applied)."),
        (
            "revert",
            "Restore the version before each change (pN: the change an applied proposal made), as a new "
            "revision; a note changed since keeps both sides.",
        ),
        ("reject", "Turn down proposals (writes that wait): nothing is written."),
    ):
        action = actions.add(name, cmd_changes, text)
        action.add_argument("ids", nargs="+", metavar="ID")
        if name == "reject":
            action.add_argument("--reason", metavar="TEXT", default="", help="one line the client is told")


def _ids(values: Sequence[str]) -> tuple[list[int], list[int]]:
    """Change ids and proposal ids, each once (an id given twice is one change), or one line
    naming the first that is neither."""
    changes: list[int] = []
    proposals: list[int] = []
    for value in values:
        match = _ID.match(value.strip())
        if not match:
            raise InvalidInputError(f'"{value}" is not a change id', hint="a number, or pN for a proposal")
        (proposals if match.group(1) else changes).append(int(match.group(2)))
    return list(dict.fromkeys(changes)), list(dict.fromkeys(proposals))


def cmd_changes(args: argparse.Namespace, ctx: CliContext) -> int:
    action = getattr(args, "action", None)
    since = resolve_date(args.since) if getattr(args, "since", None) is not None else None
    if action is None:
        review = ctx.services.review
        complete = _read_feed(ctx, review)
        actor = given(args.actor, "--actor", left_out="every actor")
        return _list(ctx, review, actor, since, args.pending, complete=complete)
    changes, proposals = _ids(args.ids)
    review = ctx.services.review
    review.refresh()
    if action == "show":
        return _show(ctx, review, changes[0]) if changes else proposal_cli.show(ctx, proposals[0])
    if action == "reject":
        if changes:
            raise InvalidInputError("only proposals (pN) can be rejected; revert a change that was made")
        return proposal_cli.reject(ctx, proposals, args.reason)
    if action == "revert":  # an applied proposal's change is reverted as that change
        changes = list(dict.fromkeys([*changes, *proposal_cli.changes_made(ctx, proposals)]))
        proposals = []
    waiting = proposal_cli.waiting(ctx, proposals)  # every id is checked before anything is done
    review_actions.waiting(review, changes)
    code = 0
    if action == "accept":
        marked = review_actions.accept(review, changes)
        code = proposal_cli.accept(ctx, waiting)
        asked, along = [i for i in marked if i in changes], [i for i in marked if i not in changes]
        with_it = (
            f" (and {len(along):,} that went with {'it' if len(asked) == 1 else 'them'})" if along else ""
        )
        if marked:
            ctx.emit({"accepted": asked, "with_it": along}) if ctx.json else ctx.out(
                f"Marked {_count(asked)} reviewed{with_it}."
            )
        return code
    return _revert(ctx, review, changes)


def _read_feed(ctx: CliContext, review: Review) -> bool:
    """Record the feed's new changes, and whether the listing will hold them all.

    Recording them is a write, yet listing is a read, which a profile that cannot be written
    allows: there the changes recorded before are listed, and one line says that the changes
    since are left out, only when some change since is not the person's (else none is)."""
    try:
        review.refresh()
    except (FolderNotWritableError, DatabaseReadOnlyError, DiskFullError) as fault:
        if review.store.first_change_not_by(review.rows.cursor(), PERSON_ACTORS) is None:
            return True
        ctx.error(f"the changes made since the last listing are not listed: {fault}")
        return False
    return True


def _count(ids: Sequence[int]) -> str:
    return "1 change" if len(ids) == 1 else f"{len(ids)} changes"


def _list(
    ctx: CliContext, review: Review, actor: str | None, since: int | None, pending: bool, *, complete: bool
) -> int:
    entries = [] if pending else review.pending(actor=actor, since=since, along=False)
    along = dict((e.id, a) for e, a in folded(review, entries))  # what came with each, under it
    waiting = [p for p in review.rows.proposals(client=actor) if since is None or p.time >= since]
    folders = {f.id: f.title for f in review.store.list_folders(include_trashed=True)}
    if ctx.json:
        listed = [proposal_cli.as_json(p) for p in waiting]
        listed += [_json(e, folders) | {"with_it": [_json(a, folders) for a in along[e.id]]} for e in entries]
        ctx.emit(listed)
        return 0
    if not entries and not waiting:
        ctx.out("Nothing to review." if complete else "Nothing recorded to review.")
        return 0
    proposal_cli.list_lines(ctx, waiting)
    for note_id, group in _by_note(entries):
        first = group[0]
        if review_items.kind_of(first) == "note":
            ctx.line(f'"{first.title}" ({folders.get(first.folder_id, "?")})  {note_id}')
        else:
            ctx.line(f"{review_items.label(first)}  {note_id}")
        for e in group:
            ctx.line(f"  {e.id:>7}  {local_time(e.last_time)}  {e.actor:<22}  {summary(e, folders)}")
            for a in along[e.id]:
                ctx.out(f"  {'':>7}  ↳ {a.id}  {along_line(a, folders)}")
    told = [f"{plural(len(entries), 'change')} to review"] if entries else []
    if came := sum(len(a) for a in along.values()):
        told[-1] += f" (and {came:,} that went with {'it' if len(entries) == 1 else 'them'}: ↳)"
    told += [f"{plural(len(waiting), 'proposal')} waiting"] if waiting else []
    then = "`revert ID…`" if entries else "`reject pN…`"
    gap = "\n" if entries else ""  # (the proposals' lines end in a blank line of their own)
    ctx.out(f"{gap}{' and '.join(told)}: `noted changes show ID`, `accept ID…`, {then}.")
    return 0


def _by_note(entries: Sequence[EntryRow]) -> list[tuple[str, list[EntryRow]]]:
    """Entries grouped by note, the notes ordered by their newest entry."""
    groups: dict[str, list[EntryRow]] = {}
    for entry in entries:
        groups.setdefault(entry.note_id, []).append(entry)
    return list(groups.items())


def _json(entry: EntryRow, folders: dict[str, str]) -> dict[str, object]:
    kind = review_items.kind_of(entry)
    return {
        "id": entry.id,
        "kind": kind,
        "item_id": entry.note_id,
        "note_id": entry.note_id if kind == "note" else "",
        "title": entry.title,
        "notebook": folders.get(entry.folder_id, ""),
        "actor": entry.actor,
        "first_time": entry.first_time,
        "time": entry.last_time,
        "state": entry.state.value,
        "summary": summary(entry, folders),
        "detail": entry.detail,
    }


def _show(ctx: CliContext, review: Review, entry_id: int) -> int:
    diff = review_actions.show(review, entry_id)
    folders = {f.id: f.title for f in review.store.list_folders(include_trashed=True)}
    if ctx.json:
        ctx.emit(_json(diff.entry, folders) | {"diff": diff.text})
        return 0
    e = diff.entry
    ctx.line(
        f"change {e.id} · {review_items.label(e)} · {e.actor} · {local_time(e.last_time)} · {e.state.value}"
    )
    ctx.line(summary(e, folders))
    ctx.out()
    ctx.out(diff.text.rstrip("\n"))
    return 0


def _revert(ctx: CliContext, review: Review, entry_ids: Sequence[int]) -> int:
    code = ExitCode.OK
    along: list[int] = []
    for reverted in review_actions.revert_together(review, entry_ids):  # all refused, or in order
        entry_id, what = reverted.entry.id, review_items.label(reverted.entry)
        along += reverted.along
        if reverted.kept:  # changed again since: what was changed after stays, as with the text
            code = ExitCode.CONFLICT
            kept = "; ".join(reverted.kept)
            ctx.out(f"Change {entry_id}: {what} changed since; {kept}.") if not ctx.json else None
        if reverted.conflict is None:
            with_it = f" (and {len(reverted.along):,} that went with it)" if reverted.along else ""
            ctx.out(f"Reverted change {entry_id} of {what}{with_it}.") if not ctx.json else None
            continue
        settled, stayed = review_actions.settle(review, entry_id, reverted.conflict, Choice.KEEP_BOTH)
        code = ExitCode.CONFLICT
        for line in stayed if not ctx.json else ():
            ctx.out(f"Change {entry_id}: {line}.")
        if not ctx.json:
            ctx.out(
                f'Change {entry_id}: "{reverted.entry.title}" changed since; kept both: '
                f'the text before the change is in "{settled.copy.title if settled.copy else "?"}".'
            )
    if ctx.json:
        ctx.emit({"reverted": list(entry_ids), "with_it": along, "kept_both": code == ExitCode.CONFLICT})
    return int(code)
