"""The one result type (``noted.search.results.Hit``) made from what each arm found.

A hit names up to ``MAX_SECTIONS`` sections, best first; the first is where the note opens. When
the query's vectors were made (by meaning or both), every chunk of a shown note is scored against
them (``SemanticSearch.passages``) and its sections are offered closest first: the first is the
section of the chunk that matched best by meaning. A note only the keyword arm found is ranked
the same way when it has vectors: where a query's words first occur is often an introduction or
a list of options, not the section that answers. Without vectors (keyword mode, or no usable
index), a hit names the section of the first word found.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from noted.search.results import MAX_SECTIONS, Arm, Hit, Section

if TYPE_CHECKING:
    from noted.search.keyword import KeywordHit
    from noted.search.semantic import Passages, SemanticHit


def keyword_hit(hit: KeywordHit, passages: Passages | None = None) -> Hit:
    """A note found by its words alone."""
    located = () if hit.section is None else (Section(hit.section, hit.section_heading or ""),)
    return Hit(
        note_id=hit.note_id,
        title=hit.title,
        notebook_id=hit.notebook_id,
        notebook=hit.notebook_title,
        updated_time=hit.updated_time,
        score=hit.score,
        arms=(Arm.KEYWORD,),
        sections=_ranked(passages) if passages is not None else located,
        snippet=hit.snippet,
        is_todo=hit.is_todo,
        todo_completed=hit.todo_completed,
        keyword_score=hit.score,
    )


def semantic_hit(hit: SemanticHit, passages: Passages | None = None, *, score: float | None = None) -> Hit:
    """A note found by meaning: its sections by how close their chunks are."""
    if passages is None:
        sections: tuple[Section, ...] = (Section(hit.section, hit.section_heading),)
        snippet, text = hit.snippet, hit.chunk_text
    else:
        sections, snippet, text = _ranked(passages), passages.snippet, passages.text
    return Hit(
        note_id=hit.note_id,
        title=hit.title,
        notebook_id=hit.notebook_id,
        notebook="",
        updated_time=hit.updated_time,
        score=hit.score if score is None else score,
        arms=(Arm.SEMANTIC,),
        sections=sections,
        snippet=snippet,
        passage=text,
        semantic_score=hit.score,
    )


def fused_hit(
    note_id: str, score: float, kw: KeywordHit | None, sem: SemanticHit | None, passages: Passages | None
) -> Hit:
    """A note of a hybrid search, from the arms that found it."""
    if sem is None:
        assert kw is not None
        return dataclasses.replace(keyword_hit(kw, passages), score=round(score, 6))
    hit = semantic_hit(sem, passages, score=round(score, 6))
    if kw is None:
        return hit
    return dataclasses.replace(
        hit,
        arms=(Arm.KEYWORD, Arm.SEMANTIC),
        notebook=kw.notebook_title,
        is_todo=kw.is_todo,
        todo_completed=kw.todo_completed,
        keyword_score=kw.score,
    )


def _ranked(passages: Passages) -> tuple[Section, ...]:
    snippets = passages.snippets
    return tuple(
        Section(s.path, s.heading, snippets[i] if i < len(snippets) else "")
        for i, s in enumerate(passages.sections[:MAX_SECTIONS])
    )
