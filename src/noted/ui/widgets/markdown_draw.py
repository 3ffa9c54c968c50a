"""Drawing a note's Markdown into lines with Rich, loaded with the first note shown (Rich's Markdown
brings Pygments, which the app does not need to start).

The body is parsed once and rendered section by section, cut where a top-level heading starts, so
the row of every heading is known. Rich's hyperlinks become click actions.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from io import StringIO
from typing import ClassVar

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Heading, Markdown
from rich.segment import Segment
from rich.style import Style
from rich.theme import Theme
from textual.strip import Strip

_PARSER = MarkdownIt("commonmark").enable("table").enable("strikethrough")
"""The parser Rich's Markdown uses, built once."""
_TASK = re.compile(r"\[([ xX])\](?= |$)")
"""A task list item's box (``- [ ] buy milk``, ``- [x] done``), as Joplin and GitHub read it."""


class _Heading(Heading):
    """Every heading level flush left, as in an editor (Rich centres level 1)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.justify = "left"
        yield text


class _NoteMarkdown(Markdown):
    """Rich's Markdown over tokens parsed once for the whole note (Rich would build a parser and
    parse again for every section)."""

    elements: ClassVar = {**Markdown.elements, "heading_open": _Heading}

    def __init__(self, tokens: list[Token], code_theme: str) -> None:
        super().__init__("", code_theme=code_theme)
        self.parsed = tokens


@dataclass(frozen=True, slots=True)
class _Chunk:
    first_line: int
    """The source line the chunk starts on (a heading's line, or 0)."""
    tokens: list[Token]


def _boxes(tokens: list[Token]) -> list[Token]:
    """Each task list item's ``[ ]`` or ``[x]`` drawn as the box the note list shows (☐, ☑)."""
    for before, token in zip(tokens[:-2], tokens[2:], strict=False):
        first = token.children[0] if token.type == "inline" and token.children else None
        if before.type == "list_item_open" and first is not None and first.type == "text":
            if box := _TASK.match(first.content):
                first.content = ("☐" if box[1] == " " else "☑") + first.content[box.end() :]
    return tokens


def _inline_images(tokens: list[Token]) -> list[Token]:
    """Each image drawn where it stands in its text, "🌆 alt text" (its file name without one),
    linked to the image unless it is inside a link. Rich draws an image as a block of its own as
    soon as it reads it, before the text of its paragraph: "See [a](b) and ![diagram](x.png) end"
    read "🌆 diagram See a and  end"."""
    for token in tokens:
        if token.type == "inline" and token.children and any(c.type == "image" for c in token.children):
            token.children = list(_image_as_text(token.children))
    return tokens


def _image_as_text(children: list[Token]) -> Iterator[Token]:
    in_link = False
    for child in children:
        in_link = child.type == "link_open" or (in_link and child.type != "link_close")
        if child.type != "image":
            yield child
            continue
        source = str(child.attrs.get("src", ""))
        yield Token("text", "", 0, content="🌆 ")
        title = Token("text", "", 0, content=child.content or source.strip("/").rsplit("/", 1)[-1])
        if in_link or not source:
            yield title
        else:
            yield from (
                Token("link_open", "a", 1, attrs={"href": source}),
                title,
                Token("link_close", "a", -1),
            )


def split_at_headings(body: str) -> list[_Chunk]:
    """``body``'s tokens cut before each top-level heading."""
    chunks: list[_Chunk] = []
    for token in _inline_images(_boxes(_PARSER.parse(body))):
        if not chunks or (token.type == "heading_open" and token.level == 0):
            chunks.append(_Chunk(token.map[0] if token.map else 0, []))
        chunks[-1].tokens.append(token)
    return chunks


def draw_lines(body: str, width: int, theme: Theme, code_theme: str) -> tuple[list[Strip], dict[int, int]]:
    """``body`` rendered ``width`` cells wide: its lines, and the row of each heading by source line."""
    console = Console(
        width=width,
        file=StringIO(),
        color_system="truecolor",
        force_terminal=True,
        theme=theme,
        legacy_windows=False,
    )
    options = console.options.update_width(width)
    lines: list[Strip] = []
    rows: dict[int, int] = {}
    for chunk in split_at_headings(body):
        if lines:
            lines.append(Strip.blank(width))
        rows[chunk.first_line] = len(lines)
        rendered = console.render_lines(_NoteMarkdown(chunk.tokens, code_theme), options, pad=False)
        while rendered and not "".join(s.text for s in rendered[-1]).strip():
            rendered.pop()  # Rich ends blocks with a blank line; one blank separates chunks
        lines.extend(_clickable(line) for line in rendered)
    return lines, rows


WARM_LANGUAGES = (
    "python", "javascript", "typescript", "bash", "sql", "json", "yaml", "toml", "html", "css",
    "go", "rust", "java", "c", "cpp", "diff",
)  # fmt: skip
"""Code-block languages whose Pygments lexers ``warm_up`` loads."""


def warm_up(code_theme: str, pause: float = 0.02) -> None:
    """Load the code-block machinery and the lexers of common languages before a note needs them.

    The first code block in a language took 40-150 ms more to draw than the next (Pygments loads
    its lexer table, the lexer and the style), and a note opened by id waited for it. Call from a
    thread once the app is up; it pauses between languages so the app's own thread keeps running.
    """
    theme = Theme()
    for language in WARM_LANGUAGES:
        draw_lines(f"```{language}\nx\n```\n", 40, theme, code_theme)
        time.sleep(pause)


def _clickable(line: list[Segment]) -> Strip:
    """Turn Rich's hyperlinks into click actions (a note link ``:/id`` means nothing to a terminal)."""
    out = []
    for text, style, control in line:
        if style is not None and style.link:
            meta = Style.from_meta({"@click": f"link({style.link!r})"})
            plain = Style(color=style.color, bgcolor=style.bgcolor, bold=style.bold, italic=style.italic)
            style = plain + Style(underline=True) + meta
        out.append(Segment(text, style, control))
    return Strip(out)
