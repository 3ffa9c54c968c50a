"""What the MCP server needs from the rest of noted, and nothing more.

The server is a front end: it gets the parts it uses from the composition root and never builds
a store, a search or a registry of its own. ``McpDeps`` names those parts; ``ServicesLike`` is the
part of ``noted.services.Services`` that ``McpDeps.of(services)`` picks them from. The TUI passes
its own services so the embedded server shares its store, settings and switches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from noted.settings import Settings
from noted.store.protocol import Store
from noted.store.review import ReviewRows

if TYPE_CHECKING:
    from noted.ops.review import Review
    from noted.search.keyword import KeywordSearch
    from noted.search.semantic import SemanticSearch
    from noted.tools.registry import ToolRegistry

SemanticFactory = Callable[[], "SemanticSearch"]
"""Builds (or returns) semantic search; raises ``UnavailableError`` saying why it cannot run."""


class ServicesLike(Protocol):
    """The parts of ``Services`` the MCP server uses (read-only attributes are enough)."""

    @property
    def store(self) -> Store: ...

    @property
    def keyword(self) -> KeywordSearch: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def registry(self) -> ToolRegistry: ...

    def semantic(self) -> SemanticSearch:
        """Semantic search, or ``UnavailableError`` saying why it cannot run."""
        ...

    @property
    def review(self) -> Review: ...


@dataclass(frozen=True, slots=True)
class McpDeps:
    """The parts one MCP server serves from: one store, one set of switches, one registry."""

    store: Store
    keyword: KeywordSearch
    settings: Settings
    tools: ToolRegistry
    semantic: SemanticFactory | None = None
    """None: semantic search is not set up in this process, and the tool says so."""
    log_path: Path | None = None
    """Where the server's log goes, shown to the person on start (stdout is the protocol on stdio)."""
    review: ReviewRows | None = None
    """Where a review-mode client's writes wait as proposals; None: nowhere, so they are refused."""

    @classmethod
    def of(cls, services: ServicesLike, *, log_path: Path | None = None) -> McpDeps:
        """The parts of ``services``."""
        return cls(
            store=services.store,
            keyword=services.keyword,
            settings=services.settings,
            tools=services.registry,
            semantic=services.semantic,
            log_path=log_path,
            review=services.review.rows,
        )
