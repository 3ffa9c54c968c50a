"""What a tool is: one declaration serves the in-app assistant and the MCP server alike.

A tool is declared once, as a ``Tool``: its public name, a title, a description written for a
model, JSON Schemas for its input and output, MCP annotations, the setting that switches it and
that setting's default, and a handler. Handlers do blocking store and search work, so they are
plain functions; ``ToolRegistry.call`` (async) runs them in a worker thread.

Two error channels:

- ``ToolError`` (a ``NotedError``): a failure the model should see and can recover from ("note not found",
  "anchor matches twice"). It becomes a tool result marked as an error. The errors of
  ``noted.errors`` that the store raises (not found, invalid input, conflict) travel the same way.
- Any other exception is a bug: logged with its stack and reported as an internal error whose
  text carries no stack and no internals.

Payload conventions, shared by every tool: plain JSON objects; ids are 32 hex digits; every time
is an ISO 8601 UTC string with milliseconds (``2025-03-01T09:30:00.000Z``, see ``payloads.iso``),
and a time that is not set is ``null``; a note's notebook is given as ``notebook_id`` and its title
as ``notebook``; tags are lists of tag titles.

Images travel beside the payload, not in it: a handler puts ``ImageData`` under the key ``IMAGES``
and the registry moves them to ``ToolResult.images``. The payload keeps a description of each
image (type, size in pixels), which is all a door that carries only JSON text (the in-app chat)
shows; the MCP server sends the images as MCP image content and the OpenAPI door as files.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from noted.errors import NotedError
from noted.settings import Setting, Settings, tool_switch
from noted.store.protocol import Store
from noted.store.review import ReviewRows
from noted.tools.scope import Scope

if TYPE_CHECKING:
    from noted.ops.session import EditorSession
    from noted.search.finder import Finder
    from noted.search.keyword import KeywordSearch
    from noted.search.semantic import SemanticSearch

Payload = dict[str, Any]
IMAGES = "__images__"
"""The payload key under which a handler returns a tuple of ``ImageData`` (see the module docstring)."""
Handler = Callable[["ToolContext", Mapping[str, Any]], Payload]
Labeller = Callable[["ToolContext", Mapping[str, Any]], str]
Approver = Callable[["Tool", Mapping[str, Any]], Awaitable[bool]]
"""Asks the person whether a write may run; True lets it run."""
Made = Callable[[Store, str], bool]
"""Whether what a creating tool makes, under this id, exists (``Tool.makes``)."""


class ToolError(NotedError):
    """A failure the model can act on; its message is shown to the model as the tool's result.

    Args:
        message: One or two sentences saying what went wrong and what to do instead.
        field: The input field at fault, when there is one.
        person: What went wrong as the person is told it, where ``message`` holds advice only the
            model can follow (call a tool again, copy text from a read): ``ToolResult.person``.
        advice: What the model can do about it (``list_tags lists them``), added to ``message``
            after a semicolon for the model and left out of the person's line, which is then
            ``message`` alone unless ``person`` is given.
    """

    def __init__(
        self, message: str, *, field: str | None = None, person: str | None = None, advice: str = ""
    ) -> None:
        super().__init__(f"{message}; {advice}" if advice else message)
        self.field = field
        self.person = person or (message if advice else None)


@dataclass(frozen=True, slots=True)
class ImageData:
    """An image a tool returns beside its JSON payload."""

    mime: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Undo:
    """How a write that ran in one of the chat's batches is undone (``noted.ops.batch_undo``): the
    arguments that name the notes, notebooks, tags and attachments it changes, kept as they are
    before it runs (``noted.ops.batch_capture.capture``; an attachment's file comes back from the
    version the store keeps). What it creates, the change feed tells. A write tool without one
    cannot be undone, and the batch's card says so before and after."""

    notes: tuple[str, ...] = ()
    notebooks: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def named(self, args: Mapping[str, Any]) -> tuple[list[str], list[str], list[str], list[str]]:
        """The ids of the notes, notebooks, tags and attachments ``args`` name."""

        def ids(keys: tuple[str, ...]) -> list[str]:
            return [str(args[key]) for key in keys if args.get(key)]

        return ids(self.notes), ids(self.notebooks), ids(self.tags), ids(self.files)


