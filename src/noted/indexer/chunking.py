"""Cut a note into the chunks the index embeds: sections first, then windows of model tokens.

Every section's own text (its heading line and the text before its first subsection, or the text
before the first heading, section ``0``) is chunked on its own, so a chunk never straddles two
sections and a hit names the section it came from. A section that fits the model is one chunk; a
longer one is cut into windows of the model's own tokens that overlap a little, each ending at a
line or word break where one is near. The note's title leads the first chunk, so a note whose
body never repeats its title is still found by it.

A chunk is sized so that the passage prefix, the title (first chunk) and the text fit in
``Embedder.max_tokens``: nothing is cut off by the model. Whitespace-only sections are skipped;
sections are never merged, which keeps the section of a hit exact.

A section whose own text is its heading alone (a heading right above its first subsection) is no
chunk either, unless it is the note's first: a few words embedded alone sit close to any short
query that shares one of them. In the search evaluation (``tests/bench``) such chunks were 53 of
Git's 5,841 and 6 of PostgreSQL's 5,059; "# Chapter 1. Repositories and Branches" ranked the Git
User Manual above git-grep for "buscar texto en los archivos del repositorio". A hit still lands
under it, at the subsection that matched.

Every chunk led by its title and heading path ("git-commit › DISCUSSION") was tried on the search
evaluation: search by meaning rose (nDCG@10 over both halves 0.693 -> 0.716) but hybrid search,
what the front ends run, fell (held out 0.835 -> 0.822, paraphrases 0.741 -> 0.686), so only the
first chunk has the title.

Beside its chunks, a note has one vector of its outline (``outline_chunk``: title, headings,
opening), stored apart and used only to weigh the note as a whole.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from noted.embeddings import Embedder
from noted.markdown import Section, outline

CHUNKING = "4"
"""The version of the rules above, kept in the index's ``meta``: when it differs, the indexer scans
every note again (a chunk whose text is unchanged keeps its vector). 2: a heading alone is no chunk.
3: every note also has its outline (``outline_chunk``), so an index made before gains it by
embedding one text a note. 4: a note longer than ``notes.largeNoteChars`` is cut from its opening
only (``noted.markdown.opening``), as the reader shows it."""

OUTLINE_INDEX = -1
"""``Chunk.index`` of a note's outline: one vector a note, kept apart from its chunks (the index's
``index_notes``), never found as a passage."""
OPENING = 2000
"""Characters of the body an outline takes after the headings (the model keeps what fits)."""

DEFAULT_OVERLAP = 32
"""Tokens repeated at the start of a window from the end of the one before."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of a note to embed, and where it sits in the note's body.

    ``body[start:end]`` is the chunk's text in the body; ``text`` is what is embedded: the same,
    led by the note's title and a blank line for the note's first chunk. ``content_hash`` depends
    only on ``text``, so an edit elsewhere in the note that shifts offsets does not re-embed it.
    """

    note_id: str
    index: int
    section_path: str
    section_heading: str
    start: int
    end: int
    text: str
    content_hash: str


def content_hash(text: str) -> str:
    """The hash ``Chunk.content_hash`` holds for ``text`` (32 hex digits)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def chunk_budget(embedder: Embedder, max_tokens: int | None = None) -> int:
    """The tokens a chunk's text (title included) may use: the model's limit less the prefix."""
    budget = embedder.max_tokens - embedder.count_tokens(embedder.passage_prefix)
    if max_tokens is not None:
        budget = min(budget, max_tokens)
    if budget < 8:
        raise ValueError(f"a chunk of {budget} tokens is too small to embed")
    return budget


def chunk_note(
    note_id: str,
    title: str,
    body: str,
    embedder: Embedder,
    *,
    max_tokens: int | None = None,
    overlap: int = DEFAULT_OVERLAP,
) -> list[Chunk]:
    """Cut one note into chunks, in body order.

    Args:
        note_id: Recorded in every chunk.
        title: Leads the first chunk's text.
        body: The note's Markdown.
        embedder: Supplies the tokenizer, the token limit and the passage prefix.
        max_tokens: A smaller cap than the model's own, for shorter chunks.
        overlap: Tokens shared by consecutive windows of one long section.

    Returns:
        The chunks; a note with a blank body but a title gets one chunk of the title alone (span
        ``0:0``, section ``0``); a blank note gets none.
    """
    budget = chunk_budget(embedder, max_tokens)
    lead = title_lead(title, embedder, max_tokens)
    pieces: list[tuple[str, str, int, int]] = []
    for section in outline(body).sections:
        start, end = _strip(body, section.start, section.own_end)
        if start == end or (pieces and _heading_alone(body, section)):
            continue
        reserve = embedder.count_tokens(lead) if not pieces else 0
        for window in _windows(body, start, end, embedder, budget, reserve, overlap):
            pieces.append((section.path, section.heading, *window))
    if not pieces:
        if not lead:
            return []
        return [Chunk(note_id, 0, "0", "", 0, 0, lead.strip(), content_hash(lead.strip()))]
    chunks = []
    for index, (path, heading, start, end) in enumerate(pieces):
        text = (lead if index == 0 else "") + body[start:end]
        chunks.append(Chunk(note_id, index, path, heading, start, end, text, content_hash(text)))
    return chunks


