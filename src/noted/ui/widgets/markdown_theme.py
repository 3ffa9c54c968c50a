"""The colours a note's Markdown is drawn in: Rich's Markdown styles from the app's theme, and the
Pygments style of code blocks."""

from __future__ import annotations

from rich.style import Style
from rich.theme import Theme
from textual.color import Color


def markdown_theme(variables: dict[str, str], *, dark: bool) -> Theme:
    """Rich's Markdown styles in the colours of the app's theme (Textual's CSS variables)."""

    def hex_of(name: str, fallback: str) -> str:
        try:
            return Color.parse(variables.get(name, fallback)).hex6
        except Exception:  # a variable such as "auto 87%" is not a plain colour
            return Color.parse(fallback).hex6

    fg = hex_of("foreground", "#e0e0e0" if dark else "#202020")
    bg = hex_of("background", "#121212" if dark else "#f8f8f8")
    muted = Color.parse(fg).blend(Color.parse(bg), 0.4).hex6
    accent = hex_of("text-accent", hex_of("accent", fg))
    primary = hex_of("text-primary", hex_of("primary", fg))
    styles: dict[str, str | Style] = {
        f"markdown.h{level}": _text_style(variables.get(f"markdown-h{level}-text-style", "bold"))
        + Style(color=hex_of(f"markdown-h{level}-color", fg))
        for level in range(1, 7)
    }
    styles.update(
        {
            "markdown.paragraph": "none",
            "markdown.text": "none",
            "markdown.em": "italic",
            "markdown.strong": "bold",
            "markdown.s": "strike",
            "markdown.code": f"{accent} on {hex_of('primary-muted', bg)}",
            "markdown.code_block": "none",
            "markdown.block_quote": f"italic {muted}",
            "markdown.hr": muted,
            "markdown.item.bullet": f"bold {accent}",
            "markdown.item.number": f"bold {accent}",
            "markdown.link": f"underline {primary}",
            "markdown.link_url": f"underline {primary}",
            "markdown.table.border": muted,
            "markdown.table.header": "bold",
        }
    )
    return Theme(styles, inherit=True)


def _text_style(words: str) -> Style:
    """A theme's text style (``"bold"``, ``"underline"``, ``"none"``…) as a Rich style; plain if Rich
    cannot read it. ``"none"`` is a style of its own to Rich, not a word it combines with a colour:
    "none #e0e0e0" raised, and switching to Textual's ansi themes stopped the app."""
    try:
        return Style.parse(words)
    except Exception:  # a theme file is data: a word Rich does not know must not stop the app
        return Style()


def code_theme(dark: bool) -> str:
    """The Pygments style for code blocks in a dark or a light app theme."""
    return "monokai" if dark else "friendly"
