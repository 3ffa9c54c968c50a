"""Links through import and export: every link form noted reads (inline, HTML ``src``/``href``,
reference definitions, ``<…>`` autolinks) becomes a path in a Markdown folder's files and in an
export, and an attachment found through any of them is imported; the vault is a real folder under
real ``git``, so "only these bytes changed" is what ``git`` says."""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest
from tests.support.cli import Cli
from tests.support.vaults import git

_ID = re.compile(r":/[0-9a-f]{32}")


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    git(vault, "init", "-q")
    return vault


def test_an_import_into_a_markdown_folder_writes_paths_for_every_link_form(cli: Cli, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "pic.jpg").write_bytes(b"pic")
    # a.md is written before z.md: its links to z.md (and to itself) are forward links.
    (src / "a.md").write_text(
        'see <img src="pic.jpg"> and [later](z.md) and [l2](z.md#h) and [me](a.md) and [r]\n\n[r]: z.md\n'
    )
    (src / "z.md").write_text("# h\nzed\n")
    vault = _vault(tmp_path)
    v = ("--vault", str(vault))
    cli.ok("import", str(src), *v)
    text = (vault / "src" / "a.md").read_text()
    # Before: '<img src=":/c781…">', '[later](:/36ba…)', '[r]: :/36ba…': noted's ids in the person's file.
    assert _ID.search(text) is None, text
    assert text.endswith(
        'see <img src="../pic.jpg"> and [later](h.md) and [l2](h.md#h) and [me](a.md) and [r]\n\n[r]: h.md\n'
    )
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "imported")
    for _ in range(2):  # before: each import added another copy of the HTML-linked file and "1 updated"
        assert "0 updated, 2 unchanged" in cli.ok("import", str(src), *v).out
    assert git(vault, "status", "--porcelain") == ""


