"""Relative links that keep leading where they did when the note that holds them moves.

``rebased`` rewrites a moved note's relative Markdown and HTML links to files and notes (see its
docstring); ``noted.store.vault.base.VaultCore.rebase`` and a note's move call it. ``redirected``
makes the links to one file lead to another.
"""

from __future__ import annotations

import posixpath
from urllib.parse import quote

from noted.markdown import LinkSpan, link_spans, replace_spans
from noted.store.vault.attachments import md_path
from noted.store.vault.files import Vault
from noted.store.vault.trash import links_from


def rebased(vault: Vault, body: str, old_rel: str, new_rel: str, *, moving: str = "") -> str:
    """``body`` of a note whose file moves from ``old_rel`` to ``new_rel``, each relative Markdown
    or HTML link that led from the old folder to a file (a note, an image) made to lead there
    from the new one; links into ``moving`` (a folder moved with the note) are left alone, as
    are links from the root, wiki links (found by name) and URLs.

    A link out of the old folder (``../Secret/plan.md``) can only be read from it, so it is
    made to lead to the same path whether or not a file is there: whether it was rewritten must
    not tell a caller limited to some notebooks that a file outside them exists. A link into
    the old folder is rewritten only when its file is there (else it may be read from the root)."""
    old, new = old_rel.rpartition("/")[0], new_rel.rpartition("/")[0]
    if old == new or "](" not in body and "=" not in body and "]:" not in body:
        return body

    def led_to(target: str) -> str:
        path = md_path(target)
        led = posixpath.normpath(posixpath.join(old, path)) if path and not path.startswith("/") else ""
        if not led or led in (".", "..") or led.startswith("../"):
            return ""
        if moving and f"{led}/".startswith(f"{moving}/"):
            return ""
        leaves = posixpath.relpath(led, old or ".").startswith("../")
        return led if leaves or vault.state(led) is not None else ""

    leads = {span.start: led for span in link_spans(body, in_code=True) if (led := led_to(span.target))}
    return _relinked(body, leads, new) if leads else body  # (the parse finding code is the costly part)


def redirected(body: str, note_rel: str, old: str, new: str) -> str:
    """``body`` of the note ``note_rel`` with each relative Markdown or HTML link to the file
    ``old`` made to lead to ``new`` (a note a batch planned at ``old``, made at ``new``)."""
    folder = links_from(note_rel).rpartition("/")[0]
    leads = {
        span.start: new
        for span in link_spans(body)
        if (path := md_path(span.target)) and posixpath.normpath(posixpath.join(folder, path)) == old
    }
    return _relinked(body, leads, folder) if leads else body


def _relinked(body: str, leads: dict[int, str], folder: str) -> str:
    """``body`` with each link starting at a key of ``leads`` made to lead to its value from
    ``folder``, written as it was (bracketed, escaped, its anchor kept)."""
    replacements: list[tuple[LinkSpan, str]] = []
    for span in link_spans(body):
        there = leads.get(span.start)
        if there is None:
            continue
        moved = posixpath.relpath(there, folder or ".")
        raw = span.target.strip()
        bracketed = raw.startswith("<") and raw.endswith(">")
        raw = raw.removeprefix("<").removesuffix(">") if bracketed else raw
        cut = min((i for i in (raw.find("#"), raw.find("?")) if i >= 0), default=len(raw))
        written = moved if bracketed or "%" not in raw[:cut] else quote(moved, safe="/")
        if not bracketed:
            written = written.replace(" ", "%20")
        replacements.append((span, ("<{}>" if bracketed else "{}").format(written + raw[cut:])))
    return replace_spans(body, replacements)
