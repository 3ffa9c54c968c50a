"""The one composition root: builds the parts of noted for a profile, and closes them.

Front ends (the CLI, the TUI, the MCP server) get a ``Services`` and never build parts themselves.
Nothing here runs at import time, and the costly parts (the embedding model, the chat provider)
are built on first use, so ``noted show`` never loads ONNX Runtime.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from noted.errors import ConfigError, NotedError, UnavailableError
from noted.profile import Profile
from noted.search.keyword import KeywordSearch
from noted.settings import Settings
from noted.settings.handles import (
    AI_BUDGET_TOKENS,
    AI_TIMEOUT_SECONDS,
    AI_WRITES,
    BACKEND,
    LARGE_NOTE_CHARS,
    SEARCH_INDEXER_ENABLED,
    VAULT_PATH,
)
from noted.store.history.thinning import Thinning
from noted.store.protocol import Store
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.db import Database

if TYPE_CHECKING:  # the parts below load on first use: the terminal app starts without them
    from noted.chat.engine import ChatEngine
    from noted.chat.transcripts import Transcripts
    from noted.embeddings import Embedder
    from noted.indexer.coverage import IndexCoverage, IndexReport
    from noted.indexer.service import IndexerService, IndexStatus
    from noted.ops.review import Review
    from noted.ops.session import EditorSession
    from noted.providers import ChatProvider, ProviderConfig
    from noted.search.finder import Finder
    from noted.search.semantic import SemanticSearch
    from noted.services.vault_status import VaultStatus
    from noted.tools import ToolContext, ToolRegistry

log = logging.getLogger(__name__)


@dataclass
class Services:
    """The long-lived parts built for one profile."""

    profile: Profile
    settings: Settings
    store: Store
    """The notes: the profile's own database, or a running Joplin. Front ends use only the protocol."""
    keyword: KeywordSearch
    db: Database
    """The profile's local database, where the index, the lease and the chats live: the store's own
    on SQLite, the sidecar on Joplin. For the parts built here; front ends never query it."""
    _registry: ToolRegistry | None = field(default=None, repr=False)
    _embedder: Embedder | None = field(default=None, repr=False)
    _semantic: SemanticSearch | None = field(default=None, repr=False)
    _transcripts: Transcripts | None = field(default=None, repr=False)
    _review: Review | None = field(default=None, repr=False)
    _indexer: IndexerService | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _closed: bool = field(default=False, repr=False)
    _unfollow: Callable[[], None] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        from noted.services.large_notes import follow_part  # sections of a long note's opening

        self._unfollow = follow_part(self.settings, self.store, self.keyword)

    @classmethod
    def open(
        cls,
        profile: Profile,
        *,
        welcome: bool = True,
        settings: Settings | None = None,
        backend: str | None = None,
        on_upgrade: Callable[[], None] | None = None,
        vault: str | None = None,
        on_scan: Callable[[int, int], None] | None = None,
        scan_in_background: bool = False,
    ) -> Services:
        """Open (and on first run create) the profile's store and what sits on it.

        ``backend`` (``sqlite`` or ``joplin``) overrides the ``backend`` setting for this run;
        ``on_upgrade`` is called before the notebook database's schema is brought up to date.
        ``vault`` (a folder) works on that Markdown folder for this run, as ``backend = vault`` with
        ``vault.path`` does for good; ``on_scan`` is told ``(done, total)`` as its start-up scan goes,
        which ``scan_in_background`` leaves to the watcher when the folder was read before (the app).
        """
        settings = settings or Settings.load(profile)
        first_run = profile.is_new
        if vault is not None or (backend or settings.get(BACKEND)) == "vault":
            folder = vault or settings.get(VAULT_PATH)
            return cls._open_vault(profile, settings, folder, on_scan, scan_in_background)
        if (backend or settings.get(BACKEND)) == "joplin":
            from noted.search.joplin import keyword_search_for
            from noted.store.joplin import open_joplin_store

            joplin = open_joplin_store(settings, profile.root)
            return cls(
                profile=profile,
                settings=settings,
                store=joplin,
                keyword=keyword_search_for(joplin),
                db=joplin.db,
            )
        store = SqliteStore.open(
            profile.db_path,
            profile.resources_dir,
            on_upgrade=on_upgrade,
            thinning=Thinning.of(settings),
            part_chars=settings.get(LARGE_NOTE_CHARS),
        )
        if first_run and welcome:
            from noted.store.welcome import create_welcome

            try:
                create_welcome(store)
            except BaseException:
                store.close()
                raise
        return cls(profile=profile, settings=settings, store=store, keyword=KeywordSearch(store), db=store.db)

    @classmethod
    def _open_vault(
        cls,
        profile: Profile,
        settings: Settings,
        folder: str,
        on_scan: Callable[[int, int], None] | None,
        scan_in_background: bool,
    ) -> Services:
        from pathlib import Path

        from noted.errors import InvalidInputError
        from noted.store.vault import VaultStore

        if not folder:
            raise InvalidInputError(
                "backend is vault but no Markdown folder is set", hint="noted config set vault.path DIR"
            )
        store = VaultStore.open(
            Path(folder).expanduser(),
            profile.root,
            progress=on_scan,
            defer_scan=scan_in_background,
            thinning=Thinning.of(settings),
            part_chars=settings.get(LARGE_NOTE_CHARS),
        )
        return cls(profile=profile, settings=settings, store=store, keyword=KeywordSearch(store), db=store.db)

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
        from noted.services.configured import embedder_for

        return embedder_for(self.settings, self.profile)

    def semantic(self) -> SemanticSearch:
        """Semantic search over the index, or ``UnavailableError`` saying why it cannot run."""
        from noted.search.semantic import SemanticSearch

        with self._lock:
            if self._semantic is not None:
                return self._semantic
        try:
            embedder = self.embedder()
        except ConfigError as exc:  # a model folder set wrong: search by meaning cannot run, by keyword can
            raise UnavailableError(exc.message, hint=exc.hint) from exc
        semantic = SemanticSearch(
            self.store,
            self.db,
            embedder,
            part_chars=self.keyword.part_chars,
            indexing=self.settings.get(SEARCH_INDEXER_ENABLED),
        )
        with self._lock:
            self._semantic = self._semantic or semantic
            return self._semantic

    def finder(self) -> Finder:
        """Search, the one way every front end runs it (``noted.search.finder``)."""
        from noted.search.finder import Finder

        return Finder(self.store, self.keyword, self.semantic, self.settings)

    def indexer_service(
        self, *, label: str, on_status: Callable[[IndexStatus], None] | None = None
    ) -> IndexerService:
        """An indexer for this profile, not started: ``start()`` runs it in the background, the
        CLI runs it in its own thread (``run_here``). It has its own model, so the one the search
        uses keeps its own (not niced) threads: the indexer runs at a lower priority
        (``noted.indexer.priority``)."""
        from noted.indexer.engine import Indexer
        from noted.indexer.lease import Lease
        from noted.indexer.service import IndexerService

        part = self.settings.get(LARGE_NOTE_CHARS)
        indexer = Indexer(self.store, self.db, self._make_embedder(), part_chars=part)
        return IndexerService(indexer, Lease(self.db, label=label), on_status=on_status)

    def start_indexer(
        self, *, label: str, on_status: Callable[[IndexStatus], None] | None = None
    ) -> IndexerService | None:
        """Start indexing in the background (if ``search.indexer.enabled``); returns the service."""
        if not self.settings.get(SEARCH_INDEXER_ENABLED):
            return None
        if self._indexer is None:
            service = self.indexer_service(label=label, on_status=on_status)  # loads the model: slow
            with self._lock:  # closed, or started by another thread meanwhile: this one goes
                keep = not self._closed and self._indexer is None
                self._indexer = service if keep else self._indexer
            if keep:
                service.start()
            else:
                service.close()
        return None if self._closed else self._indexer

    def start_watching(self) -> None:
        """Follow outside changes while this process runs (the app, MCP, ``noted index --watch``):
        a Markdown folder's are watched, Joplin's events polled at a pace that spares Joplin
        (``noted.store.joplin.events``); the embedded profile's reach the feed without it."""
        from noted.store.joplin import JoplinStore
        from noted.store.vault import VaultStore

        if isinstance(self.store, VaultStore | JoplinStore):
            self.store.start_watching()

    def watch_problem(self) -> str:
        """While a Markdown folder's outside changes are scanned for rather than watched, a line
        saying so and why; "" while it is watched, and on the other backends."""
        from noted.store.vault import VaultStore

        return self.store.watch_problem if isinstance(self.store, VaultStore) else ""

    def vault_status(self) -> VaultStatus | None:
        """The Markdown folder's status, or None when the notes are not in one."""
        from noted.services.vault_status import VaultStatus
        from noted.store.vault import VaultStore

        if not isinstance(self.store, VaultStore):
            return None
        skipped = tuple(self.store.ledger.skipped())
        folders = self.store.list_folders()
        problems = list(self.store.front_problems())
        return VaultStatus(
            str(self.store.vault.root),
            self.store.count_notes(),
            len(folders),
            skipped,
            tuple((path, problem) for path, problem, unread in problems if unread),
            tuple((path, problem) for path, problem, unread in problems if not unread),
        )

    def index_coverage(self, note_ids: Sequence[str] | None = None) -> IndexCoverage:
        """How much of the store (or of ``note_ids``) the index covers; read without the model."""
        from noted.indexer.coverage import index_coverage

        return index_coverage(self.store, self.db, note_ids=note_ids)

    def index_report(self) -> IndexReport:
        """The index's bookkeeping (``noted index status``); read without the model."""
        from noted.indexer.coverage import index_report

        return index_report(self.store, self.db)

    @property
    def indexer(self) -> IndexerService | None:
        return self._indexer

    # Tools and the assistant ------------------------------------------------------------
    def tool_context(self, actor: str, *, editor: EditorSession | None = None) -> ToolContext:
        """What a tool call needs, for one caller (the whole profile: no scope)."""
        from noted.tools import ToolContext

        return ToolContext(
            store=self.store,
            settings=self.settings,
            keyword=self.keyword,
            actor=actor,
            semantic=self.semantic,
            editor=editor,
            review=self.review.rows,
        )

    @property
    def transcripts(self) -> Transcripts:
        with self._lock:
            if self._transcripts is None:
                from noted.chat.transcripts import Transcripts
                from noted.store.sqlite.chats import SqliteChats

                self._transcripts = Transcripts(SqliteChats(self.db))
            return self._transcripts

    @property
    def review(self) -> Review:
        """What other actors changed and the writes that wait, kept beside the chats."""
        with self._lock:
            if self._review is None:
                from noted.ops.review import Review
                from noted.store.sqlite.review import SqliteReview

                self._review = Review(self.store, SqliteReview(self.db))
            return self._review

    def reload_settings(self) -> None:
        """Read the config file again if another process changed it (one ``stat`` if not), so a switch
        flipped there decides what runs next. Blocking, its subscribers run here: call it from a worker
        thread. A file that no longer parses keeps the values read before (the app's follower says so)."""
        try:
            self.settings.reload()
        except NotedError as exc:
            log.debug("config file not reloaded: %s", exc)

    def provider_config(self) -> ProviderConfig:
        from noted.services.configured import provider_config_for

        return provider_config_for(self.settings)

    def provider(self) -> ChatProvider:
        """A chat provider as configured now (settings may change between runs)."""
        from noted.providers import make_provider

        return make_provider(self.provider_config())

    def chat_engine(
        self, *, provider: Callable[[], ChatProvider] | None = None, label: str = "tui"
    ) -> ChatEngine:
        """The chat engine over these services (``provider`` replaces the configured one, for tests;
        ``label`` names this process to another that sends in a conversation it answers in)."""
        from noted.chat.engine import ChatEngine, ChatSetup

        def review(ctx: ToolContext) -> ToolContext:
            ctx.writes_wait = self.settings.get(AI_WRITES) == "review"
            return ctx

        def refresh(ctx: ToolContext) -> None:
            self.reload_settings()
            review(ctx)

        return ChatEngine(
            ChatSetup(
                provider=provider or self.provider,
                registry=self.registry,
                context=lambda actor, editor: review(self.tool_context(actor, editor=editor)),
                refresh=refresh,
                transcripts=self.transcripts,
                approve_writes=self.registry.asks,
                budget=lambda: self.settings.get(AI_BUDGET_TOKENS),
                timeout=lambda: float(self.settings.get(AI_TIMEOUT_SECONDS)),
                label=label,
            )
        )

    # Closing ------------------------------------------------------------------------------
    def close(self) -> None:
        """Stop background work and close every part, the store last."""
        with self._lock:  # a model still loading is closed when it arrives (start_indexer)
            self._closed = True
        if self._unfollow is not None:
            self._unfollow()
        if self._indexer is not None:
            self._indexer.close()  # with its own model (see indexer_service)
            self._indexer = None
        if self._embedder is not None:
            try:
                self._embedder.close()
            except Exception:
                log.exception("closing the embedding model failed")
            self._embedder = None
        self.store.close()
