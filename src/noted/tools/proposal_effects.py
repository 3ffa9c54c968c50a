"""What a proposal on a note saw, what the person changed since, and what accepting it does.

``noted.tools.proposals.propose`` keeps, beside a write's arguments, the parts of the note it may
change as they were when it was proposed (``seen``: notebook, tags, trash, to-do state; the text is
kept as ``base``). Accepting applies it on that state only: ``overwritten`` names what the person
changed since that the write would overwrite (the lines of the title or body it changes, the
notebook it moves the note from, the to-do state it sets), and any such is a conflict, nothing
written; a text changed since on other lines is merged (``accepted_text``: the one rule of a write
that waited, ``noted.ops.conflicts.carried_text``, as an approved chat write's). Tags are
applied as the change the client made to the tags it saw (``relative_tags``), so a tag the person
added or removed since stays so. ``effects`` says in words what accepting does to the note now,
beyond its text (the diff shows that), or what it does to a tag or an attachment (named, with the
new file's name, type and size: a file's bytes are never shown). A ``restore_note`` of a note
erased outside noted (``noted.ops.erased``) says so, and where accepting writes it again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from noted.errors import NotFoundError
from noted.models import Note, Resource
from noted.ops.conflicts import carried_text
from noted.ops.diffs import text_diff
from noted.ops.erased import ErasedNote, erased_note, last_notebook
from noted.ops.notes import revision_of
from noted.ops.review_list import applied
from noted.store.protocol import Store
from noted.store.review import ProposalRow
from noted.tools.files import decoded_size
from noted.tools.scope import Limit, Scope
from noted.wording import plural

TEXT_TOOL = "update_note"
"""The write whose proposal keeps the text it was proposed on (``detail["base"]``)."""
FILE_ARG = "content_base64"
"""The argument that carries a file's bytes (``attach_file``, ``replace_attachment``)."""
_RESTORE = "restore_note"
_TAG_CHANGES = ("rename_tag", "delete_tag")
_FILE_CHANGES = ("replace_attachment", "delete_attachment")
REPLACES_TITLE = ("title",)
REPLACES_BODY = ("body", "replace_text", "append", "prepend")
"""The ``update_note`` arguments written on the title or the body as the client read it (an append
too: it was written to follow that body, so it is made to that body and merged with a change since)."""


def seen(store: Store, note: Note) -> dict[str, Any]:
    """What of ``note`` a write may change besides its text, as the client saw it."""
    return {
        "notebook": note.parent_id,
        "tags": [t.title for t in store.note_tags(note.id)],
        "trashed": note.is_trashed,
        "todo_completed": bool(note.todo_completed),
    }


def _arguments(proposal: ProposalRow) -> Mapping[str, Any]:
    args = proposal.detail.get("arguments", {})
    return args if isinstance(args, Mapping) else {}


def accepted_text(proposal: ProposalRow, note: Note) -> tuple[str, str] | None:
    """The (title, body) accepting the ``update_note`` ``proposal`` gives ``note`` now: what it
    makes of the text it was proposed on, carried over what changed since by the one rule of a
    write that waited (``noted.ops.conflicts.carried_text``: other lines merge); None when the
    two clash. A proposal kept without its text clashes with any change of the note."""
    base = proposal.detail.get("base")
    now = (note.title, note.body)
    if not (isinstance(base, list) and len(base) == 2) or "seen" not in proposal.detail:
        return applied(proposal, now) if note.updated_time == proposal.base_updated_time else None
    if text_there(proposal, note):
        return now
    args, seen = _arguments(proposal), (str(base[0]), str(base[1]))
    title, body = applied(proposal, seen)
    text = carried_text(
        seen,
        proposal.base_updated_time,
        note,
        title if any(k in args for k in REPLACES_TITLE) else None,
        body if any(k in args for k in REPLACES_BODY) else None,
    )
    if text is None:
        return None
    return (note.title if text[0] is None else text[0], note.body if text[1] is None else text[1])