@pytest.mark.parametrize("in_vault", [False, True], ids=["sqlite", "vault"])
def test_notes_linking_notes_imported_after_them_get_one_revision_each(
    cli: Cli, tmp_path: Path, in_vault: bool
) -> None:
    """Into a Markdown folder a note linking one written after it (or linking itself) was written
    twice, the second time with the link as a path: two ``import`` revisions for one import."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("[zed](z.md) and [me](a.md)\n")
    (src / "z.md").write_text("back to [a](a.md)\n")
    v = ("--vault", str(_vault(tmp_path))) if in_vault else ()
    cli.ok("import", str(src), *v)
    for name in ("a", "z"):
        (revision,) = cli.json("history", name, *v)
        assert revision["actor"] == "import"
    (revision,) = cli.json("history", "a", *v)
    shown = cli.json("history", "a", "--show", str(revision["id"]), *v)
    assert shown["body"] == cli.json("show", "a", *v)["body"]  # the revision holds the note as written


def test_wiki_links_to_ids_become_paths_in_a_markdown_folder_and_in_an_export(
    cli: Cli, tmp_path: Path
) -> None:
    """``[[:/id]]`` (a note's id in wiki form) was left as written: into a Markdown folder that is
    noted's id in the person's file and a link leading nowhere there, and in an export as well."""
    src = tmp_path / "src"
    src.mkdir()
    zid = "0123456789abcdef0123456789abcdef"
    (src / "z.md").write_text(f"---\nid: {zid}\n---\n# z\nzed\n## Sec two\n")
    body = f"[[:/{zid}]], [[:/{zid}|shown]], [[:/{zid}#Sec two]] and `[[:/{zid}]]`\n"
    (src / "a.md").write_text(body)  # a.md is written first: a forward link too
    vault = _vault(tmp_path)
    v = ("--vault", str(vault))
    cli.ok("import", str(src), *v)
    paths = "[z](z.md), [shown](z.md), [z](z.md#Sec%20two) and "
    assert (vault / "src" / "a.md").read_text().endswith(f"{paths}`[[:/{zid}]]`\n")  # (code stays code)
    outgoing = cli.json("links", "a", *v)["outgoing"]
    assert [(link["title"], link["heading"]) for link in outgoing] == [
        ("z", None),
        ("z", None),
        ("z", "Sec two"),
    ]
    cli.ok("create", "b", "--notebook", "src", "--body", f"see [[:/{zid}|it]]", *v)
    assert (vault / "src" / "b.md").read_text().endswith("see [it](z.md)")
    export, own = tmp_path / "export", Cli(tmp_path / "own", cli.capsys)
    own.ok("import", str(src))  # the embedded store keeps the id; its export writes the path
    own.ok("export", str(export))
    assert (export / "src" / "a.md").read_text().endswith(f"{paths}`[[:/{zid}]]`\n")


def test_an_html_link_to_an_id_appended_in_a_markdown_folder_becomes_a_path(cli: Cli, tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    (vault / "a.md").write_text("# A\n")
    (vault / "c.md").write_text("# C\n")
    v = ("--vault", str(vault))
    c_id = cli.json("show", "C", *v)["id"]
    cli.ok("edit", "A", "--append", f'<a href=":/{c_id}">c</a> <:/{c_id}>', *v)
    assert (vault / "a.md").read_text().endswith('<a href="c.md">c</a> [c.md](c.md)\n')


def test_reference_links_and_autolinks_survive_import_and_export(cli: Cli, tmp_path: Path) -> None:
    src = tmp_path / "rs"
    src.mkdir()
    (src / "report.pdf").write_bytes(b"PDF")
    (src / "n.md").write_text("Read [the report][r].\n\n[r]: report.pdf\n")
    # Before: "0 attachments added", and the definition kept naming a file the profile lacks.
    assert "1 attachment added" in cli.ok("import", str(src)).out
    store = cli.store()
    try:
        (resource,) = store.list_resources()
    finally:
        store.close()
    assert cli.json("show", "n")["body"] == f"Read [the report][r].\n\n[r]: :/{resource.id}\n"
    cli.ok("edit", "n", "--append", f"Also <:/{resource.id}>.")
    cli.ok("export", str(tmp_path / "out"))
    (exported,) = (tmp_path / "out").rglob("n.md")
    text = exported.read_text()
    # Before: both kept ":/id", which leads nowhere outside noted.
    assert _ID.search(text.partition("\n---\n")[2]) is None, text
    assert "[r]: ../_resources/" in text and "Also [" in text


def test_wiki_and_markdown_links_between_notes_of_a_markdown_folder_survive_export_and_import(
    cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = _vault(tmp_path)
    (vault / "main.md").write_text("See [[other]], [[other#Sec|alias]], [md](other.md) and ![[other]].\n")
    (vault / "other.md").write_text("# Other title\n\n## Sec\n")
    cli.ok("export", str(tmp_path / "out"), "--vault", str(vault))
    (main,) = (tmp_path / "out").rglob("main.md")
    # Before: "[[other]]" was left as it was, and the export's file is "Other title.md".
    assert main.read_text().endswith(
        "See [other](Other%20title.md), [alias](Other%20title.md#Sec), [md](Other%20title.md)"
        " and [other](Other%20title.md).\n"
    )
    fresh = Cli(tmp_path / "fresh", capsys)
    fresh.ok("import", str(tmp_path / "out"))
    outgoing = fresh.json("links", "main")["outgoing"]
    assert [(link["title"], bool(link["broken"])) for link in outgoing] == [("Other title", False)] * 4


def test_an_export_imported_into_a_new_profile_keeps_attachment_names_and_ids(
    cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "s"
    src.mkdir()
    (src / "my photo.png").write_bytes(b"PNG")
    (src / "n.md").write_text("See ![p](<my photo.png>).\n")
    cli.ok("import", str(src))
    store = cli.store()
    try:
        (before,) = store.list_resources()
    finally:
        store.close()
    cli.ok("export", str(tmp_path / "out"))
    # Before: "_resources/<id>.png", and the import into a new profile named it "<id>.png", a new id.
    assert (tmp_path / "out" / "_resources" / before.id / "my photo.png").read_bytes() == b"PNG"
    fresh = Cli(tmp_path / "fresh", capsys)
    fresh.ok("import", str(tmp_path / "out"))
    store = fresh.store()
    try:
        (after,) = store.list_resources()
    finally:
        store.close()
    assert (after.id, after.filename, after.title) == (before.id, "my photo.png", "my photo.png")
    assert fresh.json("show", "n")["body"] == f"See ![p](:/{before.id}).\n"


def test_an_attachment_titled_otherwise_than_its_file_keeps_its_title_through_export_and_import(
    cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The export wrote an attachment under its file name only: its title (a Joplin attachment's,
    one given in noted) was lost, the import taking the file name for it."""
    src = tmp_path / "s"
    src.mkdir()
    (src / "IMG_0042.jpg").write_bytes(b"JPG")
    (src / "n.md").write_text("See ![p](IMG_0042.jpg).\n")
    cli.ok("import", str(src))
    store = cli.store()
    try:
        (resource,) = store.list_resources()
        store.replace_resource(resource.id, b"JPG", title="Receipt: the printer", actor="user")
    finally:
        store.close()
    out = tmp_path / "out"
    cli.ok("export", str(out))
    assert (out / "_resources" / resource.id / "IMG_0042.jpg").read_bytes() == b"JPG"
    fresh = Cli(tmp_path / "fresh", capsys)
    fresh.ok("import", str(out))
    store = fresh.store()
    try:
        (after,) = store.list_resources()
    finally:
        store.close()
    assert (after.id, after.filename, after.title) == (resource.id, "IMG_0042.jpg", "Receipt: the printer")
    cli.ok("export", str(out))  # the export replaces its own, the manifest with the titles included


def test_attachments_with_the_same_bytes_keep_their_own_names_and_ids_through_export_and_import(
    cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two files with the same bytes under different names became one attachment on import: the
    second file's link then opened the first one's name, and a round trip through an export lost
    an attachment's id. Each attachment is listed by name and id, so the merge shows here."""
    src = tmp_path / "s"
    src.mkdir()
    for name in ("report.bin", "report copy.bin", "CON .bin"):
        (src / name).write_bytes(b"same bytes")
    (src / "n.md").write_text(
        "[a](report.bin) [b](<report copy.bin>) [c](CON%20.bin) [a again](report.bin)\n"
    )
    cli.ok("import", str(src))
    store = cli.store()
    try:
        before = {r.id: r.filename for r in store.list_resources()}
    finally:
        store.close()
    assert sorted(before.values()) == ["CON .bin", "report copy.bin", "report.bin"]
    body = cli.json("show", "n")["body"]
    assert len(set(_ID.findall(body))) == 3, body
    assert "0 updated, 1 unchanged" in cli.ok("import", str(src)).out  # each file finds its own again
    assert cli.json("show", "n")["body"] == body
    cli.ok("export", str(tmp_path / "out"))
    fresh = Cli(tmp_path / "fresh", capsys)
    fresh.ok("import", str(tmp_path / "out"))
    store = fresh.store()
    try:
        after = {r.id: r.filename for r in store.list_resources()}
    finally:
        store.close()
    assert after == before
    assert fresh.json("show", "n")["body"] == body


def test_reimporting_an_export_that_left_out_a_missing_attachment_keeps_the_link_to_it(
    cli: Cli, tmp_path: Path
) -> None:
    """An export writes the link to an attachment whose file is missing from the profile as its
    ``_resources/ID/name`` path all the same; importing that export again turned the note's
    working ``:/ID`` into that path, which names no file: once the file was put back (or on
    Joplin, which still had it) the note no longer linked its attachment."""
    src = tmp_path / "s"
    src.mkdir()
    (src / "pic.png").write_bytes(b"PNG")
    (src / "n.md").write_text("See ![p](pic.png).\n")
    cli.ok("import", str(src))
    body = cli.json("show", "n")["body"]
    (resource_file,) = (cli.profile / "resources").iterdir()
    resource_file.unlink()
    assert cli("export", str(tmp_path / "out")).code == 5
    result = cli.ok("import", str(tmp_path / "out"))
    assert "0 notes created, 0 updated" in result.out
    assert cli.json("show", "n")["body"] == body


@pytest.mark.parametrize("in_vault", [False, True], ids=["sqlite", "vault"])
def test_a_link_to_an_attachment_keeps_its_fragment_query_and_escaped_name_through_import(
    cli: Cli, tmp_path: Path, in_vault: bool
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "doc.pdf").write_bytes(b"%PDF-1.4 doc")
    (src / "x(1).pdf").write_bytes(b"%PDF-1.4 x1")
    (src / "n.md").write_text("[p3](doc.pdf#page=3) and [x](x\\(1\\).pdf), [p2](doc.pdf?page=2)\n")
    v = ("--vault", str(_vault(tmp_path))) if in_vault else ()
    result = cli.ok("import", str(src), *v)
    # Before: "1 attachment added" and a warning that "x\(1\).pdf" names no file, though
    # CommonMark reads the escaped name as x(1).pdf; and the page asked for was lost: [p3](:/id)
    # (a ?query, [p2](:/id), until later).
    assert "2 attachments added" in result.out and "names no file" not in result.err
    body = cli.json("show", "n", *v)["body"]
    doc = r"(:/[0-9a-f]{32}|\.\./doc\.pdf)"
    assert re.fullmatch(rf"\[p3\]\({doc}#page=3\) and \[x\]\(\S+\), \[p2\]\({doc}\?page=2\)\n", body), body
    out = tmp_path / "out"
    cli.ok("export", str(out), *v)
    (exported,) = out.rglob("n.md")
    assert re.search(r"\[p3\]\(\.\./_resources/[0-9a-f]{32}/doc\.pdf#page=3\)", exported.read_text())
    assert re.search(r"\[p2\]\(\.\./_resources/[0-9a-f]{32}/doc\.pdf\?page=2\)", exported.read_text())


def test_an_import_into_a_markdown_folder_writes_each_note_file_once(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note linking one written after it (or itself) was written twice, the second time with its
    links as paths (328 of the 505 notes of ``bench_vault_import.py --links 2``), and each new
    note's name was found by listing its whole folder. Not vacuous: ``n00.md`` links ``n29.md``,
    written after it, and every file ends up with paths, no ``:/id``."""
    src = tmp_path / "src"
    src.mkdir()
    for n in range(30):  # each links the next one, written after it, and the one before
        (src / f"n{n:02}.md").write_text(
            f"Step {n}: [next](n{(n + 1) % 30:02}.md), [back](n{(n - 1) % 30:02}.md)\n"
        )
    vault = _vault(tmp_path)
    replaced: Counter[str] = Counter()
    listed: list[str] = []
    real_replace, real_listdir = os.replace, os.listdir

    def replace(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        real_replace(source, target)
        if str(target).endswith(".md"):
            replaced[Path(target).name] += 1

    def listdir(path: str | os.PathLike[str] = ".") -> list[str]:
        listed.append(str(path))
        return real_listdir(path)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "listdir", listdir)
    cli.ok("import", str(src), "--vault", str(vault))
    assert replaced == {f"n{n:02}.md": 1 for n in range(30)}
    assert listed.count(str(vault / "src")) <= 2
    assert (vault / "src" / "n00.md").read_text() == "Step 0: [next](n01.md), [back](n29.md)\n"
    assert not [p for p in (vault / "src").glob("*.md") if _ID.search(p.read_text())]
