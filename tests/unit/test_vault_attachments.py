"""Attachments on a Markdown folder, with real files under real ``git``: the files notes link to are
their attachments where they are (never copied), a file attached from noted is written where
Obsidian would put it, and noted deletes only a file it wrote, unchanged."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from tests.support.cli import Cli
from tests.support.documents import pdf_bytes
from tests.support.images import image_bytes
from tests.support.vaults import by_title, git, opened

from noted.errors import InvalidInputError, NotFoundError
from noted.models import NotePatch
from noted.ops.attachments import Removal, add_from_path, attach_to_note, remove_attachment
from noted.store.protocol import KeptFile
from noted.store.transfer.exporter import export_markdown

PHOTO = image_bytes(40, 20)
DIAGRAM = image_bytes(30, 30, color="red")
REPORT = pdf_bytes("Q3 report")
LINKS = (
    "# Trip\n\n![](../img/photo.png)\n\nThe plan: ![[diagram.png|200]]\n\n"
    "Costs in [the report](<../docs/q 3.pdf>) and [[missing.pdf]], see [[Other]] and https://x.org/a.png.\n"
)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    for folder in ("img", "docs", "projects", "assets/deep"):
        (root / folder).mkdir(parents=True)
    (root / "img" / "photo.png").write_bytes(PHOTO)
    (root / "assets" / "deep" / "diagram.png").write_bytes(DIAGRAM)
    (root / "docs" / "q 3.pdf").write_bytes(REPORT)
    (root / "projects" / "trip.md").write_text(LINKS)
    (root / "projects" / "other.md").write_text("# Other\n\nNothing attached.\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


def resources_dir(tmp_path: Path) -> list[str]:
    folder = tmp_path / "p" / "vault-resources"
    return sorted(os.listdir(folder)) if folder.is_dir() else []


def test_the_files_a_note_links_to_are_its_attachments_where_they_are(vault: Path, tmp_path: Path) -> None:
    with opened(vault, tmp_path / "p") as store:
        trip = by_title(store, "Trip")
        found = {r.filename: r for r in store.list_resources(note_id=trip)}
        # Before: the vault store listed only attachments kept in the profile, so none of these.
        assert sorted(found) == ["diagram.png", "photo.png", "q 3.pdf"]
        assert found["photo.png"].mime == "image/png" and found["photo.png"].size == len(PHOTO)
        diagram = found["diagram.png"].id
        assert store.resource_path(diagram) == vault / "assets" / "deep" / "diagram.png"
        assert store.read_resource(diagram) == DIAGRAM
        assert store.read_resource(found["q 3.pdf"].id) == REPORT
        assert store.resource_notes(diagram) == [trip]
        assert store.list_resources(note_id=by_title(store, "Other")) == []
    with opened(vault, tmp_path / "p") as store:  # the same ids on the next start
        assert {r.id for r in store.list_resources(note_id=trip)} == {r.id for r in found.values()}
    assert resources_dir(tmp_path) == []  # nothing copied into the profile
    assert git(vault, "status", "--porcelain") == ""


def test_an_outside_edit_linking_another_file_follows(vault: Path, tmp_path: Path) -> None:
    with opened(vault, tmp_path / "p") as store:
        other = by_title(store, "Other")
        (vault / "projects" / "other.md").write_text("# Other\n\nNow with ![[photo.png]].\n")
        store.follower.apply(["projects/other.md"])
        assert [r.filename for r in store.list_resources(note_id=other)] == ["photo.png"]
        (vault / "projects" / "other.md").write_text("# Other\n\nNo picture any more.\n")
        store.follower.apply(["projects/other.md"])
        assert store.list_resources(note_id=other) == []
        assert (vault / "img" / "photo.png").read_bytes() == PHOTO


@pytest.mark.parametrize(
    ("setting", "where"),
    [
        (None, "scan.png"),  # Obsidian's default: the folder's root
        ("./", "projects/scan.png"),  # the note's folder
        ("./attachments", "projects/attachments/scan.png"),
        ("assets", "assets/scan.png"),
        ("/", "scan.png"),
    ],
)
def test_a_file_attached_from_noted_is_written_where_obsidian_would_put_it(
    vault: Path, tmp_path: Path, setting: str | None, where: str
) -> None:
    if setting is not None:
        (vault / ".obsidian").mkdir()
        (vault / ".obsidian" / "app.json").write_text(json.dumps({"attachmentFolderPath": setting}))
    picked = tmp_path / "scan.png"
    picked.write_bytes(PHOTO)
    with opened(vault, tmp_path / "p") as store:
        other = by_title(store, "Other")
        resource = add_from_path(store, other, str(picked), actor="user")
        assert (vault / where).read_bytes() == PHOTO
        link = os.path.relpath(vault / where, vault / "projects")
        assert (vault / "projects" / "other.md").read_text().endswith(f"\n![scan.png]({link})\n")
        assert store.resource_path(resource.id) == vault / where
        assert [r.id for r in store.list_resources(note_id=other)] == [resource.id]
    assert resources_dir(tmp_path) == []  # the profile's copy went once the file was in the folder
    with opened(vault, tmp_path / "p") as store:
        assert [r.id for r in store.list_resources(note_id=other)] == [resource.id]


def test_a_second_file_of_the_same_name_does_not_overwrite_the_first(vault: Path, tmp_path: Path) -> None:
    picked = tmp_path / "photo.png"
    picked.write_bytes(DIAGRAM)
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "app.json").write_text('{"attachmentFolderPath": "img"}')
    with opened(vault, tmp_path / "p") as store:
        add_from_path(store, by_title(store, "Other"), str(picked), actor="user")
    assert (vault / "img" / "photo.png").read_bytes() == PHOTO
    assert (vault / "img" / "photo 2.png").read_bytes() == DIAGRAM


def test_noted_deletes_only_a_file_it_wrote_and_only_unchanged(vault: Path, tmp_path: Path) -> None:
    picked = tmp_path / "scan.png"
    picked.write_bytes(PHOTO)
    with opened(vault, tmp_path / "p") as store:
        trip, other = by_title(store, "Trip"), by_title(store, "Other")
        photo = next(r.id for r in store.list_resources(note_id=trip) if r.filename == "photo.png")
        # Not noted's, and linked: the note's next write would take it back under a new id.
        with pytest.raises(InvalidInputError, match='img/photo.png.*the note "Trip" links it'):
            store.delete_resource(photo, actor="user")
        assert store.get_resource(photo).id == photo and store.resource_versions(photo) == []
        body = (vault / "projects" / "trip.md").read_text().replace("![](../img/photo.png)", "")
        store.update_note(trip, NotePatch(body=body), actor="user")
        store.delete_resource(photo, actor="user")  # linked no more: it leaves noted
        assert (vault / "img" / "photo.png").read_bytes() == PHOTO  # not noted's: kept
        mine = add_from_path(store, other, str(picked), actor="user")
        (vault / "scan.png").write_bytes(DIAGRAM)  # changed outside since noted wrote it
        with pytest.raises(InvalidInputError, match="changed since noted wrote it"):
            store.delete_resource(mine.id, actor="user")
        assert (vault / "scan.png").read_bytes() == DIAGRAM
        again = add_from_path(store, other, str(picked), actor="user")
        assert store.resource_path(again.id) == vault / "scan 2.png"
        store.delete_resource(again.id, actor="user")
        assert not (vault / "scan 2.png").exists()  # noted's own, unchanged: deleted


def test_a_link_out_of_the_folder_is_not_an_attachment(vault: Path, tmp_path: Path) -> None:
    """A wiki link by name (``[[link.png]]``, found by walking the folder) took the symbolic link
    for an attachment, and export copied the file outside the folder it leads to."""
    (tmp_path / "secret.png").write_bytes(PHOTO)
    (vault / "img" / "link.png").symlink_to(tmp_path / "secret.png")
    (vault / "projects" / "other.md").write_text(
        "# Other\n\n![](../../secret.png) ![](../img/link.png) [[link.png]] ![[link.png]]\n"
    )
    with opened(vault, tmp_path / "p") as store:
        assert store.list_resources(note_id=by_title(store, "Other")) == []
        export_markdown(store, tmp_path / "out")
    assert b"".join(p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()).count(PHOTO) == 1


def test_an_attachment_swapped_for_a_link_out_of_the_folder_is_never_read(
    vault: Path, tmp_path: Path
) -> None:
    """The file of an attachment replaced by a symbolic link since noted read it: its path was given
    out (to the system opener, to export's ``copyfile``, which follows links)."""
    (tmp_path / "secret.png").write_bytes(b"secret bytes")
    with opened(vault, tmp_path / "p") as store:
        [photo] = [r for r in store.list_resources(note_id=by_title(store, "Trip")) if r.title == "photo.png"]
        (vault / "img" / "photo.png").unlink()
        (vault / "img" / "photo.png").symlink_to(tmp_path / "secret.png")
        with pytest.raises(NotFoundError, match="symbolic link"):
            store.read_resource(photo.id)
        with pytest.raises(NotFoundError, match="symbolic link"):
            store.resource_path(photo.id)
        export_markdown(store, tmp_path / "out")
    assert b"secret bytes" not in [p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()]


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file of the folder (``.git`` aside) with its hash and mtime."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath, name)
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            found[str(path.relative_to(root))] = (digest, path.stat().st_mtime_ns)
    return found


def linked(note: Path) -> dict[str, bytes]:
    """Each local link target of an exported note (outside code) but notes', with the bytes it leads to."""
    text = re.sub(r"```.*?```", "", note.read_text(), flags=re.DOTALL)
    targets = re.findall(r"\]\(<?([^)<>]+)>?\)", text)
    return {
        t: (note.parent / unquote(t.partition("#")[0])).read_bytes()
        for t in targets
        if not t.startswith(("http", ":/")) and not t.partition("#")[0].endswith(".md")
    }


def test_export_copies_the_files_notes_link_to_and_leaves_the_folder_alone(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / "projects" / "other.md").write_text(
        "# Other\n\nThe report again: ![[q 3.pdf]], the photo [[photo.png|here]], "
        "[page 2](<../docs/q 3.pdf#page=2>), [[q 3.pdf#page=3|page 3]].\n\n"
        "```\n![](../img/photo.png) stays code\n```\n"
    )
    git(vault, "commit", "-qam", "other")
    cli, out, v = Cli(tmp_path / "profile", capsys), tmp_path / "out", ("--vault", str(vault))
    before = snapshot(vault)
    cli.ok("export", str(out), *v)
    (trip,) = out.rglob("Trip.md")
    # Before the fix the links stayed as written (../img/photo.png, [[diagram.png|200]]) and no file
    # was copied: reading them from the export raised FileNotFoundError.
    assert sorted(linked(trip).values()) == sorted([PHOTO, DIAGRAM, REPORT])
    assert all(t.startswith("../_resources/") for t in linked(trip))  # copies, not the folder's files
    text = trip.read_text()
    assert "![diagram.png](../_resources/" in text  # an embed's |200 is a size, not a text
    assert "[[missing.pdf]]" in text  # a link to nothing stays
    assert "[Other](Other.md)" in text  # a link to a note leads to its exported file
    (other,) = out.rglob("Other.md")
    assert list(linked(other).values()) == [REPORT, PHOTO, REPORT, REPORT]
    assert "[here](../_resources/" in other.read_text()
    assert [t.partition("#")[2] for t in linked(other)] == ["", "", "page=2", "page=3"]  # kept
    assert "```\n![](../img/photo.png) stays code\n```" in other.read_text()  # code is not a link
    copies = sorted(p.read_bytes() for p in (out / "_resources").rglob("*") if p.is_file())
    assert copies == sorted([PHOTO, DIAGRAM, REPORT])
    assert snapshot(vault) == before  # nothing in the folder modified, added or deleted
    cli.ok("export", str(out), *v)  # replacing the previous export touches the folder no more
    assert snapshot(vault) == before
    assert git(vault, "status", "--porcelain") == ""


def test_a_note_or_notebook_moved_deeper_keeps_its_relative_links_leading_where_they_did(
    vault: Path, tmp_path: Path
) -> None:
    # Before: the file moved as it was, so ../img/photo.png from projects/deep/ led to projects/img/
    # (nothing there): the image, the report and the link to a note broke, and the note lost them
    # as attachments. Wiki links (found by name) and links from the root need no change.
    (vault / "projects" / "trip.md").write_text(
        LINKS + "\nSee [the other](other.md) and [root](img/photo.png).\n"
    )
    git(vault, "commit", "-qam", "links")
    with opened(vault, tmp_path / "p") as store:
        trip, projects = by_title(store, "Trip"), store.get_note(by_title(store, "Other")).parent_id
        deep = store.create_folder("deep", parent_id=projects, actor="user")
        store.update_note(trip, NotePatch(parent_id=deep.id), actor="user")
        moved = (vault / "projects" / "deep" / "trip.md").read_text()
        assert "![](../../img/photo.png)" in moved and "[the report](<../../docs/q 3.pdf>)" in moved
        assert "[the other](../other.md)" in moved and "[root](img/photo.png)" in moved
        assert "![[diagram.png|200]]" in moved and "https://x.org/a.png" in moved
        assert sorted(r.filename for r in store.list_resources(note_id=trip)) == [
            "diagram.png",
            "photo.png",
            "q 3.pdf",
        ]

        archive = store.create_folder("archive", actor="user")
        store.update_folder(projects, parent_id=archive.id, actor="user")
        again = (vault / "archive" / "projects" / "deep" / "trip.md").read_text()
        assert "![](../../../img/photo.png)" in again and "[the report](<../../../docs/q 3.pdf>)" in again
        assert "[the other](../other.md)" in again  # both moved together: the link still holds
        assert (vault / "archive" / "projects" / "other.md").read_text() == "# Other\n\nNothing attached.\n"
        assert sorted(r.filename for r in store.list_resources(note_id=trip)) == [
            "diagram.png",
            "photo.png",
            "q 3.pdf",
        ]
    git(vault, "add", "-A")
    status = git(vault, "diff", "--cached", "-M", "--name-status", "HEAD").splitlines()
    assert "R100\tprojects/other.md\tarchive/projects/other.md" in status, status  # untouched: a rename
    assert any(line.endswith("\tarchive/projects/deep/trip.md") for line in status), status


def test_a_note_restored_into_a_notebook_moved_meanwhile_keeps_its_links(vault: Path, tmp_path: Path) -> None:
    # Before: restored from .trash/ into the notebook's new folder, one level up, the file kept
    # ../img/photo.png as written for projects/deep/, and the photo was no longer its attachment.
    (vault / "projects" / "deep").mkdir()
    (vault / "projects" / "deep" / "log.md").write_text("# Log\n\n![](../../img/photo.png)\n")
    with opened(vault, tmp_path / "p") as store:
        log = by_title(store, "Log")
        deep = store.get_note(log).parent_id
        store.trash_note(log, actor="user")
        store.update_folder(deep, parent_id="", actor="user")  # projects/deep -> deep
        store.restore_note(log, actor="user")
        assert (vault / "deep" / "log.md").read_text() == "# Log\n\n![](../img/photo.png)\n"
        (photo,) = store.list_resources(note_id=log)
        assert (
            photo.filename == "photo.png" and store.get_note(log).body == "# Log\n\n![](../img/photo.png)\n"
        )


def test_removing_an_attachment_from_a_note_takes_out_its_path_link_and_leaves_the_rest_as_written(
    vault: Path, tmp_path: Path
) -> None:
    """The app's remove looked for ``:/id`` links, which a Markdown folder writes as paths: noted's
    file was deleted with its link left in the note, leading nowhere, and the person's was refused
    ("remove the links to it first") when removing the link was what was asked."""
    with opened(vault, tmp_path / "p") as store:
        trip = by_title(store, "Trip")
        mine = attach_to_note(
            store,
            store.get_note(trip),
            b"noted's\n",
            filename="n.txt",
            mime="text/plain",
            title="n",
            actor="user",
        )
        path = store.resource_path(mine.id)
        assert path.exists() and "](../n.txt)" in (vault / "projects" / "trip.md").read_text()
        assert remove_attachment(store, trip, mine.id, delete=True, actor="user") == Removal(True, 0)
        assert not path.exists()
        assert git(vault, "status", "--porcelain") == ""  # the note as it was before the attach
        report = next(r for r in store.list_resources(note_id=trip) if r.filename == "q 3.pdf")
        removed = remove_attachment(store, trip, report.id, delete=True, actor="user")
        assert removed.deleted and removed.kept == KeptFile("docs/q 3.pdf", changed=False)
        assert (vault / "docs" / "q 3.pdf").read_bytes() == REPORT  # not noted's: it stays
        # Only the line of the link changed (its words kept); the embed and the rest as written.
        assert (vault / "projects" / "trip.md").read_text() == LINKS.replace(
            "[the report](<../docs/q 3.pdf>)", "the report"
        )


def test_a_file_with_no_extension_beside_its_note_is_its_attachment_and_a_notes_name_stays_a_note(
    vault: Path, tmp_path: Path
) -> None:
    """Before, a link to a name with no file type was taken for a link to a note, so ``Makefile``
    beside the note that links it was no attachment of it."""
    projects = vault / "projects"
    (projects / "Makefile").write_text("all:\n")
    (projects / "Other").write_text("a file named as the note Other.md")
    (projects / ".env").write_text("TOKEN=1\n")
    (vault / "docs" / "Makefile.md").write_text("# Makefile\n\na note elsewhere: not the one beside\n")
    (vault / "README").write_text("at the top, where every note's attachments go\n")
    (vault / "top.md").write_text("# Top\n\n[readme](README)\n")
    (projects / "build.md").write_text(
        "# Build\n\n[make](Makefile), [[Makefile]], [[Other]], [[.env]], [[README]]\n"
    )
    with opened(vault, tmp_path / "p") as store:
        build = by_title(store, "Build")
        assert [r.filename for r in store.list_resources(note_id=build)] == ["Makefile"]
        found = store.list_resources(note_id=build)[0]
        assert store.resource_path(found.id) == projects / "Makefile"
        body = store.body_with_ids(build, store.get_note(build).body, notes=True)
        other = by_title(store, "Other")
        assert f"[make](:/{found.id}), [Makefile](:/{found.id}), [Other](:/{other})" in body  # the note
        # a file in the folder every note's attachments share is no bare name's: it may be any notebook's
        assert store.list_resources(note_id=by_title(store, "Top")) == []
    assert git(vault, "status", "--porcelain") != ""  # (the new files), none of them rewritten
    assert (projects / "Makefile").read_text() == "all:\n"
