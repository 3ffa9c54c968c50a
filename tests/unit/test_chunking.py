"""The chunker: sections first, then windows of the model's own tokens."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import pytest
from tokenizers import Tokenizer

from noted.embeddings.fake import FakeEmbedder
from noted.embeddings.model_spec import ModelSpec, default_spec
from noted.embeddings.onnx import OnnxEmbedder
from noted.indexer.chunking import Chunk, chunk_note, content_hash
from noted.markdown import outline

BODY = """Some words before any heading.

# Garden

Tomatoes need sun.

## Pests

Aphids on the roses.

# Kitchen

Soup tonight.
"""


@pytest.fixture(scope="module")
def minilm() -> Iterator[OnnxEmbedder]:
    # Only the tokenizer is used: the ONNX session loads on first embed, which never happens here.
    embedder = OnnxEmbedder(default_spec())
    yield embedder
    embedder.close()


def _long_text(words: int, seed: int = 7) -> str:
    vocabulary = (
        "the note about gardening tomatoes aphids internationalisation café naïve résumé "
        "rebase commit branch, (parenthesised) e-mail 2024-05-01 ünïcödé 東京 emoji🙂 x"
    ).split()
    out, state = [], seed
    for i in range(words):
        state = (state * 1103515245 + 12345) % 2**31
        out.append(vocabulary[state % len(vocabulary)])
        if i % 23 == 22:
            out.append("\n")
    return " ".join(out)


def _assert_spans_slice_body(chunks: list[Chunk], body: str, title: str) -> None:
    for chunk in chunks:
        lead = f"{title}\n\n" if chunk.index == 0 and title else ""
        assert chunk.text == lead + body[chunk.start : chunk.end]


def test_chunks_follow_sections_with_their_paths() -> None:
    chunks = chunk_note("n1", "Home", BODY, FakeEmbedder())
    assert [(c.section_path, c.section_heading) for c in chunks] == [
        ("0", ""),
        ("1", "Garden"),
        ("1.1", "Pests"),
        ("2", "Kitchen"),
    ]
    assert [c.index for c in chunks] == [0, 1, 2, 3]
    assert {c.note_id for c in chunks} == {"n1"}
    # A section's chunk holds its own text, not its subsection's.
    assert "Aphids" not in chunks[1].text and "Aphids" in chunks[2].text
    # The section the outline finds at a chunk's start is the chunk's section.
    sections = outline(BODY)
    for chunk in chunks[1:]:
        found = sections.at(chunk.start)
        assert found is not None and found.path == chunk.section_path


def test_a_heading_alone_is_no_chunk_unless_it_is_the_first() -> None:
    body = "Intro.\n\n# Setup\n\n## Install\n\nRun the installer.\n\n# Empty at the end\n"
    chunks = chunk_note("n1", "Guide", body, FakeEmbedder())
    # "# Setup" is right above its subsection and "# Empty at the end" has nothing under it.
    assert [c.section_path for c in chunks] == ["0", "1.1"]
    _assert_spans_slice_body(chunks, body, "Guide")
    # The first chunk is kept even when it is a heading alone: it carries the title, and a note
    # of headings only is still found.
    first = chunk_note("n1", "Guide", "# Setup\n\n## Install\n\nRun it.\n", FakeEmbedder())
    assert [(c.section_path, c.text) for c in first] == [
        ("1", "Guide\n\n# Setup"),
        ("1.1", "## Install\n\nRun it."),
    ]
    assert [c.section_path for c in chunk_note("n1", "", "# A\n\n# B\n", FakeEmbedder())] == ["1"]


def test_spans_slice_the_body_back_to_the_text() -> None:
    chunks = chunk_note("n1", "Home", BODY, FakeEmbedder())
    _assert_spans_slice_body(chunks, BODY, "Home")
    assert chunks[1].text == "# Garden\n\nTomatoes need sun."


def test_title_leads_only_the_first_chunk() -> None:
    chunks = chunk_note("n1", "  Weekend   plans ", BODY, FakeEmbedder())
    assert chunks[0].text == "Weekend plans\n\nSome words before any heading."
    assert all("Weekend" not in c.text for c in chunks[1:])


def test_blank_notes_and_title_only_notes() -> None:
    assert chunk_note("n1", "", " \n\n\t", FakeEmbedder()) == []
    [only] = chunk_note("n1", "Call the dentist", "\n\n", FakeEmbedder())
    assert (only.text, only.start, only.end, only.section_path) == ("Call the dentist", 0, 0, "0")


def test_windows_overlap_and_cover_a_long_section() -> None:
    fake = FakeEmbedder(max_tokens=50)
    body = "# Long\n\n" + _long_text(400)
    chunks = chunk_note("n1", "", body, fake, overlap=8)
    assert len(chunks) > 8
    assert chunks[0].start == 0 and chunks[-1].end == len(body.rstrip())
    for before, after in zip(chunks, chunks[1:], strict=False):
        shared = body[after.start : before.end]
        assert after.start < before.end, "consecutive windows must overlap"
        assert 8 <= fake.count_tokens(shared) <= 16
        assert after.section_path == "1"
    _assert_spans_slice_body(chunks, body, "")


def test_no_overlap_when_asked() -> None:
    fake = FakeEmbedder(max_tokens=40)
    body = _long_text(300)
    chunks = chunk_note("n1", "", body, fake, overlap=0)
    for before, after in zip(chunks, chunks[1:], strict=False):
        assert after.start >= before.end
        assert body[before.end : after.start].strip() == ""  # nothing is skipped either


def test_windows_end_at_line_breaks_when_they_can() -> None:
    fake = FakeEmbedder(max_tokens=60)
    body = "\n".join(" ".join(f"w{line}x{i}" for i in range(9)) for line in range(60))
    chunks = chunk_note("n1", "", body, fake)
    for chunk in chunks[:-1]:
        assert body[chunk.end] == "\n", chunk.text[-30:]


@functools.cache
def _model_tokenizer(path: str) -> Tokenizer:
    """The model's tokenizer without truncation, to count what the model is really fed."""
    tokenizer = Tokenizer.from_file(path)
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def _real_token_count(spec: ModelSpec, text: str) -> int:
    """Tokens the model is fed for ``text``, special tokens included."""
    return len(_model_tokenizer(str(spec.tokenizer_path)).encode(text).ids)


