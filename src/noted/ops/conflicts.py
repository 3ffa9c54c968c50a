"""A save that met a note changed since it was opened, and the three ways out that lose nothing.

Every front end (the app's editor, ``$EDITOR`` from the app, ``noted edit``) that gets a
``ConflictError`` builds a ``Conflict`` from what the person started from, what they wrote and the
note as it is now, shows ``diffs`` and then calls ``resolve`` with the person's choice:

- ``KEEP_BOTH`` (the default): the note keeps the other version; the person's text becomes a
  *conflict copy*, a new note in the same notebook whose title says so and whose first line links
  to the original (Joplin keeps its conflict notes the same way, as separate notes).
- ``THEIRS``: the note keeps the other version, and the person's text is saved as a revision of
  it first (``noted history`` shows and restores it).
- ``OVERWRITE``: the person's text replaces the other version, which stays as its own revision.
- ``MERGE``: a text the person merged from both (``merged``, begun from ``merge_text``) replaces the
  other version; the person's text is saved as a revision first, so both sides stay in the history.

A write that waited for review (a proposal) meeting a note changed since it was proposed is settled
the same way (``noted.tools.proposal_sides``): the proposal is the person's side, its text written
as its client (``mine_actor``), and ``base`` the version it was proposed on, a third side.

Each save is based on the version the person was shown, so a third change arriving meanwhile is
a new ``ConflictError`` rather than a silent loss. Every save is the person's (its actor stays
theirs, so it is not put up for review); its revision's label says which side it holds and
whether that text was taken or set aside: ``MINE_SET_ASIDE``, ``MINE_TAKEN``, ``theirs_taken``,
``MERGED``, ``COPY``.

A conflict that Joplin's sync made (a conflict copy of its own) is settled through the store's
``SyncConflicts`` capability by ``settle_sync_conflict``.
"""

from __future__ import annotations

import datetime as dt
import difflib
import enum
from dataclasses import dataclass

import merge3

from noted.errors import NotFoundError
from noted.models import Note, NoteDraft, NotePatch, now_ms
from noted.ops.diffs import DIFF_CONTEXT, text_diff
from noted.ops.notes import top_level_notebook_made
from noted.store.protocol import Store
from noted.store.revisions import COPY, copy_title, labelled
from noted.store.sync import SyncConflicts

CONFLICTS = "Conflicts"
"""The notebook that takes a conflict copy whose note's notebook went meanwhile (as Joplin's does)."""
MINE_SET_ASIDE = "yours, set aside"
"""The label of the revision holding the person's side of a conflict settled with the other side
or a merge: the newer revision holds the text taken, this one keeps the person's."""
MINE_TAKEN = "yours, taken"
"""The label of the revision of the person's side made current over the other (*Overwrite*)."""
MERGED = "merged"
"""The label of the revision that a merge of both sides made current."""
IN_TRASH = " The note stays in the trash."
"""Said after a choice that leaves the person's text in (the history of) a note in the trash; the
front end adds how to restore it."""


def theirs_taken(store: Store, note_id: str) -> str:
    """The label of the revision that puts the other side back: whose it was, as its newest
    revision says (another window's or device's save is ``user`` too, a sync's ``sync``)."""
    newest = store.note_history(note_id, bodies=False)[:1]
    return f"theirs by {newest[0].actor}, taken" if newest else "theirs, taken"


class Choice(enum.StrEnum):
    """How the person settles a conflict (``BACK`` leaves it open: the text stays in the editor)."""

    KEEP_BOTH = "keep-both"
    THEIRS = "theirs"
    OVERWRITE = "overwrite"
    MERGE = "merge"
    BACK = "back"


