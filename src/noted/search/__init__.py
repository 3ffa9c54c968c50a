"""Retrieval: keyword search (Joplin's grammar over FTS5); semantic and hybrid search build on it."""

from __future__ import annotations

from noted.search.keyword import KeywordHit, KeywordResults, KeywordSearch
from noted.search.query import Query, parse_query

__all__ = ["KeywordHit", "KeywordResults", "KeywordSearch", "Query", "parse_query"]
