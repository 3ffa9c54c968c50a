"""Markdown note bodies that look like a person's notes: headings, paragraphs, lists, code, links.

Words are drawn from a ranked vocabulary with a Zipf–Mandelbrot law, so the index sees the term
frequencies of real text (a few words everywhere, a long tail of words found in a handful of
notes). Lengths follow a log-normal law: many short notes, some long ones up to ``MAX_CHARS``.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

MEDIAN_CHARS = 550
SIGMA = 1.1
MIN_CHARS = 40
MAX_CHARS = 20_000
ZIPF_S = 1.1
ZIPF_Q = 2.7
REAL_TOP = 1200
"""Roughly where the real English words of the vocabulary end and the invented ones begin."""

DOMAINS = (
    "en.wikipedia.org",
    "github.com",
    "news.ycombinator.com",
    "docs.python.org",
    "stackoverflow.com",
    "arxiv.org",
    "example.com",
    "medium.com",
    "sqlite.org",
    "developer.mozilla.org",
)
_LANGS = ("python", "sh", "sql", "js", "")


class Words:
    """A ranked vocabulary and the cumulative Zipf weights to sample it."""

    def __init__(self, ranked: Sequence[str]) -> None:
        self.ranked = list(ranked)
        weights = (1.0 / (r + ZIPF_Q) ** ZIPF_S for r in range(1, len(self.ranked) + 1))
        self.cum = list(itertools.accumulate(weights))
        self.content_start = 100
        """Rank where content words start (titles and notebook names skip the stop words)."""

    def draw(self, rng: random.Random, k: int) -> list[str]:
        """``k`` words with Zipf frequencies."""
        return rng.choices(self.ranked, cum_weights=self.cum, k=k)

    def content(self, rng: random.Random, k: int, top: int = 6000) -> list[str]:
        """``k`` words skipping the stop words: mostly real words (ranks 100–1,200), some rarer ones."""
        out = []
        for _ in range(k):
            lo, hi = (self.content_start, REAL_TOP) if rng.random() < 0.75 else (REAL_TOP, top)
            out.append(self.ranked[lo + int((hi - lo) * rng.random() ** 1.5)])
        return out


def target_length(rng: random.Random) -> int:
    """A body length in characters from the log-normal law, clipped to the allowed range."""
    return max(MIN_CHARS, min(MAX_CHARS, int(rng.lognormvariate(math.log(MEDIAN_CHARS), SIGMA))))


def _sentence(words: Words, rng: random.Random) -> str:
    tokens = words.draw(rng, rng.randint(5, 22))
    roll = rng.random()
    if roll < 0.06:
        i = rng.randrange(len(tokens))
        tokens[i] = f"**{tokens[i]}**"
    elif roll < 0.12:
        i = rng.randrange(len(tokens))
        tokens[i] = f"`{tokens[i]}`"
    elif roll < 0.16:
        i = rng.randrange(len(tokens) - 1)
        tokens[i : i + 2] = [f"[{tokens[i]} {tokens[i + 1]}]({url(words, rng)})"]
    if len(tokens) > 9 and rng.random() < 0.4:
        tokens[rng.randrange(3, len(tokens) - 3)] += ","
    text = " ".join(tokens)
    return text[:1].upper() + text[1:] + rng.choice("....?!")


def _paragraph(words: Words, rng: random.Random) -> str:
    return " ".join(_sentence(words, rng) for _ in range(rng.randint(1, 6)))


def _bullets(words: Words, rng: random.Random) -> str:
    style = rng.choice(("- ", "* ", "1. ", "- [ ] ", "- [x] "))
    items = []
    for n in range(rng.randint(2, 7)):
        marker = f"{n + 1}. " if style == "1. " else style
        items.append(marker + " ".join(words.draw(rng, rng.randint(2, 10))))
    return "\n".join(items)


def _code(words: Words, rng: random.Random) -> str:
    lang = rng.choice(_LANGS)
    lines = []
    for _ in range(rng.randint(2, 10)):
        a, b, c = words.content(rng, 3, top=2500)
        lines.append(
            rng.choice(
                (
                    f"{a}_{b} = {c}({rng.randint(0, 999)})",
                    f"def {a}({b}, {c}):",
                    f"    return {a}.{b}[{c!r}]",
                    f"SELECT {a}, {b} FROM {c} WHERE id = ?;",
                    f"# {a} {b} {c}",
                    f"$ noted {a} --{b} {c}",
                )
            )
        )
    return f"```{lang}\n" + "\n".join(lines) + "\n```"


def _quote(words: Words, rng: random.Random) -> str:
    return "> " + _sentence(words, rng)


def _table(words: Words, rng: random.Random) -> str:
    cols = rng.randint(2, 4)
    head = words.content(rng, cols)
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * cols]
    for _ in range(rng.randint(1, 5)):
        rows.append("| " + " | ".join(words.draw(rng, cols)) + " |")
    return "\n".join(rows)


_BLOCKS = (_paragraph, _bullets, _code, _quote, _table)
_BLOCK_WEIGHTS = (70, 16, 7, 4, 3)


def heading(words: Words, rng: random.Random) -> str:
    """A short heading text."""
    text = " ".join(words.content(rng, rng.randint(1, 5), top=4000))
    return text[:1].upper() + text[1:]


def body(words: Words, rng: random.Random, length: int) -> str:
    """A Markdown body of about ``length`` characters (never more than ``MAX_CHARS``)."""
    blocks: list[str] = []
    size = 0
    # Short notes are mostly a paragraph or a list; longer ones get a heading every ~600 chars.
    heading_every = 0 if length < 300 else rng.randint(350, 900)
    level = rng.choice((1, 1, 2))
    since_heading = heading_every if rng.random() < 0.7 else 0
    while size < length:
        if heading_every and since_heading >= heading_every:
            level = max(1, min(4, level + rng.choice((-1, 0, 0, 1, 1)))) if blocks else level
            block = "#" * level + " " + heading(words, rng)
            since_heading = 0
        else:
            block = rng.choices(_BLOCKS, weights=_BLOCK_WEIGHTS)[0](words, rng)
            since_heading += len(block)
        blocks.append(block)
        size += len(block) + 2
    text = "\n\n".join(blocks)
    return text if len(text) <= MAX_CHARS else text[: text.rfind("\n\n", 0, MAX_CHARS)]


def url(words: Words, rng: random.Random) -> str:
    """A plausible web address."""
    path = "-".join(words.content(rng, rng.randint(1, 4), top=3000))
    return f"https://{rng.choice(DOMAINS)}/{path.lower()}"
