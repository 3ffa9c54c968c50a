"""A note file's text: what noted reads from it, and edits that change only what they say."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.support.cli import Cli

from noted.errors import InvalidInputError
from noted.store.vault.text import FileText

LINES = st.lists(
    st.sampled_from(["# Title", "text", "", "---", "tags: [a, b]", "title: T", "  - x", "#tag here", "```"]),
    max_size=8,
)


@given(LINES, st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())
def test_any_text_renders_back_byte_for_byte(lines: list[str], eol: str, bom: bool, final: bool) -> None:
    text = ("\ufeff" if bom else "") + eol.join(lines) + (eol if final and lines else "")
    assert FileText.parse(text).render() == text


def test_title_comes_from_the_first_line_heading_then_front_matter_then_the_name() -> None:
    assert FileText.parse("# Heading\n\ntext\n").title("name") == "Heading"
    assert FileText.parse("---\ntitle: From front\n---\n# Heading\n").title("name") == "Heading"
    assert FileText.parse("---\ntitle: From front\n---\ntext\n").title("name") == "From front"
    assert FileText.parse("intro\n# Later heading\n").title("name") == "name"


def test_tags_from_front_matter_and_inline_not_in_code_nor_headings() -> None:
    text = (
        "---\ntags: [Alpha, beta]\n---\n# Heading #nottag\n\n"
        "Some #gamma and #nested/tag, #123 is no tag, x#y neither.\n\n"
        "```\n#incode\n```\n`#inline` and #alpha again\n"
    )
    assert FileText.parse(text).tags() == ["Alpha", "beta", "nottag", "gamma", "nested/tag"]
    assert FileText.parse("---\ntags: one, two\n---\n").tags() == ["one", "two"]


def test_setting_a_key_keeps_every_other_line_and_the_order() -> None:
    text = "---\r\nzeta: 1\r\ntags:\r\n  - a\r\nalpha: [x]  # a comment\r\n---\r\n\r\nBody\r\n"
    ft = FileText.parse(text).with_tags(["a", "b"])
    assert (
        ft.render()
        == "---\r\nzeta: 1\r\ntags:\r\n  - a\r\n  - b\r\nalpha: [x]  # a comment\r\n---\r\n\r\nBody\r\n"
    )
    # A list keeps its style: on one line, or its items indented as they were.
    flow = FileText.parse('---\ntags: [a, "b c"]\n---\nx\n').with_tags(["a", "b c", "d:e"])
    assert flow.render() == "---\ntags: [a, b c, 'd:e']\n---\nx\n"
    assert flow.tags() == ["a", "b c", "d:e"]
    added = FileText.parse("Body only\n").with_key("todo", True, ("todo",))
    assert added.render() == "---\ntodo: true\n---\n\nBody only\n"
    removed = FileText.parse("---\ntodo: true\nkeep: 1\n---\nBody\n").with_key("todo", None, ("todo",))
    assert removed.render() == "---\nkeep: 1\n---\nBody\n"
    # The last key removed takes the block with it: a tag added, then removed, leaves the file as it was.
    assert added.with_key("todo", None, ("todo",)).render() == "Body only\n"
    only = FileText.parse("---\r\ntags: [a]\r\n---\r\n\r\n# T\r\n").with_tags([])
    assert only.render() == "# T\r\n"


def test_a_body_without_its_final_newline_keeps_the_files_one() -> None:
    ft = FileText.parse("old\n").with_body("new")
    assert ft.render() == "new\n"
    assert FileText.parse("no newline").with_body("x").render() == "x"


def test_a_link_to_a_heading_or_its_text_holds_no_tag() -> None:
    """``[setup](#setup)`` was read as the tag ``setup``, and removing that tag left ``[setup]()``:
    a link's target and text, Markdown or wiki, are no tags to Obsidian. Not vacuous: the tags
    beside them still count."""
    body = (
        "# A\n## Setup\nSee [setup](#setup), [#setup](other.md), [[#Setup]], [[a2#Setup|#setup]] "
        "and ![[a2#setup]], [the #setup step](x.md), #kept\t#also #setup/sub.\n"
    )
    ft = FileText.parse(body)
    assert ft.tags() == ["kept", "also", "setup/sub"]
    assert ft.replace_inline_tag("setup", None).body == body
    assert ft.replace_inline_tag("setup", "run").body == body.replace("#setup/sub", "#run/sub")


def test_a_hash_after_a_bracket_or_a_sign_is_no_tag() -> None:
    """``[#x]`` and ``(#y)`` were read as tags: Obsidian takes a ``#`` as a tag only at a line's
    start or after white space. Not vacuous: the same words after a space are tags."""
    body = "See [#x], (#y), a,#z, b;#w, issue#5b, <#q>, '#r' and http://e.com/#frag\n#ok and #ok2\n"
    ft = FileText.parse(body)
    assert ft.tags() == ["ok", "ok2"]
    assert ft.replace_inline_tag("x", None).body == body


def test_inline_tags_are_renamed_and_removed_in_place() -> None:
    ft = FileText.parse("a #old b #old/sub c #older\n")
    assert ft.replace_inline_tag("old", "new").body == "a #new b #new/sub c #older\n"
    assert ft.replace_inline_tag("old", None).body == "a b #old/sub c #older\n"


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("#tagA body …\n", "body …\n"),  # was " body …": the space after it stayed
        ("  #tagA body\n", "  body\n"),  # the indent stays
        ("#tagA #tagA x\n", "x\n"),
        ("#tagB #tagA x\n", "#tagB x\n"),
        ("a\n#tagA  two  spaces\nb #tagA\n", "a\ntwo  spaces\nb\n"),  # other spacing kept
    ],
)
def test_an_inline_tag_removed_from_the_start_of_a_line_leaves_no_space_there(text: str, left: str) -> None:
    assert FileText.parse(text).replace_inline_tag("tagA", None).body == left


def test_todo_keys() -> None:
    ft = FileText.parse("---\ntodo: true\ndue: 2026-12-24T18:00:00Z\ndone: true\n---\n")
    is_todo, due, done = ft.todo()
    assert is_todo and due == 1798135200000 and done == 1


@pytest.mark.parametrize("front", ["title: [unclosed\n", "- a list\n", "just words\n"])
def test_a_key_is_never_set_in_front_matter_that_does_not_read_as_keys(front: str) -> None:
    text = FileText.parse(f"---\n{front}---\nbody\n")
    assert text.fields() == {} and text.with_key("todo", None, ("todo",)) == text
    with pytest.raises(InvalidInputError, match='cannot set "todo"'):
        text.with_key("todo", True, ("todo",))
    empty = FileText.parse("---\n---\nbody\n")
    assert empty.with_key("todo", True, ("todo",)).render() == "---\ntodo: true\n---\nbody\n"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("created: 2024-02-30", '"created": "2024-02-30" is not a date and time'),
        ("due: 99999999999999999999", '"due": 99999999999999999999 is out of range'),
        ("done: 0001-01-01", '"done": "0001-01-01" is out of range'),
    ],
)
def test_a_time_noted_cannot_keep_is_ignored_and_named_and_the_rest_is_read(line: str, problem: str) -> None:
    """PyYAML raised ValueError on 2024-02-30 (not YAMLError), which nothing caught; a time out of
    range was read as it was, and broke the mirror's insert or every display of the note."""
    text = FileText.parse(f"---\ntitle: T\ntodo: true\n{line}\ntags: [a]\n---\nbody\n")
    assert (text.title("name"), text.tags(), text.todo(), text.created()) == ("T", ["a"], (True, 0, 0), 0)
    assert text.front_problem() is None
    (said,) = text.time_problems()
    assert said.startswith(f"line 4: {problem}"), said
    assert FileText.parse("---\ncreated: 2024-02-29\ndone: true\n---\n").time_problems() == []


@pytest.mark.parametrize(
    "front",
    [
        "tags: [a]\ntags: [b]\n",  # YAML reads the last; the first was edited (its "a" lost)
        "tags: 123\n",  # replaced by the new tag
        "tags:\n  - x\n  - {a: b}\n",  # the mapping dropped
        "tags:\n  - x\n  - null\n",  # the null dropped
        "title: One\ntitle: Two\n",  # the title as YAML reads it, edited in the first key
    ],
)
def test_front_matter_noted_cannot_edit_without_losing_a_value_is_refused(
    front: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Adding a tag rewrote ``tags`` from what noted reads of it, dropping what it does not read
    (and with ``tags`` twice, edited the key YAML does not read: the tag "not there", exit 0).
    Not vacuous: the same command on a plain ``tags: [x]`` adds the tag (below)."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "n.md").write_text(f"---\n{front}---\nBody\n")
    (vault / "plain.md").write_text("---\ntags: [x]\n---\nBody\n")
    cli, v = Cli(tmp_path / "p", capsys), ("--vault", str(vault))
    verb = ("edit", "Two", "--title", "Three") if front.startswith("title") else ("tag", "n", "new")
    said = cli(*verb, *v)
    assert said.code == 2 and len(said.err.strip().splitlines()) == 1, said
    assert (vault / "n.md").read_text() == f"---\n{front}---\nBody\n"
    cli.ok("tag", "plain", "new", *v)
    assert (vault / "plain.md").read_text() == "---\ntags: [x, new]\n---\nBody\n"
