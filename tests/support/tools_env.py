"""A real tool registry on a real store and real settings, for the ``test_tools_*`` files.

Every call goes through ``ToolRegistry.call`` with output checking on, so each successful payload
in the tests is also checked against its tool's output schema.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.backends import LocalStore

from noted.embeddings.fake import FakeEmbedder
from noted.indexer.engine import Indexer
from noted.mcp.scopes import is_id
from noted.models import NoteDraft
from noted.ops.resolve import resolve_folders
from noted.ops.review import Review
from noted.search.joplin import keyword_search_for
from noted.search.semantic import SemanticSearch
from noted.settings import Settings, env_names
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.review import SqliteReview
from noted.tools import Scope, ToolContext, ToolRegistry, ToolResult, all_tools, build_registry
from noted.tools.base import Payload

ACTOR = "assistant:chat-1"
PUBLIC_TOOLS = {  # the tool names are a public contract: AI apps call them by name
    "find_notes", "search_notes", "semantic_search_notes", "read_note", "read_notes", "list_notebooks", "list_tags",
    "list_notebook_notes", "note_history", "create_note", "create_notebook", "update_note", "delete_note",
    "restore_note", "manage_tags", "editor_read_note", "editor_append", "editor_insert_before",
    "editor_insert_after", "editor_replace", "editor_replace_selection",
    # attachments, notebook and tag management
    "list_notes", "get_notebook", "get_tag", "list_tag_notes", "list_attachments", "read_attachment",
    "update_notebook", "delete_notebook", "restore_notebook", "rename_tag", "delete_tag", "attach_file",
    "replace_attachment", "delete_attachment",
    # the rest of joplin-md-sync's tool set
    "create_tag", "get_attachment",
    # links and backlinks, on every backend
    "note_links",
    # what became of the writes that waited for review
    "proposal_status",
}  # fmt: skip
WRITE_TOOLS = ("create_note", "create_notebook", "update_note", "delete_note", "restore_note", "manage_tags")
MANAGE_TOOLS = (
    "update_notebook", "delete_notebook", "restore_notebook", "rename_tag", "delete_tag", "attach_file",
    "replace_attachment", "delete_attachment", "create_tag",
)  # fmt: skip
"""The management write tools (off by default like every write tool)."""


@dataclass
class Env:
    """The parts a tool call needs, and shortcuts to make notes and call tools."""

    store: LocalStore
    """The SQLite store in most tests; any backend for the backend-neutral ones (``tests.support.backends``)."""
    settings: Settings
    registry: ToolRegistry
    ctx: ToolContext
    embedder: FakeEmbedder = field(default_factory=FakeEmbedder)

    async def call(self, name: str, **args: Any) -> ToolResult:
        return await self.registry.call(name, args, self.ctx)

    async def ok(self, name: str, **args: Any) -> Payload:
        """Call and insist on success; the payload."""
        result = await self.call(name, **args)
        assert result.ok, f"{name} failed: {result.status}: {result.message}"
        assert result.payload is not None
        return result.payload

    async def error(self, name: str, **args: Any) -> ToolResult:
        """Call and insist on a recoverable error (status ``error``)."""
        result = await self.call(name, **args)
        assert result.status == "error", f"{name} did not fail: {result}"
        assert result.message
        return result

    def enable(self, *names: str) -> None:
        """Switch tools on in the config file, as ``noted config set`` would."""
        for name in names:
            tool = self.registry.get(name)
            assert tool is not None
            self.settings.set(tool.setting_key, True)

    def folder(self, title: str, parent: str = "") -> str:
        return self.store.create_folder(title, parent_id=parent, actor="user").id

    def note(self, folder: str, title: str, body: str = "", **kw: Any) -> str:
        return self.store.create_note(NoteDraft(title, body, parent_id=folder, **kw), actor="user").id

    def scoped(self, *notebooks: str) -> None:
        """Limit the tools to these notebooks (titles or paths resolved now, as `token add` does;
        an id is kept as it is, even one that names nothing)."""
        names = [n for n in notebooks if not is_id(n)]
        ids = {n: f.id for n, f in zip(names, resolve_folders(self.store, names), strict=True)}
        self.ctx.scope = Scope.of(ids.get(n, n) for n in notebooks)

    def index(self) -> None:
        """Index every note with the fake embedder and let semantic search read it (SQLite only)."""
        assert isinstance(self.store, SqliteStore), "semantic search runs on the SQLite store"
        indexer = Indexer(self.store, self.store.db, self.embedder)
        indexer.prepare()
        indexer.run_until_idle()
        search = SemanticSearch(self.store, self.store.db, self.embedder)
        self.ctx.semantic = lambda: search


def make_env(
    store: LocalStore,
    tmp_path: Path,
    *,
    environ: dict[str, str] | None = None,
    enabled: tuple[str, ...] = (),
) -> Env:
    """An environment whose tools in ``enabled`` are switched on by the environment (as
    ``NOTED_AI_TOOL_<ID>_ENABLED=1`` would for one run)."""
    environ = dict(environ or {})
    keys = {t.name: t.setting_key for t in all_tools()}
    for name in enabled:
        environ[env_names(keys[name])[0]] = "1"
    settings = Settings.load(tmp_path / "config.toml", environ=environ)
    registry = build_registry(settings)
    ctx = ToolContext(store=store, settings=settings, keyword=keyword_search_for(store), actor=ACTOR)
    return Env(store, settings, registry, ctx)


def review_of(store: LocalStore) -> Review:
    """The review of ``store``, read up to here: what the person set up is not reviewed."""
    review = Review(store, SqliteReview(store.db))
    review.refresh()
    return review
