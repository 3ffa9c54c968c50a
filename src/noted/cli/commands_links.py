"""``noted links NOTE``: a note's links, backlinks and attachments; ``noted vault status``: the Markdown folder.

noted links "Weekly review"            # → outgoing, ← backlinks, ✗ links that lead nowhere, 📎 attachments
noted --json links 3f2a                # the note_links tool's answer
noted --vault ~/notes vault status     # the folder, its notes, and the files it skips and why
"""

from __future__ import annotations

import argparse

from noted.cli.args import Commands
from noted.cli.context import CliContext
from noted.errors import InvalidInputError
from noted.ops.links import link_payload, note_links
from noted.ops.resolve import resolve_note
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.wording import plural


def register(sub: Commands) -> None:
    """Add ``noted links`` and ``noted vault status``."""
    p = sub.add(
        "links",
        cmd_links,
        "Show a note's links, its backlinks, the links that lead nowhere and its attachments.",
    )
    p.add_argument("note", help="id, id prefix (4+ hex digits) or exact title")
    p = sub.add("vault", cmd_vault, "The Markdown folder this profile works on (backend vault).")
    p.add_argument("action", choices=["status"], help="status: the folder, its notes and what it skips")


def cmd_links(args: argparse.Namespace, ctx: CliContext) -> int:
    services = ctx.services
    note = resolve_note(services.store, args.note)
    links = note_links(
        services.store, services.keyword, note.id, part_chars=services.settings.get(LARGE_NOTE_CHARS)
    )
    if ctx.json:
        ctx.emit(link_payload(links))
        return 0
    ctx.line(f"{links.note.title}  ({links.note.id})")
    for link in links.outgoing:
        where = f"{link.title}" + (f" § {link.heading}" if link.heading else "")
        ctx.line(f"  ✗ {link.target}: {link.broken}" if link.broken else f"  → {where}  ({link.note_id})")
    for back in links.backlinks:
        ctx.line(f"  ← {back.title}  ({back.note_id})")
    for file in links.attachments:
        ctx.line(f"  📎 {file.filename or file.title}  ({file.id})  {file.mime}, {plural(file.size, 'byte')}")
    if not links.outgoing and not links.backlinks and not links.attachments:
        ctx.out("  no links to or from this note")
    return 0


def cmd_vault(args: argparse.Namespace, ctx: CliContext) -> int:
    status = ctx.services.vault_status()
    if status is None:
        raise InvalidInputError(
            "this profile keeps its notes in a database, not in a Markdown folder",
            hint="noted --vault DIR vault status, or noted config set backend vault",
        )
    if ctx.json:
        ctx.emit(
            {
                "root": status.root,
                "notes": status.notes,
                "notebooks": status.notebooks,
                "skipped": [{"path": p, "reason": r} for p, r in status.skipped],
                "front_matter_unread": [{"path": p, "problem": r} for p, r in status.unread_front],
                "times_ignored": [{"path": p, "problem": r} for p, r in status.ignored_times],
            }
        )
        return 0
    ctx.out(f"Markdown folder: {status.root}")
    ctx.out(f"{plural(status.notes, 'note')} in {plural(status.notebooks, 'notebook')}")
    if status.skipped:
        ctx.out(f"{plural(len(status.skipped), 'file')} skipped (read, never written):")
        for path, reason in status.skipped:
            ctx.out(f"  {path}: {reason}")
    problems = (
        (status.unread_front, "note", "whose front matter is not YAML noted can read"
         " (their title, tags and to-do are not read from it; correct it in the file):"),
        (status.ignored_times, "time", "in front matter that noted ignores"
         " (the rest of the note is read; correct it in the file):"),
    )  # fmt: skip
    for found, what, heading in problems:
        if found:
            ctx.out(f"{plural(len(found), what)} {heading}")
            for path, problem in found:
                ctx.out(f"  {path}: {problem}")
    return 0
