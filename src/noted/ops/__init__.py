"""Note operations: the one implementation of each change a person or a model makes to notes.

The app (the notebook tree, the triage bar, the editor, the attachment keys), the CLI commands, the
chat engine and the tools all call these functions, so a change behaves the same from every front
end and is recorded with the same actor. Each operation takes a ``Store`` and the actor, makes its
writes in one transaction (``Store.batch``; the Joplin backend sends them one by one), and returns
what it did (the note, or a frozen dataclass saying what changed). Checks that belong to one caller
stay with it: the tools keep their scope checks and their messages to the model, the CLI resolves
names to ids.

Modules: ``notes`` (create, with the one default notebook; update with tags, move, tag, complete,
to-do, trash/restore, restore a revision, undo an edit, thin the history), ``erased`` (the history
of a note its backend erased outside noted, which a restore writes again), ``notebooks`` (create,
rename, move, trash/restore notebooks; create, rename and delete tags, or for a caller who sees only
some notes, move some notes to another tag or take a tag off some notes), ``attachments`` (attach,
replace, remove, delete, restore a kept version, the checks on a file's bytes in ``filetypes``), ``editing`` (saving the
editor's text), ``session`` (the working copy the assistant's editor tools change), ``conflicts`` (a
save that met a change made meanwhile, settled without losing either side; Joplin's sync conflicts;
the one rule that carries a write that waited over a change made meanwhile), ``diffs`` (two versions
of a note shown as a diff),
``trash`` (emptying the trash only if it still holds what the person was asked about),
``batch_capture`` and ``batch_undo`` (a chat's batch of changes applied as one unit, and undone at
once, what the person changed since left as it is) and
``resolve`` (what a person types for a note or notebook, to exactly one of them: for the CLI, and
for the notebooks of an MCP scope).

No store write is made anywhere else but in ``noted.store`` itself:
``tests/unit/test_store_writes.py`` fails on one.

Nothing here imports Textual, the tools or a model SDK, and importing it is cheap: the app
imports it at start-up.
"""