def carried_args(proposal: ProposalRow, note: Note, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` to apply the ``update_note`` ``proposal`` with on ``note`` as it is now: when the
    note changed since it was proposed, its edit of the body becomes the whole body it makes,
    merged with what changed since (``accepted_text``; a clash was refused before)."""
    if proposal.tool != TEXT_TOOL or note.updated_time == proposal.base_updated_time:
        return args
    text = accepted_text(proposal, note)
    if text is None or not any(k in args for k in REPLACES_BODY):
        return args
    return {**{k: v for k, v in args.items() if k not in REPLACES_BODY}, "body": text[1]}


def text_there(proposal: ProposalRow, note: Note) -> bool:
    """Whether ``note``'s title and body are what the ``update_note`` ``proposal`` makes of the
    text it was proposed on: an accept whose answer was lost wrote them, and accepting it again
    must not write them twice (an append would go in again). Final newlines aside: a Markdown
    folder's file keeps its own."""
    base = proposal.detail.get("base")
    if proposal.tool != TEXT_TOOL or not (isinstance(base, list) and len(base) == 2):
        return False
    title, body = applied(proposal, (str(base[0]), str(base[1])))
    return title == note.title and body.rstrip("\n") == note.body.rstrip("\n")


def overwritten(store: Store, proposal: ProposalRow, note: Note) -> list[str]:
    """What the person changed since ``proposal`` was made that accepting it would overwrite;
    [] when it can be applied. A proposal kept without ``seen``: the note changing at all counts."""
    saw = proposal.detail.get("seen")
    if not isinstance(saw, Mapping):
        return ["the note"] if note.updated_time != proposal.base_updated_time else []
    if proposal.tool != TEXT_TOOL:
        return []  # the other note writes add, remove, trash or restore: they overwrite nothing
    args, found = _arguments(proposal), []
    if accepted_text(proposal, note) is None:
        found.append("its text")
    if "notebook_id" in args and note.parent_id not in (saw.get("notebook"), args["notebook_id"]):
        found.append("its notebook")
    done = bool(note.todo_completed)
    if "todo_completed" in args and done not in (saw.get("todo_completed"), bool(args["todo_completed"])):
        found.append("its to-do state")
    return found


def relative_tags(proposed: Sequence[str], saw: Sequence[str], now: Sequence[str]) -> list[str]:
    """The tags ``now`` with the change from ``saw`` to ``proposed`` made to them: the tags the
    proposal added are added, those it took off are taken off, the rest stay as they are now."""
    saw_keys = {t.casefold() for t in saw}
    wanted = {t.strip().casefold(): t.strip() for t in proposed}
    removed = saw_keys - set(wanted)
    kept = [t for t in now if t.casefold() not in removed]
    have = {t.casefold() for t in kept}
    return kept + [t for key, t in wanted.items() if key not in saw_keys and key not in have]


def tags_for(store: Store, proposal: ProposalRow, note_id: str) -> list[str] | None:
    """The ``tags`` argument to apply ``proposal`` with now: relative to the tags it saw; None when
    it sets no tags (or was kept without what it saw: its list is applied as it is)."""
    args, saw = _arguments(proposal), proposal.detail.get("seen")
    if "tags" not in args or not isinstance(saw, Mapping):
        return None
    now = [t.title for t in store.note_tags(note_id)]
    return relative_tags([str(t) for t in args["tags"]], list(saw.get("tags", [])), now)


def scope_of(detail: Mapping[str, Any]) -> Scope:
    """The scope a proposal was made in (kept with it by ``noted.tools.proposals.propose``)."""
    return Scope(tuple(Limit(frozenset(ids), source) for ids, source in detail.get("scope", [])))


def effects(store: Store, proposal: ProposalRow) -> list[str]:
    """What accepting ``proposal`` does to its note now beyond the text, one line each; or what
    it does to a tag or an attachment."""
    if proposal.tool in _TAG_CHANGES:
        return _tag_change(store, proposal)
    if proposal.tool in _FILE_CHANGES:
        return _file_change(store, proposal)
    if not proposal.note_id:
        return []
    try:
        note = store.get_note(proposal.note_id)
    except NotFoundError:
        return _erased_lines(store, proposal)
    args, lines = _arguments(proposal), []
    now = [t.title for t in store.note_tags(note.id)]
    if proposal.tool == TEXT_TOOL:
        if "notebook_id" in args and args["notebook_id"] != note.parent_id:
            lines.append(
                f'Moves it from "{_folder(store, note.parent_id)}" to "{_folder(store, args["notebook_id"])}".'
            )
        if "todo_completed" in args and bool(args["todo_completed"]) != bool(note.todo_completed):
            lines.append("Marks the to-do done." if args["todo_completed"] else "Marks the to-do not done.")
        after = tags_for(store, proposal, note.id)
        if after is None and "tags" in args:
            after = [str(t) for t in args["tags"]]
        lines += _tag_lines(now, after if after is not None else now)
    elif proposal.tool == "manage_tags":
        gone = {str(t).strip().casefold() for t in args.get("remove", [])}
        added = [str(t).strip() for t in args.get("add", [])]
        after = [t for t in now if t.casefold() not in gone]
        lines += _tag_lines(
            now, after + [t for t in added if t.casefold() not in {a.casefold() for a in after}]
        )
    elif proposal.tool == "attach_file":
        lines.append(f"Attaches the file {_new_file(args, None)} to it.")
    elif proposal.tool == "delete_note" and not note.is_trashed:
        lines.append("Moves it to the trash.")
    elif proposal.tool == _RESTORE and note.is_trashed:
        lines.append("Brings it back from the trash.")
    if note.is_trashed and proposal.tool != _RESTORE:
        lines.append("The note is in the trash now: restore it to accept this.")
    return lines


def erased_seen(note: ErasedNote) -> dict[str, Any]:
    """What a proposal made on a note erased outside noted keeps of it (``seen``)."""
    return {"notebook": note.notebook, "erased": True}


def erased(store: Store, proposal: ProposalRow) -> ErasedNote | None:
    """The note a ``restore_note`` ``proposal`` writes again: one erased outside noted whose
    revisions are kept (``noted.ops.erased``); None for any other proposal, or a note there."""
    return erased_note(store, proposal.note_id) if proposal.tool == _RESTORE and proposal.note_id else None


def _erased_lines(store: Store, proposal: ProposalRow) -> list[str]:
    """What accepting a proposal on a note that is not there does: nothing, or, for ``restore_note``
    on an erased note, write it again where ``noted.ops.notes.restore_revision`` puts it (a client
    in a scope is refused the Inbox, maybe outside its notebooks, as its tool is)."""
    gone = erased(store, proposal)
    if gone is None:
        return ["Its note was deleted for good: it cannot be applied."]
    head = "The note was erased outside noted (noted kept its revisions): accepting writes it again"
    where = last_notebook(store, gone.id)
    if where == gone.notebook or scope_of(proposal.detail).view(store).unrestricted:
        place = f'"{_folder(store, where)}"' if where else "the Inbox (its notebook is gone)"
        return [f"{head}, as its newest revision, with its id, in {place}."]
    return [
        "The note was erased outside noted, and the notebook it was last in is in the trash: "
        "restore that notebook to accept this."
    ]


def _tag_change(store: Store, proposal: ProposalRow) -> list[str]:
    """The tag a ``rename_tag`` or ``delete_tag`` proposal changes and the notes it changes, as
    the tool would now: in a scope, only the notes the client sees (trashed ones too) move to the
    new title or lose the tag, and the tag itself stays as it is for the notes elsewhere."""
    args = _arguments(proposal)
    try:
        tag = store.get_tag(str(args.get("id", "")))
    except NotFoundError:
        return ["The tag was deleted since: accepting it does nothing."]
    scope = scope_of(proposal.detail).view(store)
    carried = [
        n
        for n in [*store.list_notes(tag_id=tag.id), *store.list_notes(tag_id=tag.id, trashed=True)]
        if scope.allows_note(n)
    ]
    count = plural(len(carried), "note") if carried else "no note"
    title = str(args.get("title", "")).strip()
    if proposal.tool == "rename_tag" and scope.unrestricted:
        head = f'Renames the tag "{tag.title}" to "{title}"; it is on {count} now'
    elif proposal.tool == "rename_tag" and title.casefold() == tag.title.casefold():
        return [
            f'Changes nothing: only the case of "{tag.title}" would change, and notes elsewhere carry it too.'
        ]
    elif proposal.tool == "rename_tag":
        head = (
            f'Moves {count} in the client\'s notebooks from the tag "{tag.title}" to "{title}" (notes '
            f'elsewhere keep "{tag.title}")'
        )
    elif scope.unrestricted:
        head = f'Deletes the tag "{tag.title}", which is on {count} now'
    else:
        head = f'Takes the tag "{tag.title}" off {count} in the client\'s notebooks (notes elsewhere keep it)'
    titles = [f'  "{n.title}"' + (" (in the trash)" if n.deleted_time else "") for n in carried]
    return [f"{head}:", *titles] if carried else [f"{head}."]


def _file_change(store: Store, proposal: ProposalRow) -> list[str]:
    """The attachment a ``replace_attachment`` or ``delete_attachment`` proposal changes, named
    by its title and file, and the new file (name, type, size), never its bytes."""
    args = _arguments(proposal)
    try:
        old = store.get_resource(str(args.get("id", "")))
    except NotFoundError:
        return ["The attachment was deleted since: it cannot be applied."]
    name = f'the attachment "{old.title or old.filename}" ({_file(old.filename, old.mime, old.size)})'
    if proposal.tool == "delete_attachment":
        return [f"Deletes {name}; its file is kept as a version, and links to it in notes stay as text."]
    lines = [f"Puts the file {_new_file(args, old)} in place of {name}; the old file is kept as a version."]
    if "title" in args and str(args["title"]).strip() != old.title:
        lines.append(f'Retitles it "{str(args["title"]).strip()}".')
    return lines


def _new_file(args: Mapping[str, Any], old: Resource | None) -> str:
    """The file a proposal's ``content_base64`` (with its ``filename`` and ``mime``) makes."""
    name = str(args.get("filename", old.filename if old else "")) or "(no name)"
    mime = str(args.get("mime", old.mime if old else ""))
    return f'"{name}" ({_file("", mime, decoded_size(str(args.get(FILE_ARG, ""))))})'


def _file(name: str, mime: str, size: int) -> str:
    return ", ".join(part for part in (name, mime, plural(size, "byte")) if part)


def _tag_lines(before: Sequence[str], after: Sequence[str]) -> list[str]:
    had, has = {t.casefold() for t in before}, {t.casefold() for t in after}
    added = [t for t in after if t.casefold() not in had]
    removed = [t for t in before if t.casefold() not in has]
    return ([f"Adds the tags: {', '.join(added)}."] if added else []) + (
        [f"Removes the tags: {', '.join(removed)}."] if removed else []
    )


def _folder(store: Store, folder_id: object) -> str:
    try:
        return store.get_folder(str(folder_id)).title
    except NotFoundError:
        return "?"


def args_text(proposal: ProposalRow) -> str:
    """The proposal's arguments, for a person to read: a file's base64 by its size alone."""
    args = dict(_arguments(proposal))
    if isinstance(args.get(FILE_ARG), str):
        args[FILE_ARG] = f"({plural(decoded_size(args[FILE_ARG]), 'byte')} of file, not shown)"
    return json.dumps(args, ensure_ascii=False, indent=2)


def preview(store: Store, proposal: ProposalRow) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """The note's (title, body) now and as the proposal would leave it, for the text-changing
    proposals (``create_note``, ``update_note``: the text as it is where it is there already, as
    ``noted.tools.proposals.apply`` leaves it; ``restore_note`` of an erased note: its newest
    revision's); None for the others (their arguments say it)."""
    args = proposal.detail.get("arguments", {})
    if proposal.tool == "create_note":
        return ("", ""), (str(args.get("title", "")), str(args.get("body", "")))
    if (gone := erased(store, proposal)) is not None:  # written again as its newest revision
        newest = store.note_history(gone.id, bodies=False)[0]
        revision = revision_of(store, gone.id, newest.id)
        return ("", ""), (revision.title, revision.body)
    if proposal.tool != TEXT_TOOL or not proposal.note_id:
        return None
    try:
        note = store.get_note(proposal.note_id)
    except NotFoundError:
        return None
    now = (note.title, note.body)
    return now, accepted_text(proposal, note) or applied(proposal, now)


def what_it_does(store: Store, proposal: ProposalRow) -> str:
    """Every part of what accepting ``proposal`` does to its note now, for a person to read: its
    move, tags, trash and to-do state (``effects``), then the diff of its text; a
    proposal on no note's text, its arguments."""
    lines = effects(store, proposal)
    said = "".join(f"{line}\n" for line in lines)
    found = preview(store, proposal)
    if found is None:
        return said + ("\n" if said else "") + args_text(proposal) + "\n"
    before, after = found
    if before == after and said:
        return said
    return said + ("\n" if said else "") + text_diff(before, after, ("now", f"p{proposal.id}"))