@dataclass(frozen=True, slots=True)
class Conflict:
    """A save refused because the note changed since the person opened it.

    Attributes:
        base: The note as the person opened it.
        title: The person's title.
        body: The person's text.
        theirs: The note as it is now (changed by someone else; trashed, if ``theirs.is_trashed``).
        copied: What the person's side is and why it was not saved, as a conflict copy's first
            line says it ('': a text being edited while the note changed elsewhere); a revert's
            and a proposal's say theirs.
    """

    base: Note
    title: str
    body: str
    theirs: Note
    copied: str = ""

    @classmethod
    def read(cls, store: Store, base: Note, title: str, body: str) -> Conflict:
        """The conflict of saving ``title``/``body`` over ``base``, with the note as it is now.

        Raises:
            NotFoundError: the note was deleted for good (``keep_copy`` still saves the text).
        """
        return cls(base, title, body, store.get_note(base.id))

    @property
    def settled(self) -> bool:
        """True when both sides hold the same text (the person merged by hand): nothing to choose."""
        return (self.theirs.title, self.theirs.body) == (self.title, self.body) and not self.theirs.is_trashed

    def diffs(
        self, names: tuple[str, str, str] = ("as you opened it", "elsewhere", "yours")
    ) -> tuple[str, str]:
        """What changed elsewhere and what the person changed, each a unified diff against ``base``
        (``names``: of the base, the other side and the person's, for the diffs' headers)."""
        base = (self.base.title, self.base.body)
        theirs = text_diff(base, (self.theirs.title, self.theirs.body), names[:2], DIFF_CONTEXT)
        mine = text_diff(base, (self.title, self.body), (names[0], names[2]), DIFF_CONTEXT)
        return theirs, mine

    def merge_text(
        self, names: tuple[str, str, str] = ("as you opened it", "elsewhere", "yours")
    ) -> tuple[str, int]:
        """Both sides merged line by line against ``base``, the title as a ``# `` first line, and
        how many places clash: each clash is shown diff3-style, the other side's lines, then
        ``base``'s, then the person's, between markers named by ``names``."""
        lines = [_titled(self.base), _titled(self.theirs), f"# {self.title}\n{self.body}"]
        base, theirs, mine = (text.splitlines(keepends=True) for text in lines)
        merge = merge3.Merge3(base, theirs, mine)
        clashes = sum(1 for region in merge.merge_regions() if region[0] == "conflict")
        merged = list(
            merge.merge_lines(name_a=names[1], name_b=names[2], name_base=names[0], base_marker="|||||||")
        )
        # A side's last line without a newline ends its line when something follows it (a clash
        # marker, the other side's lines), rather than being glued to it.
        return "".join(_ended(line) for line in merged[:-1]) + "".join(merged[-1:]), clashes


@dataclass(frozen=True, slots=True)
class Resolved:
    """What ``resolve`` did.

    Attributes:
        choice: The choice carried out.
        note: The note as it is now.
        copy: The conflict copy (``KEEP_BOTH``), else None.
        message: One sentence for the person, naming where each side is.
    """

    choice: Choice
    note: Note
    copy: Note | None
    message: str


def resolve(
    store: Store,
    conflict: Conflict,
    choice: Choice,
    *,
    actor: str,
    mine_actor: str | None = None,
    merged: tuple[str, str] | None = None,
) -> Resolved:
    """Carry out ``choice`` (not ``BACK``); ``merged`` is the (title, body) of a ``MERGE``.

    ``mine_actor``: who the person's side is written as (a proposal's client), ``actor`` if None.

    Raises:
        ConflictError: the note changed again since ``conflict.theirs`` was read; nothing of the
            person's text was lost (``THEIRS`` may have saved it as a revision already).
        ValueError: ``choice`` is ``BACK``, or ``MERGE`` without ``merged``.
    """
    mine_actor = mine_actor or actor
    trashed = conflict.theirs.is_trashed
    if choice is Choice.KEEP_BOTH:
        copy = keep_copy(
            store,
            conflict.base,
            conflict.title,
            conflict.body,
            actor=mine_actor,
            trashed=trashed,
            why=conflict.copied,
        )
        where = "in its notebook" if trashed else "beside the note"
        if copy.parent_id != conflict.theirs.parent_id:  # its notebook went: in the conflicts one
            where = f'in the notebook "{store.get_folder(copy.parent_id).title}"'
        where += "; the note stays in the trash" if trashed else ""
        return Resolved(choice, conflict.theirs, copy, f'Kept both: your text is in "{copy.title}", {where}.')
    if choice is Choice.THEIRS:
        note = _save_then(store, conflict, (conflict.theirs.title, conflict.theirs.body), actor, mine_actor)
        message = "Took the other version; yours is in the note's history."
        return Resolved(choice, note, None, message + IN_TRASH if note.is_trashed else message)
    if choice is Choice.OVERWRITE:
        with labelled(MINE_TAKEN):
            note = store.update_note(
                conflict.base.id,
                NotePatch(title=conflict.title, body=conflict.body),
                actor=mine_actor,
                base_updated_time=conflict.theirs.updated_time,
            )
        message = "Saved yours; the other version is in the note's history."
        return Resolved(choice, note, None, message + IN_TRASH if note.is_trashed else message)
    if choice is Choice.MERGE and merged is not None:
        note = _save_then(store, conflict, merged, actor, mine_actor)
        return Resolved(choice, note, None, "Saved the merge; both sides are in the note's history.")
    raise ValueError("going back to editing (or a merge without its text) resolves nothing")


