"""The keyword-search query mix of the benchmark, chosen from the corpus so every query means something.

Words are picked by their rank in the corpus vocabulary (common, middling, rare), phrases are cut
from real notes, tags by popularity and notebooks by size, so the mix exercises the cheap and the
expensive shapes of ``KeywordSearch``: huge posting lists ("the"), short prefixes that expand to
many index words, filters with no words (sorted by time over every match), notebook subtrees,
negations and ``any:1``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from corpus import Corpus

from noted.models import Folder


@dataclass(frozen=True, slots=True)
class BenchQuery:
    """One query of the mix and the kind of query it stands for."""

    category: str
    text: str


_PLAIN = re.compile(r"^[a-z]{3,}$")


def _phrases(corpus: Corpus, count: int) -> list[str]:
    """Runs of two or three plain words taken from paragraphs of the first notes."""
    out: list[str] = []
    i = 0
    while len(out) < count and i < min(corpus.count, 2000):
        note = corpus.note(i * 7 % min(corpus.count, 2000))
        i += 1
        for line in note.body.split("\n"):
            tokens = line.split()
            if not tokens or not tokens[0][:1].isupper():  # paragraphs start with a capital
                continue
            for start in range(1, len(tokens) - 3):
                size = 2 + len(out) % 2
                run = tokens[start : start + size]
                if all(_PLAIN.match(t) for t in run) and any(len(t) > 4 for t in run):
                    out.append(" ".join(run))
                    break
            break
    return out


def _notebooks(folders: list[Folder], counts: dict[str, int]) -> tuple[str, str, str]:
    """The top-level notebook with most notes (subtree included), a mid-size one and a small leaf."""
    children: dict[str, list[str]] = {}
    for folder in folders:
        children.setdefault(folder.parent_id, []).append(folder.id)

    def subtree(folder_id: str) -> int:
        return counts.get(folder_id, 0) + sum(subtree(c) for c in children.get(folder_id, []))

    tops = sorted((f for f in folders if not f.parent_id), key=lambda f: -subtree(f.id))
    leaves = sorted(
        (f for f in folders if f.id not in children), key=lambda f: (counts.get(f.id, 0), f.title)
    )
    middle = sorted(folders, key=lambda f: (subtree(f.id), f.title))[len(folders) // 2]
    return tops[0].title, middle.title, leaves[len(leaves) // 4].title


def _q(value: str) -> str:
    return f'"{value}"' if " " in value else value


def build_queries(corpus: Corpus, folders: list[Folder], counts: dict[str, int]) -> list[BenchQuery]:
    """The full mix (about 80 queries) for this corpus and the notebooks the store holds."""
    v = corpus.words.ranked
    common = [v[r] for r in (0, 3, 12, 40, 120, 300)]
    middle = ["sqlite", "latency", "docker", "migration", v[700], v[1100]]
    rare = [v[r] for r in (8_000, 20_000, 35_000, 49_000)]
    tag_hot, tag_mid, tag_cold = corpus.tags[0], corpus.tags[60], corpus.tags[-1]
    big, mid, leaf = _notebooks(folders, counts)
    phrases = _phrases(corpus, 6)
    mix: dict[str, list[str]] = {
        "word_common": common,
        "word_middle": middle,
        "word_rare": [*rare, "zzqxjv"],
        "diacritics": ["cafe", "café", "naive", "zurich", "Ångström"],
        "two_words": [
            f"{common[0]} {common[3]}",
            f"{common[2]} {rare[0]}",
            "sqlite latency",
            f"{middle[4]} {middle[5]}",
            f"{common[4]} {rare[1]}",
            "docker kubernetes",
        ],
        "phrase": [f'"{p}"' for p in phrases] + ['"database mig*"'],
        "prefix": ["mig*", "data*", "co*", "sq*", "kube*", f"{rare[2][:4]}*"],
        "wildcard": ["s*ite", "da*base"],
        "field": ["title:sqlite", f"body:{middle[4]}", 'title:"meeting notes"', f"title:{common[4]}"],
        "filter_only": [
            f"tag:{tag_hot}",
            f"tag:{tag_cold}",
            f"notebook:{_q(big)}",
            f"notebook:{_q(leaf)}",
            "type:todo",
            "type:todo iscompleted:0",
            "updated:month-1",
            "created:2024",
            "due:day-30 -due:day+30",
            "sourceurl:*wikipedia*",
            "tag:*",
            f"-tag:{tag_hot}",
        ],
        "filtered_text": [
            f"sqlite tag:{tag_hot}",
            f"{common[3]} notebook:{_q(big)}",
            f"{middle[4]} notebook:{_q(mid)}",
            "type:todo call",
            "migration updated:month-1",
            f"latency -tag:{tag_hot}",
            "latency -docker",
            f"{common[0]} -{common[1]}",
            "any:1 sqlite docker kubernetes",
            f"any:1 tag:{tag_hot} tag:{tag_mid}",
            f"any:1 {rare[0]} tag:{tag_cold}",
            f'notebook:{_q(big)} tag:{tag_mid} "{phrases[0]}"',
            f"type:todo iscompleted:0 due:day-30 -tag:{tag_hot}",
            f"{common[5]} created:2023 -created:2024 type:note",
            f"title:{middle[0]} tag:* -notebook:{_q(leaf)}",
        ],
    }
    return [BenchQuery(category, text) for category, texts in mix.items() for text in texts]
