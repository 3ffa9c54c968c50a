"""The tools through which any model touches the notes, and the one registry that serves them.

    registry = build_registry(settings)                   # loads the tool modules, declares switches
    ctx = ToolContext(store, settings, KeywordSearch(store), actor="mcp:claude", scope=scope)
    result = await registry.call("search_notes", {"query": "budget"}, ctx)
    result.for_model()                                    # the payload, or {"error", "status"}

Modules: ``base`` (Tool, ToolError, Annotations, ToolContext), ``registry`` (ToolRegistry,
ToolResult), ``scope`` (Scope: the notebooks a caller may see, by id), ``schema`` and ``payloads``
(shared pieces), the global tools in ``find``, ``search``, ``notes``, ``links``, ``listing``,
``notebooks``, ``notebook_admin``, ``tags``, ``attachments`` and ``attachment_writes`` (with
``files`` for their bytes), ``note_create`` (with ``clipping`` for HTML) and ``note_writes``, and
the open note's editor tools in ``editor_tools`` (with ``editor`` for their names; the session they
edit is ``noted.ops.session.EditorSession``). The writes themselves are note operations
(``noted.ops``), shared with the app and the CLI.

Importing this package loads none of the tool modules (they pull in search, Pillow and an HTML
parser: about half a second): ``all_tools`` imports them, on the first call, and lists their tools.
"""

from __future__ import annotations

from noted.settings import Settings
from noted.tools.base import IMAGES, Annotations, ImageData, Payload, Tool, ToolContext, ToolError
from noted.tools.registry import ToolRegistry, ToolResult
from noted.tools.scope import Scope, ScopeView

__all__ = [
    "Annotations",
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
]


def all_tools() -> tuple[Tool, ...]:
    """Every tool: the global tools (reads before writes), then the editor tools.

    The tool modules are imported here, on the first call (later calls find them loaded). A new
    module's ``TOOLS`` join the table below, in the order they are offered.
    """
    from noted.tools import (
        attachment_writes,
        attachments,
        editor_tools,
        find,
        links,
        listing,
        note_create,
        note_writes,
        notebook_admin,
        notebooks,
        notes,
        proposal_status,
        search,
        tags,
    )

    global_tools = (
        *find.TOOLS,
        *search.TOOLS,
        *notes.TOOLS,
        *links.TOOLS,
        *listing.TOOLS,
        *notebooks.TOOLS,
        *notebook_admin.TOOLS,
        *tags.TOOLS,
        *attachments.TOOLS,
        *attachment_writes.TOOLS,
        *note_create.TOOLS,
        *note_writes.TOOLS,
        *proposal_status.TOOLS,
    )
    return (
        *(t for t in global_tools if not t.is_write),
        *(t for t in global_tools if t.is_write),
        *editor_tools.EDITOR_TOOLS,
    )


def build_registry(settings: Settings) -> ToolRegistry:
    """The registry of every tool, with each tool's switch declared in ``settings``."""
    return ToolRegistry(settings, all_tools())