def settle_sync_conflict(copies: SyncConflicts, copy_id: str, title: str, body: str, *, actor: str) -> Note:
    """Give the note of sync conflict copy ``copy_id`` the text ``title``/``body`` and erase the
    copy; the text of each side is kept in the note's history first."""
    return copies.resolve_sync_conflict(copy_id, title, body, actor=actor)


def _save_then(store: Store, conflict: Conflict, final: tuple[str, str], actor: str, mine_actor: str) -> Note:
    """Save the person's text (as ``mine_actor``), then ``final`` (theirs, or a merge, as
    ``actor``): both are revisions, ``final`` is current.

    One transaction where the store has them, so readers never see the person's text as current.
    """
    theirs = conflict.theirs
    label = MERGED if final != (theirs.title, theirs.body) else theirs_taken(store, theirs.id)
    with store.batch():
        with labelled(MINE_SET_ASIDE):
            mine = store.update_note(
                theirs.id,
                NotePatch(title=conflict.title, body=conflict.body),
                actor=mine_actor,
                base_updated_time=theirs.updated_time,
            )
        if (mine.title, mine.body) == final:
            return mine  # the same text on both sides: nothing to put back
        with labelled(label):
            return store.update_note(
                theirs.id,
                NotePatch(title=final[0], body=final[1]),
                actor=actor,
                base_updated_time=mine.updated_time,
            )


def copy_body(
    original: Note, body: str, when: int, *, gone: bool = False, trashed: bool = False, why: str = ""
) -> str:
    """The body of a conflict copy: a line saying why it exists, then the person's text.

    ``gone``: the note was deleted for good meanwhile, so the line names it without a link (a link
    to it would lead nowhere) and there is nothing to merge with. ``trashed``: it was moved to
    the trash meanwhile (the line says so, and links to it). ``why``: what the text is and why it
    was not saved (``Conflict.copied``), in place of an edit's reason.
    """
    stamp = dt.datetime.fromtimestamp(when / 1000).strftime("%Y-%m-%d %H:%M")
    if gone:
        header = (
            f'> Copy of "{original.title}", saved {stamp}: that note was deleted elsewhere while this text '
            "was being edited, so the text was kept here."
        )
    else:
        what = "moved to the trash" if trashed else "changed elsewhere"
        if why and trashed:
            why += " (the note is in the trash now)"
        why = why or f"the note was {what} while this text was being edited"
        header = (
            f"> Conflict copy of [{_link_text(original.title)}](:/{original.id}), saved {stamp}: {why}. "
            "Merge what you need, then delete this note."
        )
    return f"{header}\n\n{body}"


def keep_copy(
    store: Store,
    original: Note,
    title: str,
    body: str,
    *,
    actor: str,
    gone: bool = False,
    trashed: bool = False,
    why: str = "",
) -> Note:
    """Save ``title``/``body`` as a conflict copy of ``original``, in its notebook while that is there.

    ``gone``: ``original`` was deleted for good meanwhile; ``trashed``: moved to the trash (the
    copy's first line says which); ``why``: what the text is, for that line (``copy_body``).
    """
    when = now_ms()
    draft = NoteDraft(
        title=copy_title(title or original.title, when),
        body=copy_body(original, body, when, gone=gone, trashed=trashed, why=why),
        parent_id=_copy_folder(store, original.parent_id, actor),
    )
    with labelled(COPY):
        return store.create_note(draft, actor=actor)


