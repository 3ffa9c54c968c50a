"""A search hit's snippet as a person reads it: the words, without Markdown's marks.

Snippets are cut from the note as written (``noted.search.snippet``, and a semantic hit's chunk),
so a result list would show ``## Synopsis ``` DROP VIEW`` or ``[the guide](:/0f3…)``. The
search screen and the command line's listing show :func:`readable` instead; JSON output and the
assistant's tools keep the Markdown, which says more to a program or a model.
"""

from __future__ import annotations

import re

from noted.search.snippet import ELLIPSIS

_SPACE = re.compile(r"\s+")
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"(?:^|(?<=\s))(?:`{3,}|~{3,})[\w+#.-]*(?=\s|$)")
_HEADING_MARK = re.compile(r"(?:^|(?<=\s))#{1,6}(?=\s|$)")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
"""``*em*`` and ``_em_``, not inside a word (``snake_case_name``, ``a*b*c``) nor around spaces (``2 * 3``)."""
_CODE = re.compile(r"`+([^`]+)`+")
_RULE = re.compile(r"(?:^|(?<=\s))(?:\*{3,}|_{3,})(?=\s|$)")
_QUOTE = re.compile(r"^(?:> ?)+")
"""A quote's mark at the snippet's start only: whitespace is collapsed, and "1 > 0" is no quote."""


def readable(snippet: str, heading: str | None = None) -> str:
    """``snippet`` (Markdown, possibly cut) with headings' ``#``, code fences, links' targets,
    inline code's backticks (a cut's unclosed one too), ``**strong**`` and ``*em*`` marks, rules and a leading
    quote mark left out (after the ``…`` of a cut too), whitespace collapsed.

    Args:
        snippet: The hit's snippet as the search gave it.
        heading: The heading of the hit's section, shown beside it: a snippet that opens with
            that heading (a chunk's first line) does not repeat it.
    """
    text = _SPACE.sub(" ", snippet).strip()
    cut = text.startswith(ELLIPSIS)  # a mark just after the cut opens the text as much as at the start
    text = text.removeprefix(ELLIPSIS).lstrip()
    if heading:
        opening = re.match(r"#{1,6} +" + re.escape(" ".join(heading.split())) + r"(?: #+)?(?: |$)", text)
        if opening and opening.end() < len(text):
            text = text[opening.end() :]
    text = _IMAGE_OR_LINK.sub(lambda m: m.group(1), text)
    text = _FENCE.sub("", text)
    text = _HEADING_MARK.sub("", text)
    text = _QUOTE.sub("", _RULE.sub("", text))
    text = _STRONG.sub(lambda m: m.group(2), text)
    text = _EMPHASIS.sub(lambda m: m.group(2), text)
    text = _CODE.sub(lambda m: m.group(1), text).replace("`", "")  # and one a cut left unclosed
    text = _SPACE.sub(" ", text).strip()
    return ELLIPSIS + text if cut and text else text
