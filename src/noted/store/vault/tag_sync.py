"""A note's tags in the mirror made those its file says, and the tags no file carries dropped."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from noted.models import Tag
from noted.store.sqlite.tags import Tags

if TYPE_CHECKING:
    from noted.store.vault.base import VaultCore


def sync_tags(store: VaultCore, note_id: str, wanted: list[str], actor: str) -> list[Tag]:
    """The mirror's tags of the note made ``wanted`` (compared without case)."""
    have = {t.title.casefold(): t.title for t in store.mirror.note_tags(note_id)}
    want = {t.casefold() for t in wanted}
    extra = [title for key, title in have.items() if key not in want]
    if extra:
        store.mirror.untag_note(note_id, extra, actor=actor)
        drop_bare_tags(store, extra, actor)
    missing = [t for t in wanted if t.casefold() not in have]
    if missing:
        store.mirror.tag_note(note_id, missing, actor=actor)
    return store.mirror.note_tags(note_id)


def drop_bare_tags(store: VaultCore, titles: Iterable[str], actor: str) -> None:
    """Tags of ``titles`` that no note carries (in the trash or out) leave the mirror: a tag of a
    folder lives in its files, so one that no file carries is listed nowhere (``noted tags``)."""
    mirror = store.mirror
    for title in titles:
        tag = mirror.find_tag(title)
        if tag is not None and not any(mirror.count_notes(tag_id=tag.id, trashed=t) for t in (False, True)):
            Tags(mirror.db).delete_tag(tag.id, actor=actor, bare=True)  # not the actor's change