def _copy_folder(store: Store, parent_id: str, actor: str) -> str:
    """``parent_id`` when it is a notebook not in the trash, else the top-level ``CONFLICTS`` one
    (one of that title in another case is it, as for the Inbox)."""
    try:
        if not store.get_folder(parent_id).is_trashed:
            return parent_id
    except NotFoundError:
        pass
    return top_level_notebook_made(store, CONFLICTS, actor)[0]


def _link_text(title: str) -> str:
    return title.replace("[", "\\[").replace("]", "\\]")


def _titled(note: Note) -> str:
    return f"# {note.title}\n{note.body}"


def _ended(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def split_titled(text: str) -> tuple[str, str]:
    """A merged text's (title, body): its first line, ``# `` taken off, and the rest."""
    first, _, body = text.partition("\n")
    return first.removeprefix("# ").strip(), body


def clean_merge(base: str, theirs: str, mine: str) -> str | None:
    """``theirs`` and ``mine``, two texts changed from ``base``, merged line by line; None when
    both change the same line differently, or add different lines at the same place (a clash
    only the person can settle). Changes on neighbouring lines merge; so does an append to a
    text without a last newline next to a change of its last line (lines are split at each
    newline, so the append adds lines rather than rewriting the last one). The final newline is
    merged apart from the lines: an editor adding or dropping it is no line of its own, which
    would clash with, or double, a blank line the other side adds at the end."""
    was, ends = base.endswith("\n"), [text.endswith("\n") for text in (theirs, mine)]
    # A side that appends without the final newline the base had ends the text: its lines go
    # after those the other side appends there, as if the other's append had come first.
    late = [was and not end and ends.count(end) == 1 for end in ends]
    lines = _lines(base)
    hunks = sorted(
        (start, end, side_late, new)
        for text, side_late in zip((theirs, mine), late, strict=True)
        for start, end, new in _hunks(lines, _lines(text))
    )
    merged: list[str] = []
    at = 0
    last: tuple[int, int, bool, list[str]] | None = None
    for hunk in hunks:
        start, end, after, new = hunk
        if last is not None and (start, end, new) == (last[0], last[1], last[3]):
            continue  # both sides made the same change
        together = last is not None and start == end == last[0] == last[1]
        if start < at or (together and not (after and start == len(lines))):
            return None
        merged += lines[at:start] + new
        at, last = end, hunk
    final = ends[0] if ends[0] != was else ends[1]  # (both sides changing it change it alike)
    return "\n".join(merged + lines[at:]) + ("\n" if final else "")


def _lines(text: str) -> list[str]:
    """The lines of ``text``, its final newline left out (``""`` and ``"\\n"``: one empty line)."""
    return text.removesuffix("\n").split("\n")


def carried(seen_body: str, seen_time: int, now: Note, text: str) -> str | None:
    """``text``, written on the note as it was at ``seen_time`` (``seen_body``), for the note as
    it is ``now``: itself when the note was not saved since, else merged line by line with what
    changed meanwhile (``clean_merge``); None when both changed the same lines. The one rule for a
    write that waited (an approved ``update_note``, the open note's edits): a change beside it is
    kept, a clash refuses it."""
    if now.updated_time == seen_time:
        return text
    return clean_merge(seen_body, now.body, text)


def carried_text(
    seen: tuple[str, str], seen_time: int, now: Note, title: str | None, body: str | None
) -> tuple[str | None, str | None] | None:
    """A write of ``title`` and ``body`` (None: left as they are) made on the note as it was at
    ``seen_time`` (``seen``: its title and body), for the note as it is ``now``: the body carried
    over what changed meanwhile (``carried``). None when the two clash: both retitled it
    differently, or both changed the same lines. The one rule for a write that waited: an
    approved chat write (``noted.chat.asked``), an accepted proposal (``noted.tools.proposal_effects``),
    a reverted change (``noted.ops.review_actions``: the text before it, written on its after)."""
    if now.updated_time == seen_time:
        return title, body
    if title is not None and now.title != seen[0] and title != now.title:
        return None
    merged = None if body is None else carried(seen[1], seen_time, now, body)
    return None if body is not None and merged is None else (title, merged)


def _hunks(base: list[str], changed: list[str]) -> list[tuple[int, int, list[str]]]:
    """What ``changed`` does to ``base``: each changed range of its lines and the lines put there."""
    matcher = difflib.SequenceMatcher(None, base, changed, autojunk=False)
    return [(i1, i2, changed[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
