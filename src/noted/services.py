"""The one composition root: builds the parts of noted for a profile, and closes them.

Front ends (the CLI, the TUI, the MCP server) get a ``Services`` and never build parts themselves.
Nothing here runs at import time, and the costly parts (the embedding model, the chat provider)
are built on first use, so ``noted show`` never loads ONNX Runtime.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from noted.profile import Profile
from noted.search.keyword import KeywordSearch
from noted.settings import Settings
from noted.store.sqlite import SqliteStore

if TYPE_CHECKING:  # the parts below load on first use: the terminal app starts without them
    from noted.chat.engine import ChatEngine
    from noted.chat.transcripts import Transcripts
    from noted.embeddings import Embedder
    from noted.indexer.service import IndexerService, IndexStatus
    from noted.ops.editing import EditorSession
    from noted.providers import ChatProvider, ProviderConfig
    from noted.search.hybrid import HybridSearch
    from noted.search.semantic import SemanticSearch
    from noted.store.joplin import JoplinStore
    from noted.tools import Scope, ToolContext, ToolRegistry

log = logging.getLogger(__name__)


@dataclass
class Services:
    """The long-lived parts built for one profile."""

    profile: Profile
    settings: Settings
    store: SqliteStore | JoplinStore
    """The notes: the profile's own database, or a running Joplin (whose sidecar ``db`` holds the rest)."""
    keyword: KeywordSearch
    _registry: ToolRegistry | None = field(default=None, repr=False)
    _embedder: Embedder | None = field(default=None, repr=False)
    _semantic: SemanticSearch | None = field(default=None, repr=False)
    _transcripts: Transcripts | None = field(default=None, repr=False)
    _indexer: IndexerService | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def open(
        cls,
        profile: Profile,
        *,
        welcome: bool = True,
        settings: Settings | None = None,
        backend: str | None = None,
    ) -> Services:
        """Open (and on first run create) the profile's store and what sits on it.

        ``backend`` (``sqlite`` or ``joplin``) overrides the ``backend`` setting for this run.
        """
        settings = settings or Settings.load(profile)
        first_run = profile.is_new
        store: SqliteStore | JoplinStore
        keyword: KeywordSearch
        if (backend or settings.get_str("backend")) == "joplin":
            from noted.search.joplin import keyword_search_for
            from noted.store.joplin import open_joplin_store

            store = open_joplin_store(settings, profile.root)
            keyword = keyword_search_for(store)
        else:
            store = SqliteStore.open(profile.db_path, profile.resources_dir)
            keyword = KeywordSearch(store)
        if isinstance(store, SqliteStore) and first_run and welcome:
            from noted.store.welcome import create_welcome

            try:
                create_welcome(store)
            except BaseException:
                store.close()
                raise
        return cls(profile=profile, settings=settings, store=store, keyword=keyword)

    @property
    def registry(self) -> ToolRegistry:
        """Every tool with its switch, built on first use (it declares the switches in ``settings``)."""
        with self._lock:
            if self._registry is None:
                from noted.tools import build_registry

                self._registry = build_registry(self.settings)
            return self._registry

    # Search by meaning -------------------------------------------------------------------
    def embedder(self) -> Embedder:
        """The configured embedding model, loaded on first use."""
        with self._lock:
            if self._embedder is None:
                self._embedder = self._make_embedder()
            return self._embedder

    def _make_embedder(self) -> Embedder:
        from noted.embeddings import make_embedder
        from noted.providers import load_api_key

        s = self.settings
        kind = s.get_str("ai.embedding.provider")
        threads = s.get_int("ai.embedding.threads") or None
        if kind == "fake":
            return make_embedder("fake")
        if kind == "openai":
            return make_embedder(
                "openai",
                base_url=s.get_str("ai.embedding.baseUrl") or s.get_str("ai.baseUrl"),
                model=s.get_str("ai.embedding.model"),
                api_key=load_api_key("openai", key_file=s.get_path("ai.apiKeyFile")),
                allow_remote=s.get_bool("ai.allowRemote"),
                query_prefix=s.get_str("ai.embedding.queryPrefix"),
                passage_prefix=s.get_str("ai.embedding.passagePrefix"),
            )
        folder = s.get_str("ai.embedding.model")
        if folder:
            return make_embedder("folder", path=folder, threads=threads)
        return make_embedder("local", threads=threads, quantized_cache=self.profile.root / "models")

    def semantic(self) -> SemanticSearch:
        """Semantic search over the index, or ``UnavailableError`` saying why it cannot run."""
        from noted.search.semantic import SemanticSearch

        with self._lock:
            if self._semantic is not None:
                return self._semantic
        semantic = SemanticSearch(self.store, self.store.db, self.embedder())
        with self._lock:
            self._semantic = self._semantic or semantic
            return self._semantic

    def hybrid(self) -> HybridSearch:
        """Keyword and semantic search fused; falls back to keyword when the index cannot be used."""
        from noted.search.hybrid import DeferredSemantic, HybridSearch

        return HybridSearch(self.keyword, DeferredSemantic(self.semantic))

    def start_indexer(
        self, *, label: str, on_status: Callable[[IndexStatus], None] | None = None
    ) -> IndexerService | None:
        """Start indexing in the background (if ``search.indexer.enabled``); returns the service."""
        if not self.settings.get_bool("search.indexer.enabled"):
            return None
        if self._indexer is None:
            from noted.indexer.engine import Indexer
            from noted.indexer.lease import Lease
            from noted.indexer.service import IndexerService

            # Its own model, so the one the search uses keeps its own (not niced) model threads:
            # the indexer's thread runs at a lower priority (noted.indexer.priority).
            indexer = Indexer(self.store, self.store.db, self._make_embedder())
            self._indexer = IndexerService(indexer, Lease(self.store.db, label=label), on_status=on_status)
            self._indexer.start()
        return self._indexer

    @property
    def indexer(self) -> IndexerService | None:
        return self._indexer

    # Tools and the assistant ------------------------------------------------------------
    def tool_context(
        self, actor: str, *, editor: EditorSession | None = None, scope: Scope | None = None
    ) -> ToolContext:
        """What a tool call needs, for one caller."""
        from noted.tools import Scope, ToolContext

        return ToolContext(
            store=self.store,
            settings=self.settings,
            keyword=self.keyword,
            actor=actor,
            semantic=self.semantic,
            scope=scope or Scope(),
            editor=editor,
        )

    @property
    def transcripts(self) -> Transcripts:
        with self._lock:
            if self._transcripts is None:
                from noted.chat.transcripts import Transcripts

                self._transcripts = Transcripts(self.store.db)
            return self._transcripts

    def provider_config(self) -> ProviderConfig:
        from noted.providers import ProviderConfig, load_api_key

        s = self.settings
        kind = s.get_str("ai.provider")
        return ProviderConfig(
            kind=kind,
            model=s.get_str("ai.model"),
            base_url=s.get_str("ai.baseUrl") or None,
            api_key=load_api_key(kind, key_file=s.get_path("ai.apiKeyFile")),
            enabled=s.get_bool("ai.enabled"),
            allow_remote=s.get_bool("ai.allowRemote"),
            timeout=float(s.get_int("ai.timeoutSeconds")),
            # The chat engine retries within ai.timeoutSeconds and shows each try; an SDK retry
            # would wait the whole timeout again, unseen.
            max_retries=0,
        )

    def provider(self) -> ChatProvider:
        """A chat provider as configured now (settings may change between runs)."""
        from noted.providers import make_provider

        return make_provider(self.provider_config())

    def chat_engine(self, *, provider: Callable[[], ChatProvider] | None = None) -> ChatEngine:
        """The chat engine over these services (``provider`` replaces the configured one, for tests)."""
        from noted.chat.engine import ChatEngine, ChatSetup

        def context(actor: str, editor: EditorSession | None) -> ToolContext:
            return self.tool_context(actor, editor=editor)

        return ChatEngine(
            ChatSetup(
                provider=provider or self.provider,
                registry=self.registry,
                context=context,
                transcripts=self.transcripts,
                approve_writes=lambda: self.settings.get_bool("ai.approveWrites"),
                budget=lambda: self.settings.get_int("ai.budgetTokens"),
                timeout=lambda: float(self.settings.get_int("ai.timeoutSeconds")),
            )
        )

    # Closing ------------------------------------------------------------------------------
    def close(self) -> None:
        """Stop background work and close every part, the store last."""
        if self._indexer is not None:
            self._indexer.stop()
            with contextlib.suppress(Exception):  # its own model (see start_indexer)
                self._indexer.indexer.embedder.close()
            self._indexer = None
        if self._embedder is not None:
            try:
                self._embedder.close()
            except Exception:
                log.exception("closing the embedding model failed")
            self._embedder = None
        self.store.close()