@pytest.mark.parametrize("cap", [None, 40])
def test_chunks_fit_the_real_model(minilm: OnnxEmbedder, cap: int | None) -> None:
    # Words that split into many word pieces, accents, CJK and emoji: the chunk must still fit
    # once re-tokenized on its own, with the title leading the first chunk.
    title = "Internationalisation notes " * 3
    # A long run without whitespace forces cuts inside words, where a slice re-tokenizes into
    # more pieces than it had in the whole ("##isation" alone becomes "is", "##ation").
    run = "https://example.com/" + "-".join(f"internationalisation{i}" for i in range(300))
    body = "# Intro\n\n" + _long_text(1500) + "\n\n## Blob\n\n" + run
    chunks = chunk_note("n1", title, body, minilm, max_tokens=cap)
    limit = minilm.spec.max_length if cap is None else cap + 2
    counts = [_real_token_count(minilm.spec, minilm.passage_prefix + c.text) for c in chunks]
    assert max(counts) <= limit
    assert max(counts) >= limit - 20, "windows should be close to full, not needlessly small"
    assert chunks[0].text.startswith("Internationalisation notes Internationalisation notes")
    assert chunks[-1].section_heading == "Blob"
    _assert_spans_slice_body(chunks, body, " ".join(title.split()))


def test_chunks_leave_room_for_the_passage_prefix() -> None:
    fake = FakeEmbedder(max_tokens=30, passage_prefix="passage of text: ")
    chunks = chunk_note("n1", "A title", _long_text(200), fake)
    assert max(fake.count_tokens(fake.passage_prefix + c.text) for c in chunks) == 30


def test_hashes_are_stable_and_follow_the_text_only() -> None:
    fake = FakeEmbedder()
    first = chunk_note("n1", "Home", BODY, fake)
    assert [c.content_hash for c in chunk_note("n1", "Home", BODY, fake)] == [c.content_hash for c in first]
    assert first[1].content_hash == content_hash(first[1].text)
    # An edit in the kitchen shifts nothing before it and changes only the kitchen's hash.
    edited = chunk_note("n1", "Home", BODY.replace("Soup tonight.", "Curry tonight."), fake)
    changed = [a.section_path for a, b in zip(first, edited, strict=True) if a.content_hash != b.content_hash]
    assert changed == ["2"]
    # A line added to the first section moves every later span but keeps their hashes.
    grown = chunk_note("n1", "Home", BODY.replace("heading.", "heading.\nAnd more."), fake)
    assert [c.content_hash for c in grown[1:]] == [c.content_hash for c in first[1:]]
    assert grown[1].start > first[1].start
    assert len({c.content_hash for c in first}) == len(first)
