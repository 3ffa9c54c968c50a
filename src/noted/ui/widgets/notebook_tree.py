"""``NotebookTree``: nested notebooks with note counts, then Tags, To-dos and Trash.

Moving the cursor selects what the note list shows (``SourceHighlighted``); Enter moves on to
the list. Notebooks are created, renamed, moved, trashed and restored from here (``tree_writes``: each
write runs in a worker, and the tree redraws when it is done). Its lines are built by ``tree_items``;
``/`` filters them in place (``tree_filter``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from noted.store.protocol import Store
from noted.ui.data import ALL_NOTES, NoteSource, TreeData, load_tree
from noted.ui.patches.steady_scrollbars import SteadyScrollbars
from noted.ui.widgets.prompt_bar import FiltersInPlace, ask
from noted.ui.widgets.tree_filter import TreeFilter
from noted.ui.widgets.tree_items import (
    TAGS_KEY,
    TreeItem,
    add_folder,
    add_lists,
    add_tags,
    after_removal,
    find,
    label,
    titles,
)
from noted.ui.widgets.tree_writes import NotebookWrites, Written
from noted.ui.workers import ReportsWorkerFailures, thread_work

TITLE = "Notebooks"


class NotebookTree(FiltersInPlace, ReportsWorkerFailures, SteadyScrollbars, Tree[TreeItem]):
    """The left pane: where notes come from."""

    HELP = """\
## Notebooks

Move with {tree.down}/{tree.up} (or the arrows), {tree.first}/{tree.last} for the first and last line;
the note list follows the cursor. **Enter** goes to the list, **Space** folds a notebook.

- {tree.new_notebook} new notebook inside the highlighted one (top level from *All notes*)
- {tree.rename} rename a notebook or tag · {tree.move} move a notebook (a picker opens)
- {tree.trash} move a notebook and its notes to the trash (or delete a tag)
- {tree.restore} restore a notebook from the trash

