"""The panes of the workspace: notebook tree, note list (and its triage), viewer with outline, editor, status bar."""
