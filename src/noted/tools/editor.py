"""The editor tools' names and how a turn's saved (or lost) edits change their results.

The session they edit is ``noted.ops.session.EditorSession``; see that module for a turn's flow.
"""

from __future__ import annotations

from noted.models import ToolStatus
from noted.ops.session import CommitResult, CommitStatus
from noted.tools.registry import ToolResult

EDIT_TOOLS = frozenset(
    {
        "editor_append",
        "editor_insert_before",
        "editor_insert_after",
        "editor_replace",
        "editor_replace_selection",
    }
)
"""The editor tools that change the working copy (``editor_read_note`` only reads it)."""


def amend(outcome: CommitResult, result: ToolResult) -> ToolResult:
    """``result`` as the model must see it after ``outcome``: a successful edit whose batch was not
    written becomes a ``conflict`` (or ``error``) result carrying the outcome's message (as the
    model is told it); others
    pass unchanged."""
    if not outcome.lost or not result.ok or result.name not in EDIT_TOOLS:
        return result
    status = ToolStatus.CONFLICT if outcome.status is CommitStatus.CONFLICT else ToolStatus.ERROR
    return ToolResult(
        result.name, status, message=outcome.to_model or outcome.message, person=outcome.message
    )