{tree.filter} filters the notebooks in place: type words of their names (case does not count) and the
tree keeps the notebooks that hold them, opened inside the notebooks they are in, with All notes, Tags,
To-dos and Trash; {prompt.keep} keeps the filter and goes back to the tree, {prompt.clear} clears it and
puts the tree and its cursor back. With a filter kept, {tree.filter.clear} clears it.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="tree.down", tooltip="Next line"),
        Binding("k", "cursor_up", "Up", show=False, id="tree.up", tooltip="Previous line"),
        Binding("g", "scroll_home", "First", show=False, id="tree.first", tooltip="First line"),
        Binding("G", "scroll_end", "Last", show=False, id="tree.last", tooltip="Last line"),
        Binding("n", "new_notebook", "New notebook", id="tree.new_notebook",
                tooltip="Create a notebook inside the highlighted one"),
        Binding("r", "rename", "Rename", id="tree.rename", tooltip="Rename the highlighted notebook or tag"),
        Binding("m", "move", "Move", id="tree.move", tooltip="Move the highlighted notebook into another"),
        Binding("d,delete", "trash", "Trash", id="tree.trash",
                tooltip="Move the highlighted notebook to the trash, or delete the highlighted tag"),
        Binding("u", "restore", "Restore", id="tree.restore", tooltip="Restore a notebook from the trash"),
        Binding("slash", "filter", "Filter", show=False, id="tree.filter",
                tooltip="Filter the notebooks by words of their names, as you type"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="tree.filter.clear",
                tooltip="Clear the filter kept on the notebooks"),
    ]  # fmt: skip

    @dataclass
    class SourceHighlighted(Message):
        """The cursor is on a line that lists notes."""

        tree: NotebookTree
        source: NoteSource

        @property
        def control(self) -> NotebookTree:
            return self.tree

    class SourceChosen(SourceHighlighted):
        """Enter on a line that lists notes: the person wants to go to the list."""

    class NotebooksRenamed(Message):
        """A load found a notebook under a new name: what shows the old one must read it again."""

    @dataclass
    class _Loaded(Message, bubble=False):
        data: TreeData

    def __init__(
        self,
        store: Store,
        *,
        id: str | None = None,  # noqa: A002 (Textual's name)
    ) -> None:
        super().__init__("noted", id=id)
        self.show_root = False
        self.guide_depth = 2
        self.auto_expand = False  # Enter goes to the list; Space (or a click on the arrow) folds
        self._store = store
        self._data: TreeData | None = None
        self._expanded: set[str] = set()
        self._select_after_load: str | None = None
        self._moving_to: str | None = None
        self._waiting_move: str | None = None
        """A cursor move waiting for branches it opened to be laid out; a later move cancels it."""
        """Where the cursor goes once the tree, just loaded, has been laid out."""
        self._tags: TreeNode[TreeItem] | None = None
        self._tags_pending = False
        self._announced: NoteSource | None = None
        self.ready = False
        """True once the notebooks are in and the cursor is on its line (keys act on them from then)."""
        self.filter: TreeFilter = TreeFilter()
        self.writes = NotebookWrites(self, store)
        self.border_title = TITLE

    def render_label(self, node: TreeNode[TreeItem], base_style: Style, style: Style) -> Text:
        """The line's label; a name too long for the pane is cut with "…" so its count stays in sight."""
        full = super().render_label(node, base_style, style)
        depth, parent = 0, node.parent
        while parent is not None and parent is not self.root:
            depth, parent = depth + 1, parent.parent
        room = self.scrollable_content_region.width - depth * self.guide_depth
        if room <= 0 or full.cell_len <= room:
            return full
        label = node.label if isinstance(node.label, Text) else Text(node.label)
        last = label.spans[-1] if label.spans else None
        count = (
            last.start if last is not None and last.style == "dim" and last.end == len(label) else len(label)
        )
        cut = len(full) - len(label) + count
        name, tail = full[:cut], full[cut:]
        name.truncate(max(room - tail.cell_len, 1), overflow="ellipsis")
        return name + tail

    # Loading -------------------------------------------------------------------------------
    def load_first(self, data: TreeData | None) -> None:
        """Show ``data``, read while the app loaded, or (None) read the notebooks now."""
        if data is None:
            self.reload()
        else:
            self.post_message(self._Loaded(data))

    @thread_work("tree-load", "loading notebooks")
    def reload(self) -> None:
        """Read the notebooks again (the follower calls this when they or their counts change)."""
        self.post_message(self._Loaded(load_tree(self._store)))

    @on(_Loaded)
    def _loaded(self, message: _Loaded) -> None:
        if not self.filter.narrowing:  # the branches a filter opened are its own, not the person's
            self._remember_expanded()
        cursor = self.cursor_node.data.key if self.cursor_node and self.cursor_node.data else ALL_NOTES.key
        # A load that came just before may have a cursor move still waiting for the layout (to a
        # notebook just made): this one must not move the cursor back to where it was.
        cursor = self._moving_to or cursor
        wanted = self._select_after_load or cursor
        self._select_after_load = None
        self._moving_to = wanted
        if self._data is not None and titles(self._data) != titles(message.data):
            self.post_message(self.NotebooksRenamed())
        self._data = message.data
        self._rebuild(message.data)
        # Nodes learn their line when the tree next lays out: move the cursor after that.
        self.call_after_refresh(self._restore_cursor, wanted, cursor)

    def _restore_cursor(self, *keys: str) -> None:
        self.ready = True
        self._moving_to = None
        for key in (*keys, ALL_NOTES.key):
            if self._move_to(key):
                self._announce_if_changed()
                return

    def _announce_if_changed(self) -> None:
        """Tell the list the source on the cursor's line if it is not the one it was last told: the
        new name of the one it shows, or the line that took the place of one trashed (the cursor
        stayed on the same line, so no highlight event says it)."""
        item = self._item
        shown = self._announced
        if item is None or item.source is None or shown is None:
            return
        if item.source != shown:
            self._announced = item.source
            self.post_message(self.SourceHighlighted(self, item.source))

    def _remember_expanded(self) -> None:
        def walk(node: TreeNode[TreeItem]) -> None:
            for child in node.children:
                if child.data is not None:
                    (self._expanded.add if child.is_expanded else self._expanded.discard)(child.data.key)
                walk(child)

        walk(self.root)

    def _rebuild(self, data: TreeData) -> None:
        self.clear()
        root = self.root
        root.add_leaf(label("All notes", data.total_notes), TreeItem(ALL_NOTES.key, ALL_NOTES))
        shown = self.filter.apply(data.roots)
        opened = self._expanded if shown is None else self._expanded | shown.opened
        for node in data.roots if shown is None else shown.roots:
            add_folder(root, node, opened)
        self._title()
        expanded = TAGS_KEY in self._expanded
        self._tags = root.add(
            label("Tags", len(data.tags)), TreeItem(TAGS_KEY), expand=expanded, allow_expand=bool(data.tags)
        )
        self._tags_pending = True
        if expanded:
            self._add_tags()
        add_lists(root, data, self._expanded)

    def _title(self) -> None:
        """The border's title, fitted to the pane: its top edge (``size`` and the two sides) less
        the two corners and a blank each side."""
        self.border_title = self.filter.title(TITLE, self.size.width - 4 if self.size.width else 0)

    def on_resize(self) -> None:
        self._title()

    def _add_tags(self) -> None:
        """Put the tags under their heading: on the first expand, as a profile may have hundreds."""
        if not self._tags_pending or self._tags is None or self._data is None:
            return
        self._tags_pending = False
        add_tags(self._tags, self._data)

    @on(Tree.NodeExpanded)
    def _expanded_node(self, event: Tree.NodeExpanded[TreeItem]) -> None:
        if event.node is self._tags:
            self._add_tags()

    def _move_to(self, key: str) -> bool:
        found = find(self.root, key)
        if found is None and self._tags_pending:
            self._add_tags()
            found = find(self.root, key)
        if found is None:
            return False
        opened = False
        ancestor = found.parent
        while ancestor is not None:
            # The hidden root's lines are laid out with the tree: only a notebook opened here waits.
            opened = opened or (ancestor is not self.root and not ancestor.is_expanded)
            ancestor.expand()
            ancestor = ancestor.parent
        self._waiting_move = None  # this move wins over an earlier one still waiting for the layout
        if opened:  # the line is known once the branches opened are laid out (a reload may come first)
            self._waiting_move = key
            self.call_after_refresh(self._move_when_laid_out, key)
        else:
            self.move_cursor(found)
        return True

    def _move_when_laid_out(self, key: str) -> None:
        if self._waiting_move == key:  # not overtaken by a later move (select_source, a load)
            self._move_to(key)

    def select_source(self, source: NoteSource) -> None:
        """Put the cursor on ``source`` (after the next load when it is not drawn yet)."""
        if not self._move_to(source.key):
            self._select_after_load = source.key

    # Messages ------------------------------------------------------------------------------
    @on(Written)
    def _written(self, message: Written) -> None:
        # Redraw at once rather than wait for the change feed, and follow what was just made.
        if message.select is not None:
            self._select_after_load = message.select
        self.reload()

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted[TreeItem]) -> None:
        event.stop()
        item = event.node.data
        if item is not None and item.source is not None:
            self._announced = item.source
            self.post_message(self.SourceHighlighted(self, item.source))

    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected[TreeItem]) -> None:
        event.stop()
        item = event.node.data
        if item is not None and item.source is not None:
            self.post_message(self.SourceChosen(self, item.source))
        elif event.node.allow_expand:  # a heading with no notes of its own (Tags): Enter folds it
            event.node.toggle()

    # Actions -------------------------------------------------------------------------------
    @property
    def _item(self) -> TreeItem | None:
        node = self.cursor_node
        return node.data if node is not None else None

    def action_new_notebook(self) -> None:
        self.writes.new_notebook(self._item)

    def action_rename(self) -> None:
        self.writes.rename(self._item)

    def action_move(self) -> None:
        self.writes.move(self._item)

    def action_trash(self) -> None:
        node = self.cursor_node  # triage keeps its place: the cursor goes to the next line of its kind
        self.writes.trash(self._item, then=after_removal(node) if node is not None else None)

    def action_restore(self) -> None:
        self.writes.restore(self._item)

    # Filter (``TreeFilter``) ----------------------------------------------------------------
    async def action_filter(self) -> None:
        if not self.filter.active:
            self._remember_expanded()  # what Esc puts back
            self.filter.begin(self._item.key if self._item is not None else ALL_NOTES.key)
        await ask(self, "Filter", self.filter.text, "notebook words · Enter keeps · Esc clears")

    @property
    def _cursor_key(self) -> str | None:
        """The line the cursor is on, or is about to go to once the tree is laid out."""
        return self._moving_to or (self._item.key if self._item is not None else None)

    def _redraw(self, cursor: Callable[[], str | None]) -> None:
        """Draw the tree again from the notebooks in memory (no I/O), the cursor then on ``cursor()``."""
        if self._data is None:
            return
        self._rebuild(self._data)
        self._moving_to = line = cursor()
        self.call_after_refresh(self._restore_cursor, *((line,) if line is not None else ()))

    def prompt_changed(self, text: str) -> None:
        current = self._cursor_key
        self.filter.text = text
        self._redraw(lambda: self.filter.cursor(current))

    def prompt_cleared(self) -> None:
        line = self.filter.end(self._cursor_key)
        self._redraw(lambda: line)