@dataclass(frozen=True, slots=True)
class Annotations:
    """MCP tool annotations (hints to the client; never a security boundary).

    ``destructive`` follows the MCP definition: true unless the tool only ever *adds* (a tool
    that can overwrite, remove or hide something is destructive even when history can undo it).
    """

    read_only: bool
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = False

    def to_mcp(self) -> dict[str, bool]:
        """The annotations under their MCP names."""
        return {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


READ = Annotations(read_only=True, idempotent=True)
"""The annotations of every tool that only reads."""


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool, declared once for every door."""

    name: str
    title: str
    description: str
    input_schema: Payload
    output_schema: Payload
    annotations: Annotations
    handler: Handler
    default_enabled: bool | None = None
    """None: read tools on, write tools off."""
    setting_id: str | None = None
    """The ``<id>`` of ``ai.tool.<id>.enabled``; the tool's own name unless shared (editor tools)."""
    editor: bool = False
    """An editor tool: offered only in a chat about the open note."""
    needs_selection: bool = False
    """Offered only when the open note has a selection (``editor_replace_selection``)."""
    examples: tuple[Payload, ...] = ()
    """Example inputs; tests check that the input schema accepts each."""
    label: Labeller | None = None
    """For a write that names neither a note nor a title: the title of what it changes, as the
    caller may see it, which names a proposal of the call (``noted.tools.proposals.propose``)."""
    undo: Undo | None = None
    """How a chat's undo puts this write back; None: it cannot be undone."""
    makes: Made | None = None
    """For a tool that makes an item (a note, a notebook, an attachment), which it calls
    ``ToolContext.new_id`` when that is set: whether the one so called exists, written in full. A
    proposal of such a call fixes the id when it is made, so an accept a kill cut short after the
    write is settled on the next accept instead of making a second one (``noted.tools.proposals``)."""

    @property
    def is_write(self) -> bool:
        return not self.annotations.read_only

    @property
    def enabled_by_default(self) -> bool:
        return (not self.is_write) if self.default_enabled is None else self.default_enabled

    @property
    def setting(self) -> Setting[bool]:
        """The switch that turns this tool on or off (``ai.tool.<id>.enabled``)."""
        return tool_switch(self.setting_id or self.name)

    @property
    def setting_key(self) -> str:
        return self.setting.key

    @property
    def wire_output_schema(self) -> Payload:
        """The output schema clients are shown: a write's answer may instead say that it waits
        for review (``noted.tools.proposals.PENDING_RESULT``)."""
        if not self.is_write:
            return self.output_schema
        from noted.tools.proposals import PENDING_RESULT

        return {"type": "object", "anyOf": [self.output_schema, PENDING_RESULT]}

    def to_mcp(self) -> Payload:
        """The tool as an MCP ``tools/list`` entry (plain data; the MCP layer wraps it)."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "outputSchema": self.wire_output_schema,
            "annotations": {"title": self.title, **self.annotations.to_mcp()},
        }


def note_made(store: Store, note_id: str) -> bool:
    """``Tool.makes`` of a tool that makes a note."""
    return bool(store.get_notes([note_id]))


def notebook_made(store: Store, folder_id: str) -> bool:
    """``Tool.makes`` of a tool that makes a notebook."""
    return any(f.id == folder_id for f in store.list_folders(include_trashed=True))


def file_made(store: Store, resource_id: str) -> bool:
    """``Tool.makes`` of a tool that attaches a file: stored and linked (one stored by a run cut
    short before it linked it is linked by the next, ``noted.ops.attachments.attach_to_note``)."""
    return bool(store.resource_notes(resource_id))


@dataclass
class ToolContext:
    """Everything a handler may use, for one caller (the assistant in a chat, or an MCP client)."""

    store: Store
    settings: Settings
    keyword: KeywordSearch
    actor: str
    """Who writes: ``assistant:<conversation>`` or ``mcp:<client>``; the change feed records it."""
    semantic: Callable[[], SemanticSearch] | None = None
    """Builds (or returns) semantic search; raises ``UnavailableError`` when it cannot run."""
    scope: Scope = field(default_factory=Scope)
    editor: EditorSession | None = None
    """The open note's editing session, for editor tools."""
    approve: Approver | None = None
    """Consulted before a write tool runs while ``ai.approveWrites`` is on; None never asks
    (an MCP client asks its own person)."""
    review: ReviewRows | None = None
    """Where proposals are kept (``noted.tools.proposals``), and asked about by ``proposal_status``."""
    writes_wait: bool = False
    """Review mode: a write is stored as a proposal for the person instead of being run."""
    new_id: str | None = None
    """The id a tool that makes an item gives it (``Tool.makes``): a proposal's, fixed when it was
    proposed, so that accepting it again after a kill finds what the first run made."""
    owner: str = ""
    """Who the caller is beyond its actor, for telling its proposals from others': a client
    token's own id (``ClientToken.owner``), so a client added again under an old name is not the
    old one; ``""`` for any other caller."""

    @property
    def finder(self) -> Finder:
        """Search as every front end runs it, over this caller's store (scope is the tool's to pass)."""
        from noted.search.finder import Finder

        return Finder(self.store, self.keyword, self.semantic, self.settings)