def outline_chunk(
    note_id: str, title: str, body: str, embedder: Embedder, *, max_tokens: int | None = None
) -> Chunk | None:
    """The note's outline, to embed as one vector of the whole note: its title, its headings in
    order and its opening, cut to what the model takes. None for a blank note.

    A question phrased unlike any one passage is often close to what the note is about as a
    whole; hybrid search adds this vector's closeness to a note's (``noted.search.hybrid``).
    """
    headings = " · ".join(" ".join(s.heading.split()) for s in outline(body).sections if s.heading)
    parts = (" ".join(title.split()), headings, body[:OPENING].strip())
    text = "\n\n".join(p for p in parts if p)
    if not text:
        return None
    text = _cut(text, embedder, chunk_budget(embedder, max_tokens))
    return Chunk(note_id, OUTLINE_INDEX, "", "", 0, 0, text, content_hash(text))


def title_lead(title: str, embedder: Embedder, max_tokens: int | None = None) -> str:
    """What leads the text of a note's first chunk: its title line, cut to half a chunk."""
    return _title_lead(title, embedder, chunk_budget(embedder, max_tokens) // 2)


def _title_lead(title: str, embedder: Embedder, limit: int) -> str:
    """``"Title\\n\\n"``, with the title cut to ``limit`` tokens so the body keeps room."""
    title = " ".join(title.split())
    return f"{_cut(title, embedder, limit)}\n\n" if title else ""


def _cut(text: str, embedder: Embedder, limit: int) -> str:
    """``text`` cut after its first ``limit`` tokens."""
    spans = embedder.token_spans(text)
    return text[: spans[limit - 1][1]] if len(spans) > limit else text


def _heading_alone(body: str, section: Section) -> bool:
    """Whether the section's own text is its heading line and nothing else."""
    return section.path != "0" and not body[section.body_start : section.own_end].strip()


def _strip(body: str, start: int, end: int) -> tuple[int, int]:
    text = body[start:end]
    lead = len(text) - len(text.lstrip())
    return start + lead, start + lead + len(text.strip())


def _windows(
    body: str, start: int, end: int, embedder: Embedder, budget: int, reserve: int, overlap: int
) -> list[tuple[int, int]]:
    """Character ranges of ``body[start:end]`` cut into windows of at most ``budget`` tokens.

    The first window also leaves ``reserve`` tokens for the title.
    """
    spans = [(start + a, start + b) for a, b in embedder.token_spans(body[start:end])]
    if len(spans) + reserve <= budget:
        return [(start, end)]
    overlap = max(0, min(overlap, budget // 4))
    windows: list[tuple[int, int]] = []
    first = 0
    while first < len(spans):
        room = budget - (reserve if not windows else 0)
        last = _fit(body, spans, first, room, embedder, end)
        char_start = start if first == 0 else spans[first][0]
        char_end = end if last == len(spans) else spans[last - 1][1]
        windows.append((char_start, char_end))
        if last == len(spans):
            break
        # Start the next window ``overlap`` tokens back, at a word's start if one is close.
        back = last - overlap
        first = max(first + 1, _break_at(body, spans, back, line_floor=back + 1, word_floor=back - overlap))
    return windows


def _fit(body: str, spans: list[tuple[int, int]], first: int, room: int, embedder: Embedder, end: int) -> int:
    """The end (exclusive token index) of the window starting at token ``first``."""
    last = min(first + room, len(spans))
    if last < len(spans):
        # End at a line break in the last quarter of the window, or else at a word break in
        # its second half, rather than inside a word.
        floor = first + max(1, room // 2)
        last = _break_at(body, spans, last, line_floor=max(floor, first + room * 3 // 4), word_floor=floor)
    # Re-tokenizing a slice can cost a token or two more than its share of the whole (a word
    # cut inside, a prefix merging differently); shrink until the model really takes it.
    while last > first + 1:
        char_end = end if last == len(spans) else spans[last - 1][1]
        excess = embedder.count_tokens(body[spans[first][0] : char_end]) - room
        if excess <= 0:
            break
        last = max(first + 1, last - excess)
    return last


def _break_at(
    body: str, spans: list[tuple[int, int]], limit: int, *, line_floor: int, word_floor: int
) -> int:
    """The largest token index ``k <= limit`` that starts a line (``k >= line_floor``) or a word.

    Returns ``limit`` when no token in range follows whitespace.
    """
    limit = min(limit, len(spans) - 1)
    for k in range(limit, max(line_floor, 1) - 1, -1):
        if "\n" in body[spans[k - 1][1] : spans[k][0]] or body[spans[k][0] - 1] == "\n":
            return k
    for k in range(limit, max(word_floor, 1) - 1, -1):
        if body[spans[k][0] - 1].isspace():
            return k
    return limit
