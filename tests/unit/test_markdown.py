"""One parse for outlines, sections and search hits: paths are positional and always agree."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noted.markdown import (
    _HEADING_LINE,
    heading_text,
    link_spans,
    linked_ids,
    names_file,
    outline,
    outline_lines,
    parser,
    replace_spans,
    section_label,
    section_text,
)
from noted.ui.code_blocks import CodeBlock, code_blocks

BODY = """intro before any heading

# Alpha
a text
### Deep (a jump of two levels)
deep text
## Beta
```
# not a heading inside a fence
```
b text

Setext Title
============
s text
"""


def test_paths_are_positional_and_nest_by_nearest_smaller_level() -> None:
    got = [(s.path, s.level, s.heading) for s in outline(BODY).sections]
    assert got == [
        ("0", 0, ""),
        ("1", 1, "Alpha"),
        ("1.1", 3, "Deep (a jump of two levels)"),
        ("1.2", 2, "Beta"),
        ("2", 1, "Setext Title"),
    ]


def test_sections_span_their_subsections() -> None:
    parsed = outline(BODY)
    alpha = parsed.find("1")[0]
    assert section_text(BODY, alpha).startswith("# Alpha\n")
    assert "b text" in section_text(BODY, alpha) and "s text" not in section_text(BODY, alpha)
    assert BODY[alpha.start : alpha.own_end] == "# Alpha\na text\n"
    assert parsed.find("0")[0].end == BODY.index("# Alpha")


def test_find_by_heading_text_and_at_offset() -> None:
    parsed = outline(BODY)
    assert [s.path for s in parsed.find("beta")] == ["1.2"]
    assert [s.path for s in parsed.find("## Beta")] == ["1.2"]
    assert parsed.find("nothing") == []
    offset = BODY.index("b text")
    section = parsed.at(offset)
    assert section is not None and section.path == "1.2"
    assert parsed.at(0) is not None and parsed.at(0).path == "0"  # type: ignore[union-attr]


def test_inline_markup_is_stripped_from_headings() -> None:
    assert outline("# A *bold* [link](http://x) `code`\n").sections[0].heading == "A bold link code"


def test_outline_lines_and_empty_bodies() -> None:
    assert outline_lines(outline("# One\nx\n## Two\n")) == ["1\t15\tOne", "1.1\t7\tTwo"]
    assert outline("").sections == () and outline("plain text").sections[0].path == "0"


def test_linked_ids() -> None:
    a, b = "a" * 32, "0123456789abcdef0123456789abcdef"
    assert linked_ids(f"see [x](:/{a}) and ![img](:/{b}) but not :/short") == {a, b}


def test_heading_text_keeps_underscores_inside_words_and_drops_real_markup() -> None:
    # The old regex stripped every `_`, so `formatter_class` became `formatterclass`; the
    # emphasised and code cases make sure markup is still removed the CommonMark way.
    body = (
        "# formatter_class\n"
        "## The add_argument() method\n"
        "## An _emphasised_ and **strong** word\n"
        "## `co_de` and [a_link](http://x.test/a_b) and a\\_escaped\n"
    )
    assert [s.heading for s in outline(body).sections] == [
        "formatter_class",
        "The add_argument() method",
        "An emphasised and strong word",
        "co_de and a_link and a_escaped",
    ]


def test_section_zero_is_named_top_unless_a_heading_is_called_top() -> None:
    # section_label is what search hits show; "top" must find section 0, yet a real heading
    # called "Top" keeps its own name.
    assert section_label("0") == "§ top" and section_label("1.2", "Food") == "§ 1.2 Food"
    assert [s.path for s in outline("lead\n# A\n").find("top")] == ["0"]
    assert [s.path for s in outline("lead\n# Top\n").find("top")] == ["1"]


def test_code_blocks_are_the_parsers_fenced_indented_and_nested_blocks() -> None:
    body = (
        "# Code\n\n"
        "```python title=x\nprint(1)\n```\n\n"  # the info word only, the fences left out
        "````md\n```\nnot a block of its own\n```\n````\n\n"  # a fence inside a longer fence is text
        "- in a list:\n\n  ~~~\n  nested\n  ~~~\n\n"  # indented to the list, given without it
        "Text.\n\n    indented code\n"
    )
    assert code_blocks(body) == (
        CodeBlock("python", "print(1)\n", 2, 4),
        CodeBlock("md", "```\nnot a block of its own\n```\n", 6, 10),
        CodeBlock("", "nested\n", 14, 16),
        CodeBlock("", "indented code\n", 20, 20),
    )
    assert code_blocks("No code here, only `inline` code.\n") == ()


# The quick test that lets most bodies skip the parse must never skip one that has a heading.
_PIECES = st.sampled_from(
    [
        "#",
        "##",
        "#######",
        " ",
        "   ",
        "    ",
        "\t",
        "=",
        "==",
        "-",
        "---",
        "- ",
        "> ",
        "*",
        "`",
        "```",
        "~~~",
        "1. ",
        "text",
        "word",
        "\\",
        "<div>",
        "|",
        "\n",
        "\n",
        "\n",
        "\r",
        "\r\n",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_a_body_the_quick_test_skips_has_no_heading(body: str) -> None:
    tokens = parser().parse(body)
    parsed = [t for t in tokens if t.type == "heading_open" and t.level == 0]
    if not _HEADING_LINE.search(body):
        assert parsed == []


def test_heading_text_reads_setext_and_atx_headings_and_skips_fenced_ones() -> None:
    assert (
        heading_text("Title\n===\n\ntext\n\n  ## Two ##\n```\n# code\n```\nSub\r\n---\r\n")
        == "Title\nTwo\nSub"
    )
    assert heading_text("- a list\n- of items\n\ntext - with dashes\n") == ""


@pytest.mark.parametrize(
    ("name", "file"),
    [
        ("diagram.png", True),
        ("archive.tar.gz", True),
        ("Scan.PDF", True),
        ("Plan.md", False),
        ("Meeting 2024.01.05", False),  # a note's name with a date, not a file of type ".05"
        ("v1.2 plan", False),
        ("Notes", False),
    ],
)
def test_a_link_names_a_file_when_its_name_ends_in_a_file_type(name: str, file: bool) -> None:
    assert names_file(name) is file


def test_link_spans_find_reference_definitions_and_autolinks_outside_code() -> None:
    body = (
        f"[t][r] and <:/{'a' * 32}> and [x](<:/{'b' * 32}>) and <https://x.org/a>\n\n"
        '[r]: report.pdf "Title"\n[^1]: a footnote, no link\n\n```\n[c]: code.pdf\n```\n'
        "[Note]: words after it make this a paragraph, not a definition\n"
    )
    # Before: only the inline link was found, so import and export passed the others by.
    assert [(s.target, s.autolink) for s in link_spans(body)] == [
        (f":/{'a' * 32}", True),
        (f"<:/{'b' * 32}>", False),
        ("https://x.org/a", True),
        ("report.pdf", False),
    ]


def test_an_autolink_replaced_by_a_path_becomes_an_inline_link() -> None:
    body = f"See <:/{'a' * 32}> or <https://x.org>."
    spans = link_spans(body)
    replaced = replace_spans(body, [(spans[0], "../_resources/My%20file.pdf"), (spans[1], "https://y.org")])
    assert replaced == "See [My file.pdf](../_resources/My%20file.pdf) or <https://y.org>."
