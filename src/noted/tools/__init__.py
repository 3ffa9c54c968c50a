"""The tools through which any model touches the notes, and the one registry that serves them.

    registry = build_registry(settings)                   # declares every tool's switch
    ctx = ToolContext(store, settings, KeywordSearch(store), actor="mcp:claude", scope=scope)
    result = await registry.call("search_notes", {"query": "budget"}, ctx)
    result.for_model()                                    # the payload, or {"error", "status"}

Modules: ``base`` (Tool, ToolError, Annotations, ToolContext), ``registry`` (ToolRegistry,
ToolResult), ``scope`` (Scope from ``mcp.allowedNotebooks``), ``schema`` and ``payloads`` (shared
pieces), the global tools in ``search``, ``notes``, ``listing``, ``notebooks``, ``notebook_admin``,
``tags``, ``attachments`` and ``attachment_writes`` (with ``files`` for their bytes), ``note_create`` (with ``clipping`` for
HTML) and ``note_writes``, and the open note's ``editor`` session with its ``editor_tools``.
"""

from __future__ import annotations

from noted.settings import Settings
from noted.tools import (
    attachment_writes,
    attachments,
    editor_tools,
    listing,
    note_create,
    note_writes,
    notebook_admin,
    notebooks,
    notes,
    search,
    tags,
)
from noted.tools.base import IMAGES, Annotations, ImageData, Payload, Tool, ToolContext, ToolError
from noted.tools.editor import CommitResult, CommitStatus, EditorSession
from noted.tools.registry import ToolRegistry, ToolResult
from noted.tools.scope import Scope, ScopeView, scope_from_settings

__all__ = [
    "Annotations",
    "CommitResult",
    "CommitStatus",
    "EditorSession",
    "IMAGES",
    "ImageData",
    "Payload",
    "Scope",
    "ScopeView",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "all_tools",
    "build_registry",
    "scope_from_settings",
]


def all_tools() -> tuple[Tool, ...]:
    """Every tool: the global tools (reads before writes), then the editor tools."""
    global_tools = (
        *search.TOOLS,
        *notes.TOOLS,
        *listing.TOOLS,
        *notebooks.TOOLS,
        *notebook_admin.TOOLS,
        *tags.TOOLS,
        *attachments.TOOLS,
        *attachment_writes.TOOLS,
        *note_create.TOOLS,
        *note_writes.TOOLS,
    )
    return (
        *(t for t in global_tools if not t.is_write),
        *(t for t in global_tools if t.is_write),
        *editor_tools.EDITOR_TOOLS,
    )


def build_registry(settings: Settings, *, check_output: bool = True) -> ToolRegistry:
    """The registry of every tool, with each tool's switch declared in ``settings``."""
    return ToolRegistry(settings, all_tools(), check_output=check_output)
