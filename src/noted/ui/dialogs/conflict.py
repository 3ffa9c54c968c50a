"""``ConflictView``: a save met a note changed elsewhere; show both sides' changes and ask how to go on.

The focused choice is *Keep both* (the person's text becomes a conflict copy beside the note), so
``Enter`` never overwrites. *Take theirs* and *Overwrite* need the focus moved to them first; none
has a letter key, so a key meant for the list or the editor cannot pick one. ``Esc`` (or *Back to
editing*) dismisses with ``Choice.BACK``: the text stays in the editor, unsaved. ``Ctrl+Q`` (the
app's quit) while the view is up calls ``leave_for_quit``: the safe default, then the app quits.

``ProposalConflictView`` settles a proposal (a write that waited for review) that meets a note
changed since it was proposed, in that case's words (``Wording.proposal``): the sides are what
changed in the note and what the proposal changes, each against the version it was proposed on,
*Edit a merge* (``Choice.MERGE``) is offered (the caller opens ``noted.ui.dialogs.merge.MergeEditor``
for it) and Esc leaves the proposal waiting.

``RevertConflictView`` settles a revert (in the Changes view) that meets a note changed since the
change, in that case's words (``Wording.revert``): no editor is involved, the sides are the note
now and the text from before the change, and Esc cancels the revert.

Neither holds the person's unsaved text, so quitting from them chooses nothing (Esc's choice:
the proposal waits, nothing is reverted) and the app quits at once, saving the editor as usual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Label, Static

from noted.ops.conflicts import Choice, Conflict
from noted.ui.dialogs.over import Over
from noted.ui.widgets.key_bar import KeyBar

_BUTTONS = (
    (Choice.KEEP_BOTH, "Keep both", "primary"),
    (Choice.THEIRS, "Take theirs", "default"),
    (Choice.OVERWRITE, "Overwrite", "warning"),
    (Choice.BACK, "Back to editing", "default"),
)


@dataclass(frozen=True, slots=True)
class Wording:
    """What the view says: its title and hint, the sides' titles and the diffs' names, the buttons."""

    title: str
    hint: str
    sides: tuple[str, str] = ("Changed elsewhere", "Your changes")
    names: tuple[str, str, str] = ("as you opened it", "elsewhere", "yours")
    buttons: tuple[tuple[Choice, str, str], ...] = _BUTTONS

    @classmethod
    def save(cls, conflict: Conflict, *, quitting: bool = False) -> Wording:
        """A save that met a note changed elsewhere."""
        then = " and quit" if quitting else ""
        if conflict.theirs.is_trashed:
            return cls(
                f'"{conflict.base.title}" was moved to the trash while you edited it',
                f"Keep both{then}: your text becomes a conflict copy in the note's notebook. Take theirs: "
                "yours goes to the note's history. Overwrite: yours is saved in the note. Either way the "
                "note stays in the trash (u under Trash restores it). Esc: back to editing.",
                ("Moved to the trash", "Your changes"),
            )
        return cls(
            f'"{conflict.base.title}" was changed elsewhere while you edited it',
            f"Keep both{then}: your text becomes a conflict copy beside the note. Take theirs: yours goes "
            "to the note's history. Overwrite: theirs goes to the history. Esc: back to editing.",
        )

    @classmethod
    def revert(cls, conflict: Conflict, ref: str) -> Wording:
        """Reverting change ``ref`` met its note changed since: the person's side is the text from
        before the change, the other the note now, each against the note as the change left it."""
        return cls(
            f'Revert change {ref}: "{conflict.theirs.title}" has changed since',
            f"Each side against the note as change {ref} left it. Keep both: the text from before the "
            "change becomes a conflict copy beside the note. Keep the note now: the text from before goes "
            "to its history. Revert anyway: the note now goes to the history. Esc: cancel the revert.",
            ("Now", "Before the change"),
            (f"after {ref}", "now", f"before {ref}"),
            (
                (Choice.KEEP_BOTH, "Keep both", "primary"),
                (Choice.THEIRS, "Keep the note now", "default"),
                (Choice.OVERWRITE, "Revert anyway", "warning"),
                (Choice.BACK, "Cancel", "default"),
            ),
        )

    @classmethod
    def proposal(cls, conflict: Conflict, names: tuple[str, str, str]) -> Wording:
        """A proposal (named ``names[2]``) that met a note changed since it was proposed."""
        ref = names[2]
        return cls(
            f'"{conflict.theirs.title}" changed after {ref} was proposed',
            f"Each side against the version {ref} was proposed on. Keep both: {ref} becomes a conflict copy. "
            f"Take the note now: {ref} goes to its history. Take {ref}: the note now goes to the history. "
            "Edit a merge: both, with the clashes marked. Esc: decide later.",
            ("Changed in the note since", f"What {ref} changes"),
            names,
            (
                (Choice.KEEP_BOTH, "Keep both", "primary"),
                (Choice.THEIRS, "Take the note now", "default"),
                (Choice.OVERWRITE, f"Take {ref}", "warning"),
                (Choice.MERGE, "Edit a merge", "default"),
                (Choice.BACK, "Later", "default"),
            ),
        )


class ConflictView(Over[Choice]):
    """Returns the person's ``Choice`` (``BACK`` for Esc)."""

    HELP = """\
## When a note changed meanwhile

The note was saved elsewhere (another process, an AI app) after you began editing it. Left, what
changed there; right, your changes; each against the note as you opened it.

- **Keep both** (focused at first; **Enter**): the note keeps their text, yours becomes a conflict
  copy beside it. Nothing is lost.
- **Take theirs**: the note stays as they saved it; your text goes to the note's history.
- **Overwrite**: your text is saved; theirs goes to the note's history.
- **Back to editing** ({conflict.back}): nothing is saved yet; the text stays in the editor.

{conflict.previous}/{conflict.next} or **Tab** move between the choices; {app.quit} keeps both and quits.
"""
    CSS_PATH = "conflict.tcss"
    VERTICAL_BREAKPOINTS = [(0, "-short"), (24, "-tall")]
    """Below 24 rows the sides give way first (conflict.tcss): the choices stay on screen."""
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-wide")]
    """Below 80 columns the choices go two to a row (conflict.tcss), each label whole."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back to editing", id="conflict.back", tooltip="Keep editing; nothing is saved yet"),
        # A modal screen stops the app's keys, so F1 is repeated here (same id: a remap applies to both).
        Binding("f1,question_mark", "app.help", "Help", id="app.help", tooltip="Explain the choices and their keys"),
        Binding("left", "choice(-1)", "Previous choice", id="conflict.previous", show=False,
                tooltip="Move to the choice on the left"),
        Binding("right", "choice(1)", "Next choice", id="conflict.next", show=False,
                tooltip="Move to the choice on the right"),
    ]  # fmt: skip

    def __init__(self, conflict: Conflict, *, quitting: bool = False, wording: Wording | None = None) -> None:
        super().__init__()
        self.conflict = conflict
        self.quitting = quitting
        self.wording = wording or Wording.save(conflict, quitting=quitting)
        self.quit_after = False
        """True when the person chose to quit from here (the caller quits once the text is safe)."""

    def compose(self) -> ComposeResult:
        wording = self.wording
        theirs, mine = self.conflict.diffs(wording.names)
        with Vertical(classes="conflict"):
            with Horizontal(classes="conflict--buttons"):
                for choice, label, variant in wording.buttons:
                    yield Button(label, id=f"conflict-{choice.value}", variant=variant)  # type: ignore[arg-type]
            with VerticalScroll(classes="conflict--body", can_focus=False):
                yield Label(wording.title, classes="conflict--title")
                yield Label(wording.hint, classes="conflict--hint")
                with Horizontal(classes="conflict--sides"):
                    yield _Side(wording.sides[0], theirs, id="conflict-theirs")
                    yield _Side(wording.sides[1], mine, id="conflict-mine")
        yield KeyBar()  # this view's keys, over the workspace's (the editor's, behind it)

    def on_mount(self) -> None:
        self.query_one(f"#conflict-{Choice.KEEP_BOTH.value}", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(Choice((event.button.id or "").removeprefix("conflict-")))

    def action_choice(self, step: int) -> None:
        """The choice left or right of the focused one, stopping at the ends: the focus stays on
        the choices (moving on to a side, which shows no focus, left Enter doing nothing)."""
        buttons = list(self.query(Button))
        at = buttons.index(self.focused) if self.focused in buttons else -step
        buttons[max(0, min(len(buttons) - 1, at + step))].focus()

    def action_back(self) -> None:
        self.dismiss(Choice.BACK)

    def leave_for_quit(self) -> bool:
        """The app's quit key while this view is up: keep both, the safe choice for the person's
        text; the caller quits once it is safe, so False (the app does not quit itself)."""
        self.quit_after = True
        self.dismiss(Choice.KEEP_BOTH)
        return False


class _ChangeConflictView(ConflictView):
    """A conflict of a change the person reviews, not of their own text."""

    def leave_for_quit(self) -> bool:
        """Nothing of the person's is at stake: close choosing nothing, as Esc does; True, the
        app quits now."""
        self.dismiss(Choice.BACK)
        return True


class _Side(VerticalScroll):
    """One side's changes as a coloured unified diff, scrollable when long."""

    def __init__(self, title: str, diff: str, *, id: str) -> None:  # noqa: A002 (Textual's name)
        super().__init__(classes="conflict--side", id=id)
        self.border_title = title
        self._diff = diff

    def compose(self) -> ComposeResult:
        yield Static(diff_content(self._diff))

    def on_mount(self) -> None:
        self.call_after_refresh(self._show_first_change)

    def _show_first_change(self) -> None:
        """Scroll so the first changed line is in view, two lines of context above it: with the
        context around each change, a change at the end of a note would be below a short side."""
        width = max(1, self.scrollable_content_region.width)
        rows = 0
        for line in diff_lines(self._diff):
            if line.startswith(("+", "-")):
                self.scroll_to(y=max(0, rows - 2), animate=False, immediate=True)
                return
            rows += max(1, -(-Content(line.rstrip("\n")).cell_length // width))


def diff_lines(diff: str) -> list[str]:
    """The diff's lines without its two file headers (the sides' titles say which is which)."""
    return [line for line in diff.splitlines(keepends=True) if not line.startswith(("+++", "---"))]


def diff_content(diff: str) -> Content:
    """A unified diff with added lines in the success colour and removed ones in the error colour."""
    parts: list[tuple[str, str] | str] = []
    for line in diff_lines(diff):
        if line.startswith("@@"):
            parts.append((line, "$text-muted"))
        elif line.startswith("+"):
            parts.append((line, "$text-success"))
        elif line.startswith("-"):
            parts.append((line, "$text-error"))
        else:
            parts.append(line)
    return Content.assemble(*parts)


class ProposalConflictView(_ChangeConflictView):
    """A proposal that met a note changed since it was proposed, in that case's words; Esc leaves it
    waiting."""

    HELP = """\
## When a note changed after a proposal

An AI app or the assistant proposed a change, and the note changed before you accepted it. Left,
what changed in the note since; right, what the proposal changes; each against the version it was
proposed on. Whichever you choose, nothing is lost:

- **Keep both** (focused at first; **Enter**): the note stays as it is, the proposal becomes a
  conflict copy beside it.
- **Take the note now**: the proposal's text goes to the note's history.
- **Take** the proposal: it is applied; the note as it is now goes to the history.
- **Edit a merge**: both merged, the clashes marked; save the merge, both stay in the history.
- **Later** ({conflict.later}): nothing is done; the proposal still waits ({app.quit} too, then quits).

{conflict.previous}/{conflict.next} or **Tab** move between the choices.
"""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Decide later", id="conflict.later", tooltip="Close; the proposal still waits"),
    ]  # fmt: skip

    def __init__(self, conflict: Conflict, names: tuple[str, str, str]) -> None:
        """``names``: of the version proposed on, the note now and the proposal (``p12``)."""
        super().__init__(conflict, wording=Wording.proposal(conflict, names))


class RevertConflictView(_ChangeConflictView):
    """A revert that met a note changed since the change, in that case's words; Esc cancels it."""

    HELP = """\
## When a note changed after the change you revert

The note changed again after the change you are reverting. Left, what changed since; right, what
reverting would do (the text from before the change); each against the note as the change left it.
Whichever you choose, nothing is lost:

- **Keep both** (focused at first; **Enter**): the note stays as it is, the text from before the
  change becomes a conflict copy beside it.
- **Keep the note now**: the text from before the change goes to the note's history.
- **Revert anyway**: the text from before the change comes back; the note now goes to the history.
- **Cancel** ({conflict.cancel}): nothing is reverted; the change still waits for review
  ({app.quit} too, then quits).

{conflict.previous}/{conflict.next} or **Tab** move between the choices.
"""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Cancel the revert", id="conflict.cancel", tooltip="Close; nothing is reverted"),
    ]  # fmt: skip

    def __init__(self, conflict: Conflict, ref: str) -> None:
        """``ref``: the change's id, as the Changes view shows it."""
        super().__init__(conflict, wording=Wording.revert(conflict, ref))
