"""``noted import DIR`` and ``noted export DIR``: round trips without duplicates, and refused input.

Every refusal is checked to leave the store untouched (the change feed's cursor does not move)
and, for exports, the target folder as it was.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.support.cli import Cli

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))

PLAN = """\
---
title: Plan
tags: [work, q3]
created: 2021-03-04T05:06:07Z
updated: 2021-03-05T00:00:00Z
is_todo: true
todo_due: 2031-01-02T10:00:00Z
source_url: https://example.org/plan
---
# Plan

![diagram](../assets/diagram.png "the diagram") and [the meeting](Meeting%20notes.md#agenda).
Also [a site](https://example.org), [a heading](#plan) and `[code](../../../etc/passwd)`.

```
[fenced](../../../etc/passwd)
```
"""


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    (root / "Work" / "Deep").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / "Work" / "Plan.md").write_text(PLAN, encoding="utf-8")
    (root / "Work" / "Meeting notes.md").write_text("# Agenda\n\nBudget.\n", encoding="utf-8")
    (root / "Work" / "Deep" / "idea.markdown").write_text("An idea.\n", encoding="utf-8")
    (root / "assets" / "diagram.png").write_bytes(PNG)
    (root / "loose.txt").write_text("Loose text.\n", encoding="utf-8")
    (root / ".hidden.md").write_text("never imported\n", encoding="utf-8")
    return root


def by_title(cli: Cli) -> dict[str, dict[str, Any]]:
    return {str(n["title"]): cli.json("show", str(n["id"])) for n in cli.json("notes")}


def test_import_builds_notebooks_notes_and_attachments(cli: Cli, source: Path) -> None:
    report = cli.json("import", str(source))
    assert (
        report["notes_created"] == 4 and report["notebooks_created"] == 3 and report["resources_added"] == 1
    )
    paths = {nb["path"] for nb in cli.json("notebooks")}
    assert {"Vault", "Vault/Work", "Vault/Work/Deep"} <= paths and "Vault/assets" not in paths
    notes = by_title(cli)
    assert ".hidden" not in notes and notes["loose"]["notebook"] == "Vault"
    assert notes["idea"]["notebook"] == "Vault/Work/Deep"
    plan = notes["Plan"]
    assert sorted(plan["tags"]) == ["q3", "work"]
    assert plan["is_todo"] is True and plan["source_url"] == "https://example.org/plan"
    assert plan["created_time"] == int(dt.datetime(2021, 3, 4, 5, 6, 7, tzinfo=dt.UTC).timestamp() * 1000)
    assert plan["todo_due"] == int(dt.datetime(2031, 1, 2, 10, tzinfo=dt.UTC).timestamp() * 1000)
    body = str(plan["body"])
    meeting = notes["Meeting notes"]["id"]
    assert f"[the meeting](:/{meeting}#agenda)" in body
    resource_id = re.search(r"!\[diagram\]\(:/([0-9a-f]{32}) \"the diagram\"\)", body)
    assert resource_id is not None
    store = cli.store()
    try:
        assert store.read_resource(resource_id.group(1)) == PNG
    finally:
        store.close()
    # Links that are not local files, or sit in code, are left as written.
    assert "[a site](https://example.org)" in body and "[a heading](#plan)" in body
    assert "`[code](../../../etc/passwd)`" in body and "[fenced](../../../etc/passwd)" in body
    assert cli.json("history", "Plan")[0]["actor"] == "import"


def test_reimport_changes_nothing_then_updates_an_edited_file(cli: Cli, source: Path) -> None:
    cli.ok("import", str(source))
    ids = {t: n["id"] for t, n in by_title(cli).items()}
    before = cli.cursor()
    again = cli.json("import", str(source))
    assert (again["notes_created"], again["notes_updated"], again["notes_unchanged"]) == (0, 0, 4)
    assert again["resources_added"] == 0 and again["notebooks_created"] == 0
    assert cli.cursor() == before  # nothing written at all
    (source / "Work" / "Meeting notes.md").write_text("# Agenda\n\nBudget and hiring.\n", encoding="utf-8")
    changed = cli.json("import", str(source))
    assert (changed["notes_created"], changed["notes_updated"], changed["notes_unchanged"]) == (0, 1, 3)
    notes = by_title(cli)
    assert {t: n["id"] for t, n in notes.items()} == ids
    assert "hiring" in str(notes["Meeting notes"]["body"])


def front_matter(path: Path) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def test_export_writes_front_matter_resources_and_relative_links(
    cli: Cli, source: Path, tmp_path: Path
) -> None:
    cli.ok("import", str(source))
    out = tmp_path / "out"
    report = cli.json("export", str(out))
    assert report["notes"] == 9 and report["resources"] == 1  # 5 welcome notes + 4 imported
    assert (out / ".noted-export.yml").is_file() and (
        out / "Vault" / "Work" / ".noted-notebook.yml"
    ).is_file()
    plan_file = out / "Vault" / "Work" / "Plan.md"
    meta = front_matter(plan_file)
    assert meta["title"] == "Plan" and meta["tags"] == ["q3", "work"] and meta["is_todo"] is True
    assert meta["created"] == "2021-03-04T05:06:07.000Z" and meta["todo_due"] == "2031-01-02T10:00:00.000Z"
    assert meta["source_url"] == "https://example.org/plan" and len(str(meta["id"])) == 32
    text = plan_file.read_text(encoding="utf-8")
    image = re.search(r"!\[diagram\]\(([^ )]+) ", text)
    assert image is not None and image.group(1).startswith("../../_resources/")
    assert (plan_file.parent / image.group(1)).read_bytes() == PNG
    assert "[the meeting](Meeting%20notes.md#agenda)" in text
    assert (out / "Vault" / "Work" / "Meeting notes.md").is_file()
    assert (out / "Welcome" / "Guides" / "Reading a long note by its outline.md").is_file()


def test_an_attachment_whose_file_is_missing_is_named_and_the_rest_exported(
    cli: Cli, source: Path, tmp_path: Path
) -> None:
    """One missing attachment file stopped the whole export (exit 1, nothing written), though
    export is how a damaged profile's notes are rescued."""
    cli.ok("import", str(source))
    for path in (cli.profile / "resources").iterdir():
        path.unlink()
    out = tmp_path / "out"
    result = cli("export", str(out))
    assert result.code == 5, result.err
    (line,) = result.err.splitlines()
    assert 'warning: left out the attachment "diagram.png"' in line and "missing" in line
    assert "exported 9 notes in 5 notebooks and 0 attachments" in result.out
    assert (out / "Vault" / "Work" / "Plan.md").is_file() and (out / ".noted-export.yml").is_file()
    report = cli("export", str(out), "--json")
    assert report.code == 5 and len(report.json()["missing"]) == 1


def test_round_trip_import_export_reimport_has_no_duplicates(
    cli: Cli, source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli.ok("import", str(source))
    first = tmp_path / "first"
    cli.ok("export", str(first))
    before = cli.cursor()
    same = cli.json("import", str(first))
    assert (same["notes_created"], same["notes_updated"], same["notes_unchanged"]) == (0, 0, 9)
    assert cli.cursor() == before

    other = Cli(tmp_path / "other", capsys)
    into_new = other.json("import", str(first))
    # The other profile's own welcome notes were matched by title, not doubled, except its to-do:
    # due a week after each profile was made, so the file's to-do is a note of its own (it took the
    # file's due date: test_import_title_match.py).
    assert into_new["notes_created"] == 5 and into_new["resources_added"] == 1
    assert into_new["notes_updated"] == 0
    twice = other.json("import", str(first))
    assert twice["notes_created"] == 0 and twice["resources_added"] == 0
    assert len(other.json("notes")) == 10
    second = tmp_path / "second"
    other.ok("export", str(second))
    plan_first = (first / "Vault" / "Work" / "Plan.md").read_text(encoding="utf-8")
    plan_second = (second / "Vault" / "Work" / "Plan.md").read_text(encoding="utf-8")
    strip = re.compile(r"_resources/[0-9a-f]{32}|updated: .*")
    assert strip.sub("", plan_first) == strip.sub("", plan_second)
    assert (
        front_matter(first / "Vault" / "Work" / "Plan.md")["id"]
        == front_matter(second / "Vault" / "Work" / "Plan.md")["id"]
    )


def test_an_empty_notebook_survives_export_and_import(
    cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An export is the way back from a damaged notes.db: its empty notebooks (a marker and no
    note) were left out of the import, so the notebooks a person had made and not yet filled went."""
    cli.ok("notebook", "create", "Someday")
    cli.ok("notebook", "create", "Ideas", "--parent", "Someday")
    cli.ok("notebook", "create", "Later", "--parent", "Welcome")
    cli.ok("export", str(tmp_path / "out"))
    other = Cli(tmp_path / "other", capsys)
    done = other.json("import", str(tmp_path / "out"))
    paths = sorted(f["path"] for f in other.json("notebooks"))
    assert paths == ["Someday", "Someday/Ideas", "Welcome", "Welcome/Guides", "Welcome/Later"], done
    again = other.json("import", str(tmp_path / "out"))
    assert again["notebooks_created"] == 0 and len(other.json("notebooks")) == len(paths)


def test_export_replaces_a_previous_export(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    cli.ok("export", str(out))
    stale = out / "Welcome" / "Try noted for a week.md"
    assert stale.is_file()
    cli.ok("trash", "Try noted for a week")
    cli.ok("export", str(out))  # every file there is one noted wrote: replaced, the trashed note gone
    assert not stale.exists() and (out / "Welcome" / "Start here.md").is_file()


def test_export_names_stay_inside_the_target(cli: Cli, tmp_path: Path) -> None:
    for title in ("../../escape", "a/b:c", "Same", "Same", ".hidden", "CON"):
        cli.ok("create", title, "--notebook", "Welcome", "--body", title)
    out = tmp_path / "out"
    cli.ok("export", str(out))
    names = {p.name for p in (out / "Welcome").iterdir()}
    assert {"_.._escape.md", "a_b_c.md", "Same.md", "Same (2).md", "hidden.md", "CON_.md"} <= names
    assert not (tmp_path / "escape.md").exists()
    outside = [p for p in tmp_path.rglob("*.md") if not p.is_relative_to(out)]
    assert outside == []


# Refusals --------------------------------------------------------------------------------------------
def refused(cli: Cli, args: list[str], fragment: str) -> str:
    before = cli.cursor()
    notebooks = len(cli.json("notebooks"))
    result = cli(*args)
    assert result.code == 2, (result.out, result.err)
    assert result.err.count("\n") == 1 and fragment in result.err, result.err
    assert cli.cursor() == before and len(cli.json("notebooks")) == notebooks
    return result.err


@pytest.fixture
def bad(tmp_path: Path, cli: Cli) -> Path:
    """A folder with one good note, so a refusal visibly imports nothing at all."""
    cli.ok("notes")
    root = tmp_path / "bad"
    root.mkdir()
    (root / "good.md").write_text("fine\n", encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.png").write_bytes(PNG)
    (tmp_path / "outside" / "secret.md").write_text("secret\n", encoding="utf-8")
    return root


def test_link_leading_outside_is_refused(cli: Cli, bad: Path) -> None:
    (bad / "z.md").write_text("text\n\n![x](../outside/secret.png)\n", encoding="utf-8")
    refused(cli, ["import", str(bad)], 'z.md: line 3: the link "../outside/secret.png" leads outside')


def test_absolute_link_is_refused(cli: Cli, bad: Path, tmp_path: Path) -> None:
    (bad / "z.md").write_text(f"![x]({tmp_path / 'outside' / 'secret.png'})\n", encoding="utf-8")
    refused(cli, ["import", str(bad)], "leads outside")


def test_link_through_an_inner_symlink_is_refused(cli: Cli, bad: Path, tmp_path: Path) -> None:
    (bad / "pics").symlink_to(tmp_path / "outside", target_is_directory=True)
    (bad / "z.md").write_text("![x](pics/secret.png)\n", encoding="utf-8")
    before = cli.cursor()
    result = cli("import", str(bad))
    assert result.code == 2 and cli.cursor() == before
    assert result.err.splitlines()[1:] == [  # the link to the folder, and the link through it
        f"  pics is a link that leads outside {bad}; nothing was imported",
        f'  z.md: line 1: the link "pics/secret.png" leads outside {bad}',
    ]


def test_symlinked_note_outside_is_refused(cli: Cli, bad: Path, tmp_path: Path) -> None:
    (bad / "z.md").symlink_to(tmp_path / "outside" / "secret.md")
    refused(cli, ["import", str(bad)], "z.md is a link that leads outside")


def test_symlinked_folder_outside_is_refused(cli: Cli, bad: Path, tmp_path: Path) -> None:
    (bad / "more").symlink_to(tmp_path / "outside", target_is_directory=True)
    refused(cli, ["import", str(bad)], "more is a link that leads outside")


def test_invalid_front_matter_names_file_and_line(cli: Cli, bad: Path) -> None:
    (bad / "z.md").write_text("---\ntitle: ok\ntags: [a, b\n---\nbody\n", encoding="utf-8")
    refused(cli, ["import", str(bad)], "z.md: line 4: invalid front matter")
    (bad / "z.md").write_text("---\ntitle: ok\nis_todo: maybe\n---\nbody\n", encoding="utf-8")
    refused(cli, ["import", str(bad)], 'z.md: line 3: bad value for "is_todo"')
    (bad / "z.md").write_text("---\ncreated: last tuesday\n---\nbody\n", encoding="utf-8")
    refused(cli, ["import", str(bad)], 'z.md: line 2: bad value for "created"')


def test_every_bad_file_is_named_in_one_refusal(cli: Cli, bad: Path) -> None:
    """A vault with several bad files took one run per file to find them all."""
    (bad / "a.md").write_text("---\ntags: [a, b\n---\nbody\n", encoding="utf-8")
    (bad / "sub").mkdir()
    (bad / "sub" / "latin1.md").write_bytes(b"caf\xe9\n")
    before = cli.cursor()
    result = cli("import", str(bad))
    assert result.code == 2 and cli.cursor() == before
    assert result.err.splitlines() == [
        "noted: 2 files cannot be imported, so nothing was; correct them and import again:",
        "  a.md: line 3: invalid front matter: did not find expected ',' or ']'",
        "  sub/latin1.md is not valid UTF-8 (line 1, byte 4); save it as UTF-8 and import again",
    ]
    for n in range(21):
        (bad / f"z{n:02}.md").write_text("---\ncreated: last tuesday\n---\nbody\n", encoding="utf-8")
    lines = cli("import", str(bad)).err.splitlines()
    assert lines[0].startswith("noted: 23 files cannot be imported") and len(lines) == 22
    assert lines[2].startswith('  z00.md: line 2: bad value for "created"') and lines[-1] == "  and 3 more"
    assert cli.cursor() == before


def test_links_leading_outside_and_shared_ids_are_named_with_every_other_bad_file(
    cli: Cli, bad: Path, tmp_path: Path
) -> None:
    """Only the first of these was named: a link out of the folder (a symbolic link, or a link in
    a note's text) and two files sharing an id each stopped the scan where they were found."""
    (bad / "latin1.md").write_bytes(b"caf\xe9\n")
    (bad / "zz.md").symlink_to(tmp_path / "outside" / "secret.md")
    (bad / "out").symlink_to(tmp_path / "outside")
    same = "---\nid: " + "ab" * 16 + "\n---\nx\n"
    (bad / "one.md").write_text(same, encoding="utf-8")
    (bad / "two.md").write_text(same, encoding="utf-8")
    (bad / "peek.md").write_text("See [it](../outside/secret.md).\n", encoding="utf-8")
    before = cli.cursor()
    result = cli("import", str(bad))
    assert result.code == 2 and cli.cursor() == before
    lines = result.err.splitlines()
    assert lines[0] == "noted: 5 files cannot be imported, so nothing was; correct them and import again:"
    assert [line.split()[0] for line in lines[1:]] == ["out", "latin1.md", "zz.md", "two.md", "peek.md:"]
    assert 'two.md and one.md both have the id "' + "ab" * 16 + '"' in lines[4]
    assert 'line 1: the link "../outside/secret.md" leads outside' in lines[5]


def test_unreadable_files_are_refused(cli: Cli, bad: Path) -> None:
    (bad / "gone.md").symlink_to(bad / "missing.md")
    refused(cli, ["import", str(bad)], "cannot read gone.md")
    (bad / "gone.md").unlink()
    (bad / "latin1.md").write_bytes(b"caf\xe9\n")
    refused(cli, ["import", str(bad)], "latin1.md is not valid UTF-8 (line 1, byte 4)")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_file_without_read_permission_is_refused(cli: Cli, bad: Path) -> None:
    locked = bad / "locked.md"
    locked.write_text("x\n", encoding="utf-8")
    locked.chmod(0)
    try:
        refused(cli, ["import", str(bad)], "cannot read locked.md")
    finally:
        locked.chmod(0o600)


def test_duplicate_ids_and_empty_or_missing_folders_are_refused(cli: Cli, bad: Path, tmp_path: Path) -> None:
    same = "---\nid: " + "ab" * 16 + "\n---\nx\n"
    (bad / "one.md").write_text(same, encoding="utf-8")
    (bad / "two.md").write_text(same, encoding="utf-8")
    refused(cli, ["import", str(bad)], "both have the id")
    (tmp_path / "empty").mkdir()
    refused(cli, ["import", str(tmp_path / "empty")], "found no .md")
    refused(cli, ["import", str(tmp_path / "nowhere")], "nowhere does not exist")
    (tmp_path / "afile.md").write_text("x", encoding="utf-8")
    refused(cli, ["import", str(tmp_path / "afile.md")], "afile.md is not a folder")


def test_export_refuses_a_foreign_folder(cli: Cli, tmp_path: Path) -> None:
    cli.ok("notes")
    target = tmp_path / "mine"
    target.mkdir()
    (target / "keep.txt").write_text("precious", encoding="utf-8")
    refused(cli, ["export", str(target)], "is not empty and is not a previous noted export")
    assert [p.name for p in target.iterdir()] == ["keep.txt"]
    (tmp_path / "file").write_text("x", encoding="utf-8")
    refused(cli, ["export", str(tmp_path / "file")], "is not a folder")
    # It said "cannot write next to …/file/sub: File exists".
    refused(cli, ["export", str(tmp_path / "file" / "sub")], f"{tmp_path / 'file'} is a file, not a folder")


def test_export_refuses_a_target_with_a_link_leading_outside(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    cli.ok("export", str(out))
    (tmp_path / "elsewhere").mkdir()
    (out / "Welcome" / "escape").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    refused(cli, ["export", str(out)], "is a link that leads outside")
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_text_attachment_comes_back_from_an_export_as_an_attachment(
    cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link to an export's ``_resources/ID.txt`` was taken for a link to a note (``.txt`` is a
    note suffix) that was not there: the import left it as a relative path, broken, dropped the
    attachment, and the next export left the file out."""
    store = cli.store()
    text = store.add_resource(b"attachment body\n", filename="att.txt", mime="text/plain", actor="user")
    store.close()
    note = cli.json("create", "Has attachment", "--body", f"file: [att.txt](:/{text.id})\n")["id"]
    out = tmp_path / "out"
    cli.ok("export", str(out))
    same = cli.json("import", str(out))
    assert same["notes_updated"] == 0, same
    assert cli.json("show", note)["body"] == f"file: [att.txt](:/{text.id})\n"
    other = Cli(tmp_path / "other", capsys)
    done = other.json("import", str(out))
    assert done["resources_added"] == 1, done
    body = other.json("show", "Has attachment")["body"]
    (linked,) = re.findall(r"\(:/([0-9a-f]{32})\)", body)
    assert other.store().read_resource(linked) == b"attachment body\n"


def test_to_do_state_is_read_in_the_markdown_folders_keys_and_joplins(cli: Cli, tmp_path: Path) -> None:
    """``todo:``/``done:`` (the Markdown folder's keys) and ``completed?:`` (Joplin's Markdown +
    Front Matter export) were ignored: every such file came in as a plain note."""
    source = tmp_path / "t"
    source.mkdir()
    (source / "v.md").write_text("---\ntodo: true\ndone: true\ndue: 2030-05-05T10:00:00Z\n---\nx\n")
    (source / "j.md").write_text(
        "---\ntitle: Buy milk\ncompleted?: no\ndue: 2030-02-01 10:00:00Z\n---\n\ny\n"
    )
    (source / "k.md").write_text("---\ntitle: Sold\ncompleted?: yes\n---\n\nz\n")
    cli.ok("import", str(source))
    state = {}
    for title in ("v", "Buy milk", "Sold"):
        note = cli.json("show", title)
        state[title] = (note["is_todo"], note["todo_due"] > 0, note["todo_completed"] > 0)
    assert state == {"v": (True, True, True), "Buy milk": (True, True, False), "Sold": (True, False, True)}


def test_a_front_matter_id_of_a_notebook_or_attachment_gives_the_note_its_own(
    cli: Cli, source: Path, tmp_path: Path
) -> None:
    """The note took the attachment's id, and an export then wrote the image link as a link to
    that note (and left the image out)."""
    cli.ok("import", str(source))
    plan = cli.json("show", "Plan")
    resource_id = re.search(r":/([0-9a-f]{32})", plan["body"]).group(1)  # type: ignore[union-attr]
    folder_id = next(n["id"] for n in cli.json("notebooks") if n["title"] == "Work")
    clash = tmp_path / "sq"
    clash.mkdir()
    (clash / "c.md").write_text(f"---\nid: {resource_id}\ntitle: Clash\n---\nbody\n")
    (clash / "d.md").write_text(f"---\nid: {folder_id}\ntitle: Clash2\n---\nbody\n")
    result = cli.ok("import", str(clash))
    assert f'c.md: its id "{resource_id}" is an attachment\'s; the note gets an id of its own' in result.err
    assert f'd.md: its id "{folder_id}" is a notebook\'s' in result.err
    assert {cli.json("show", "Clash")["id"], cli.json("show", "Clash2")["id"]}.isdisjoint(
        {resource_id, folder_id}
    )
    out = tmp_path / "out"
    assert cli.json("export", str(out))["resources"] == 1
    assert "../../_resources/" in (out / "Vault" / "Work" / "Plan.md").read_text(encoding="utf-8")
