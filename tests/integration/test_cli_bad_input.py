"""Bad input on the command line: one line saying what is wrong, exit 2 (1 for a refusal), nothing changed.

Run as real processes, because what is tested is what reaches ``noted`` from the shell: bytes
in argv and on stdin that are not UTF-8. Before, these ended as "internal error" (exit 70).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import env_with_src, run_noted
from tests.support.faults import EXIT, state
from tests.support.polling import scaled


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    root = tmp_path / "profile"
    assert run_noted(root, "notes").returncode == 0
    return root


def refused(done: subprocess.CompletedProcess[str], code: int, *fragments: str) -> None:
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("noted: "), done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def raw(*args: str) -> str:
    """An argument as the shell passes bytes that are not UTF-8 (``$'\\xff\\xfe'``)."""
    return os.fsdecode(b"".join(a.encode("latin-1") for a in args))


def test_argv_that_is_not_utf8_is_refused(profile: Path) -> None:
    before = state(profile)
    refused(
        run_noted(profile, "create", raw("\xff\xfe"), "--body", "x"), EXIT["bad input"], "is not valid UTF-8"
    )
    refused(
        run_noted(profile, "search", raw("tag:\xff")), EXIT["bad input"], r"tag:\xff", "is not valid UTF-8"
    )
    refused(run_noted(profile, "create", "T", "--body", raw("caf\xe9")), EXIT["bad input"], "not valid UTF-8")
    assert state(profile) == before


def test_stdin_that_is_not_utf8_is_refused(profile: Path) -> None:
    before = state(profile)
    done = subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), "create", "t", "-"],
        input=b"ok line\n\xff",
        capture_output=True,
        env=env_with_src(),
        timeout=scaled(300),
        check=False,
    )
    text = subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())
    refused(text, EXIT["bad input"], "standard input is not valid UTF-8 (line 2, byte 9)")
    assert state(profile) == before


def test_a_refused_create_leaves_no_default_notebook(profile: Path) -> None:
    # The default notebook "Inbox" does not exist yet, so a create would make it first: a
    # refused create must not leave it behind (it did).
    before = state(profile)
    refused(run_noted(profile, "create", "two\nlines", "--body", "x"), EXIT["bad input"], "one line")
    assert state(profile) == before


def test_restore_of_a_note_not_in_the_trash_says_so(profile: Path) -> None:
    before = state(profile)
    refused(run_noted(profile, "restore", "Start here"), 1, '"Start here" is not in the trash', "Welcome")
    refused(run_noted(profile, "notebook", "restore", "Welcome"), 1, "is not in the trash")
    assert state(profile) == before
    assert run_noted(profile, "trash", "Start here").returncode == 0
    assert run_noted(profile, "restore", "Start here").returncode == 0  # from the trash it works


@pytest.mark.parametrize(
    ("query", "fragment"),
    [
        (" ".join(["notebook:x"] * 1_000), "too long (10,999 characters; at most 2,000)"),
        (" ".join(["tag:x"] * 150), "too many terms (150; at most 100"),
        ("a" * 120_000, "too long (120,000 characters; at most 2,000)"),
        ("a" * 101, "too long to search for (101 characters; at most 100 in one word)"),
    ],
    ids=["1000-notebook-filters", "150-tag-filters", "120k-word", "101-char-word"],
)
def test_over_long_or_complex_queries_are_refused_with_the_limits(
    profile: Path, query: str, fragment: str
) -> None:
    refused(run_noted(profile, "search", "--mode", "keyword", query), EXIT["bad input"], fragment)


def test_a_markdown_folder_that_is_a_file_is_called_so(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x\n", encoding="utf-8")
    done = run_noted(tmp_path / "p", "--vault", str(afile), "init", init=False)
    refused(done, 1, f"the Markdown folder {afile} is not a folder")
    assert afile.read_text(encoding="utf-8") == "x\n"


@pytest.mark.parametrize("command", ["import", "export"])
def test_an_empty_folder_name_is_refused_not_taken_for_the_current_folder(
    profile: Path, tmp_path: Path, command: str
) -> None:
    """``noted export "$DIR"`` with DIR unset exported into the current folder (``import``: read it)."""
    here = tmp_path / "here"
    here.mkdir()
    (here / "a.md").write_text("# A\n", encoding="utf-8")
    before = state(profile)
    refused(
        run_noted(profile, command, "", cwd=here), EXIT["bad input"], "is empty", '"." for the current one'
    )
    assert state(profile) == before and [p.name for p in here.iterdir()] == ["a.md"]


@pytest.mark.parametrize("command", ["import", "export"])
def test_a_dash_is_refused_not_taken_for_a_folder_named_dash(
    profile: Path, tmp_path: Path, command: str
) -> None:
    """``noted export -`` (meant: to standard output, as ``create -`` reads it) wrote a folder
    named ``-`` in the current folder, exit 0; ``import -`` read one. Not vacuous: a folder named
    ``-`` is there for ``import`` to read, and ``export`` would have made one."""
    here = tmp_path / "here"
    (here / "-").mkdir(parents=True)
    (here / "-" / "a.md").write_text("# A\n", encoding="utf-8")
    if command == "export":
        (here / "-" / "a.md").unlink()
        (here / "-").rmdir()
    before = state(profile)
    refused(run_noted(profile, command, "-", cwd=here), EXIT["bad input"], "standard input or output", "./-")
    assert state(profile) == before
    assert sorted(str(p.relative_to(here)) for p in here.rglob("*")) == (
        [] if command == "export" else ["-", "-/a.md"]
    )


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_export_where_no_file_can_be_made_fails_at_once(profile: Path) -> None:
    """``noted export /proc/x`` hung: filelock retries for ever on the "no such file" that /proc
    answers to a new file."""
    done = subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), "export", "/proc/x"],
        capture_output=True,
        text=True,
        env=env_with_src(),
        timeout=scaled(60),
        check=False,
    )
    refused(done, EXIT["bad input"], "cannot write next to /proc/x")


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (
            ["edit", "Start here", "--body", "one"],
            ["edit has no option --body", "`noted edit --help` lists them"],
        ),
        (["notes", "--pro", "elsewhere"], ["notes has no option --pro"]),
        (["--js", "notes"], ["notes has no option --js"]),
        (["notebook", "create", "N", "--par", "x"], ["notebook create has no option --par"]),
        (["search", "--mod", "keyword", "x"], ["search has no option --mod"]),
        (["notes", "stray"], ["notes does not take stray", "`noted notes --help`"]),
    ],
    ids=[
        "edit-body",
        "common-option-prefix",
        "global-option-prefix",
        "group-action",
        "dashed-words",
        "stray-word",
    ],
)
def test_an_unknown_option_is_named_never_read_as_a_longer_one(
    profile: Path, argv: list[str], fragments: list[str]
) -> None:
    """argparse took ``--body`` for ``--body-file`` and said "cannot read one": every parser reads
    options whole (``allow_abbrev=False``). Each case names an option that is a prefix of a real
    one (``--body-file``, ``--profile``, ``--json``, ``--parent``, ``--mode``), so the test fails if any parser
    abbreviates again, and the one line must name the command whose help lists its options."""
    before = state(profile)
    refused(run_noted(profile, *argv), EXIT["bad input"], *fragments)
    assert state(profile) == before


def test_empty_standard_input_does_not_empty_a_note(profile: Path) -> None:
    # A script whose stdin is empty (`: | noted edit NOTE --body-file -`, a failed pipe) emptied the
    # note with exit 0. Emptying a note is said with a file, not with nothing on stdin.
    before = state(profile)
    done = _empty_stdin(profile, "edit", "Start here", "--body-file", "-")
    refused(done, EXIT["bad input"], "standard input is empty", "/dev/null")
    assert state(profile) == before
    emptied = run_noted(profile, "edit", "Start here", "--body-file", os.devnull)
    assert emptied.returncode == 0, emptied.stderr


@pytest.mark.parametrize("body", [["-"], ["--body-file", "-"]])
def test_empty_standard_input_makes_no_note(profile: Path, body: list[str]) -> None:
    # As for an edit: `make-report | noted create Report -` with the report's command failed made
    # an empty note, exit 0, and the script went on. Not vacuous: the state compared includes the
    # notes and the change feed, which a created note changes.
    before = state(profile)
    done = _empty_stdin(profile, "create", "Report", *body)
    refused(done, EXIT["bad input"], "standard input is empty: nothing created", "give no body")
    assert state(profile) == before


def _empty_stdin(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``noted ARGS`` run with an empty standard input that is not a terminal (a failed pipe)."""
    return subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), *args],
        input="",
        capture_output=True,
        text=True,
        env=env_with_src(),
        timeout=scaled(300),
        check=False,
    )
