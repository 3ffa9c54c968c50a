"""The code blocks of a note's Markdown, for copying one: from the same parse as the outline."""

from __future__ import annotations

from dataclasses import dataclass

from noted.markdown import parser


@dataclass(frozen=True, slots=True)
class CodeBlock:
    """A fenced or indented code block: its text as it would be pasted, without the fences.

    ``language`` is the fence's info word ("" when none); ``first_line`` and ``last_line`` are the
    0-based source lines the block spans, fences included, so a caller can tell where it sits.
    """

    language: str
    text: str
    first_line: int
    last_line: int

    @property
    def line_count(self) -> int:
        """How many lines the code has."""
        return len(self.text.splitlines())


def code_blocks(body: str) -> tuple[CodeBlock, ...]:
    """The code blocks of ``body`` in document order, nested ones (in lists, quotes) included.

    From the same parse as the outline, so a fence inside a fence is text and ``~~~`` counts too.
    """
    if "```" not in body and "~~~" not in body and "    " not in body and "\t" not in body:
        return ()
    blocks: list[CodeBlock] = []
    for token in parser().parse(body):
        if token.type in ("fence", "code_block") and token.map is not None:
            language = token.info.split(maxsplit=1)[0] if token.info.strip() else ""
            blocks.append(CodeBlock(language, token.content, token.map[0], token.map[1] - 1))
    return tuple(blocks)
