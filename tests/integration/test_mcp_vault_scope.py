"""A Markdown folder seen by an AI app limited to one notebook: what lies outside it answers as what
does not exist, for files linked by path or name too, and nothing it does makes a note elsewhere.

The folder is real, the app is the MCP SDK's client over HTTP with a client token limited to "Work",
and the main token (no scope) shows each hidden thing is there, so no check here is vacuous.
"""

from __future__ import annotations

import base64
import shutil
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.integration.mcp_support import scoped_and_main, text_of
from tests.support.vaults import by_title

from noted.embeddings.fake import FakeEmbedder
from noted.mcp.deps import McpDeps
from noted.models import NotePatch
from noted.profile import Profile
from noted.search.keyword import KeywordSearch
from noted.search.semantic import SemanticSearch
from noted.settings import Settings
from noted.store.vault import VaultStore
from noted.tools import ToolRegistry, all_tools

KEYS = b"SECRET BYTES, linked by no note\n"
WALLET = b"a file at the top of the folder\n"


@dataclass
class Folder:
    """A Markdown folder with "Work" and "Secret", opened as a profile's store."""

    root: Path
    store: VaultStore
    settings: Settings
    deps: McpDeps
    work_note: str
    work: str


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Folder]:
    root = tmp_path / "vault"
    (root / "Work").mkdir(parents=True)
    (root / "Secret").mkdir()
    (root / "Work" / "Work plan.md").write_text("# Work plan\n\nwork text\n")
    (root / "Work" / "diagram.txt").write_text("a file of Work's own\n")
    (root / "Secret" / "Secret plan.md").write_text("# Secret plan\n\nsecret text\n")
    (root / "Secret" / "keys.txt").write_bytes(KEYS)
    (root / "wallet.txt").write_bytes(WALLET)
    profile = Profile(tmp_path / "p").ensure()
    store = VaultStore.open(root, profile.root)
    settings = Settings.load(profile)
    for tool in ("update_note", "create_note", "attach_file", "replace_attachment", "update_notebook"):
        settings.set(f"ai.tool.{tool}.enabled", True)
    settings.set("ai.tool.create_notebook.enabled", True)
    tools = ToolRegistry(settings, all_tools())
    deps = McpDeps(
        store,
        KeywordSearch(store),
        settings,
        tools,
        lambda: SemanticSearch(store, store.db, FakeEmbedder()),
        log_path=profile.log_path,
    )
    work_note = by_title(store, "Work plan")
    yield Folder(root, store, settings, deps, work_note, store.get_note(work_note).parent_id)
    store.close()


def _clients(
    folder: Folder, tmp_path: Path, *notebooks: str
) -> AbstractAsyncContextManager[tuple[Client, Client]]:
    """A client limited to Work (and ``notebooks``), and one with the main token (no scope)."""
    return scoped_and_main(folder.deps, tmp_path, [folder.work, *notebooks], tools=["all"])


async def _ok(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, (tool, text_of(result))
    content: dict[str, Any] = result.structured_content or {}
    return content


async def _refused(client: Client, tool: str, **args: Any) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, (tool, args, result.structured_content)
    return text_of(result)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


async def test_a_link_by_path_or_name_to_a_file_outside_the_scope_is_refused_as_one_to_nothing(
    folder: Folder, tmp_path: Path
) -> None:
    """Linking ``../Secret/keys.txt`` (or ``![[wallet.txt]]``, found by name anywhere) from its Work
    note made the file the note's attachment: the client listed it, read it and overwrote it on
    disk. Now such a link is refused as a link to a file that is not there, and nothing is written;
    links to Work's own files and to its own attachments are written."""
    store = folder.store
    hidden = [
        "../Secret/keys.txt",
        "/Secret/keys.txt",
        "[[keys.txt]]",
        "[[wallet.txt]]",
        "[[Secret/keys.txt]]",
    ]
    missing = [
        "../Secret/nothing.txt",
        "/Secret/nothing.txt",
        "[[nothing.txt]]",
        "[[bare.txt]]",
        "[[Secret/no.txt]]",
    ]
    cursor = store.latest_cursor()
    async with _clients(folder, tmp_path) as (scoped, everything):
        said: dict[str, list[str]] = {}
        for name, targets in (("hidden", hidden), ("missing", missing)):
            for target in targets:
                link = f"!{target}" if target.startswith("[[") else f"[k]({target})"
                bare = target.strip("[]")
                said.setdefault(name, []).extend(
                    [
                        (await _refused(scoped, "update_note", id=folder.work_note, append=link)).replace(
                            bare, "X"
                        ),
                        (await _refused(scoped, "update_note", id=folder.work_note, body=link)).replace(
                            bare, "X"
                        ),
                        (
                            await _refused(
                                scoped, "create_note", title="New", notebook_id=folder.work, body=link
                            )
                        ).replace(bare, "X"),
                    ]
                )
        assert store.latest_cursor() == cursor  # nothing was written
        # A link an append only finishes (a link's target may start on the next line) is seen whole.
        start = await _ok(scoped, "update_note", id=folder.work_note, append="[k](")
        finished = await _refused(scoped, "update_note", id=folder.work_note, append="../Secret/keys.txt)")
        listed = await _ok(scoped, "list_attachments")
        # What the client may link: a file in Work's folder, and a file it attached itself.
        mine = await _ok(
            scoped,
            "attach_file",
            note_id=folder.work_note,
            filename="mine.txt",
            mime="text/plain",
            content_base64=_b64(b"mine\n"),
        )
        other = await _ok(
            scoped, "create_note", title="Other", notebook_id=folder.work, body="![d](diagram.txt)"
        )
        await _ok(scoped, "update_note", id=other["id"], append="[m](mine.txt)")  # beside its note
        seen = {a["filename"] for a in (await _ok(scoped, "list_attachments"))["attachments"]}
        # The person (the main token) links anything, as before.
        await _ok(everything, "update_note", id=folder.work_note, append="[k](../Secret/keys.txt)")
    assert start["changed"] == ["append"]
    assert said["hidden"] == said["missing"], said
    assert said["hidden"][0] == (
        'no note or attachment "X" to link; nothing was written (link a file by its path from the '
        "note's folder or from the top of the folder, not by its name alone)"
    )
    assert "keys" in finished and "nothing was written" in finished
    assert listed["attachments"] == []
    assert seen == {"diagram.txt", "mine.txt"} and mine["filename"] == "mine.txt"
    assert (folder.root / "Secret" / "keys.txt").read_bytes() == KEYS
    assert "../Secret/keys.txt" in store.get_note(folder.work_note).body


async def test_a_file_in_a_notebook_outside_the_scope_stays_hidden_when_a_note_inside_links_it(
    folder: Folder, tmp_path: Path
) -> None:
    """The person links Secret's keys.txt from the Work note: the file is that note's attachment,
    linked by no other, yet it lies in Secret's folder, so the client limited to Work sees an id
    that names nothing (and may still edit the note that links it)."""
    store = folder.store
    store.update_note(folder.work_note, NotePatch(append="[k](../Secret/keys.txt)"), actor="user")
    [keys] = store.list_resources(note_id=folder.work_note)
    made_up = "0123456789abcdef" * 2
    async with _clients(folder, tmp_path) as (scoped, everything):
        answers = {}
        for rid in (keys.id, made_up):
            answers[rid] = [
                (await _refused(scoped, tool, id=rid, **extra)).replace(rid, "ID")
                for tool, extra in (
                    ("read_attachment", {}),
                    ("get_attachment", {}),
                    ("replace_attachment", {"content_base64": _b64(b"overwritten\n")}),
                )
            ]
        listed = await _ok(scoped, "list_attachments", note_id=folder.work_note)
        links = await _ok(scoped, "note_links", id=folder.work_note)
        whole = await _ok(everything, "note_links", id=folder.work_note)
        await _ok(scoped, "update_note", id=folder.work_note, append="more work")
        # Another link to the file the note links already is no different from one to nothing.
        again = [
            (await _refused(scoped, "update_note", id=folder.work_note, append=f"![[{name}]]")).replace(
                name, "X"
            )
            for name in ("keys.txt", "nothing.txt")
        ]
        read = await _ok(everything, "read_attachment", id=keys.id)
    assert answers[keys.id] == answers[made_up]
    assert again[0] == again[1]
    assert listed["attachments"] == []
    # note_links listed the file (its name and size) beside a link it calls broken
    assert links["attachments"] == [] and [a["id"] for a in whole["attachments"]] == [keys.id]
    assert read["text"] == KEYS.decode()  # not vacuous: it is there, and the main token reads it
    assert (folder.root / "Secret" / "keys.txt").read_bytes() == KEYS


async def test_a_file_attached_under_a_notes_name_stays_an_attachment_and_makes_no_note(
    folder: Folder, tmp_path: Path
) -> None:
    """``attach_file`` named ``Planted.md`` wrote Planted.md at the top of the folder, which the
    follower read as a new note outside Work, by "outside". Now the bytes are kept as
    Planted.md.txt, an attachment of the Work note, and every change is the client's."""
    store = folder.store
    cursor = store.latest_cursor()
    planted = b"# Planted\n\nwritten by the Work client\n"
    async with _clients(folder, tmp_path) as (scoped, _):
        made = await _ok(
            scoped,
            "attach_file",
            note_id=folder.work_note,
            filename="Planted.md",
            mime="text/markdown",
            content_base64=_b64(planted),
        )
        store.follower.scan()  # what the watcher would see of the new file
        read = await _ok(scoped, "read_attachment", id=made["id"])
    assert sorted(n.title for n in store.list_notes()) == ["Secret plan", "Work plan"]
    assert not (folder.root / "Planted.md").exists() and not (folder.root / "Work" / "Planted.md").exists()
    assert (folder.root / "Work" / "Planted.md.txt").read_bytes() == planted  # beside its note
    assert read["text"] == planted.decode()
    assert "](Planted.md.txt)" in store.get_note(folder.work_note).body
    actors = {c.actor for c in store.changes_since(cursor).changes}
    assert actors == {"mcp:work"}, actors


async def test_renaming_a_top_of_the_scope_says_nothing_of_the_names_beside_it(
    folder: Folder, tmp_path: Path
) -> None:
    """Renaming Work to "Secret" answered "Secret 2" while "Nonexistent" was kept: the client
    learned a Secret folder is beside its own. In a Markdown folder a top of the scope is now not
    renamed by the client, in the same words whatever the name; a sub-notebook is, and the person
    still renames the top."""
    store = folder.store
    (folder.root / "README.md").write_text("# Readme\n")  # the folder's own notebook, given to the client
    store.follower.scan()
    top = store.get_note(by_title(store, "Readme")).parent_id
    async with _clients(folder, tmp_path, top) as (scoped, everything):
        said = [
            (await _refused(scoped, "update_notebook", id=folder.work, title=name)).replace(name, "N")
            for name in ("Secret", "Nonexistent")
        ]
        made = [
            (await _refused(scoped, "create_notebook", parent_id=top, title=name)).replace(name, "N")
            for name in ("Secret", "Nonexistent")
        ]
        sub = await _ok(scoped, "create_notebook", parent_id=folder.work, title="Sub")
        moved = await _refused(scoped, "update_notebook", id=sub["id"], parent_id=top)
        renamed = await _ok(scoped, "update_notebook", id=sub["id"], title="Renamed")
        person = await _refused(everything, "update_notebook", id=folder.work, title="Secret")
    assert said[0] == said[1] and made[0] == made[1], (said, made)
    assert "cannot be renamed" in said[0] and "nothing was changed" in said[0]
    assert "nothing was changed" in moved and "nothing was changed" in made[0]
    assert renamed["title"] == "Renamed" and (folder.root / "Work" / "Renamed").is_dir()
    # Not vacuous: the name is taken beside Work, as the person's rename shows (refused: a
    # notebook's name is its siblings' own, ``ops.notebooks``).
    assert 'a notebook named "Secret" is already at the top level' in person
    assert sorted(p.name for p in folder.root.iterdir() if p.is_dir()) == ["Secret", "Work"]


def test_the_person_attaching_a_notes_name_gets_an_attachment_too(folder: Folder) -> None:
    """The rule is the folder's, not the scope's: the person's ``notes.md`` is kept as text too."""
    store = folder.store
    resource = store.add_resource(b"# Not a note\n", filename="notes.md", mime="text/markdown", actor="user")
    store.update_note(folder.work_note, NotePatch(append=f"[n](:/{resource.id})"), actor="user")
    store.follower.scan()
    assert (folder.root / "notes.md.txt").read_bytes() == b"# Not a note\n"
    assert [r.id for r in store.list_resources(note_id=folder.work_note)] == [resource.id]
    assert sorted(n.title for n in store.list_notes()) == ["Secret plan", "Work plan"]


async def test_a_wiki_link_to_a_note_whose_name_has_a_dot_is_written_in_the_scope(
    folder: Folder, tmp_path: Path
) -> None:
    """``[[Meeting 2024.01.05]]`` looks like a file's name but leads to the note of that name
    (Obsidian reads it so, and now noted too): a client in Work writes it to Work's note, and it
    leads there. A link by name to a note in Secret is written as one to no note is, and leads
    nowhere for the client. Not vacuous: the scope's file check refused every such name that
    named no file, and noted read ``[[Meeting 2024.01.05]]`` as an attachment's."""
    (folder.root / "Work" / "Meeting 2024.01.05.md").write_text("# Meeting\n")
    (folder.root / "Secret" / "Budget v1.2.md").write_text("# Budget\n")
    folder.store.follower.scan()
    async with _clients(folder, tmp_path) as (scoped, _):
        await _ok(scoped, "update_note", id=folder.work_note, append="See [[Meeting 2024.01.05]].")
        await _ok(scoped, "update_note", id=folder.work_note, append="And [[Budget v1.2]], [[Budget v9.9]].")
        links = await _ok(scoped, "note_links", id=folder.work_note)
    out = {link["target"]: link for link in links["outgoing"]}
    assert out["Meeting 2024.01.05"]["title"] == "Meeting" and not out["Meeting 2024.01.05"]["broken"]
    assert out["Budget v1.2"]["broken"] == 'no note "Budget v1.2"'
    assert out["Budget v9.9"]["broken"] == 'no note "Budget v9.9"'


async def test_a_link_by_name_is_decided_without_the_files_outside_the_scope(
    folder: Folder, tmp_path: Path
) -> None:
    """``![[keys.txt]]`` from the Work note leads to the shortest path named keys.txt anywhere: with
    only Work/sub/keys.txt it was written, with Secret/keys.txt beside it (higher up) refused, so the
    client learned the file outside exists. A link by name alone is now refused from a scope whatever
    the folder holds, in the words for a file that is not there; by its path it is written."""
    (folder.root / "Work" / "sub").mkdir()
    (folder.root / "Work" / "sub" / "keys.txt").write_text("Work's own keys\n")
    folder.store.follower.scan()
    said = []
    async with _clients(folder, tmp_path) as (scoped, _):
        for outside in (True, False):
            if not outside:
                (folder.root / "Secret" / "keys.txt").unlink()  # no file of that name outside now
                folder.store.follower.scan()
            said.append(
                [
                    await _refused(scoped, "update_note", id=folder.work_note, append=link)
                    for link in ("![[keys.txt]]", "[[sub.txt]]")
                ]
            )
        by_path = await _ok(scoped, "update_note", id=folder.work_note, append="![[Work/sub/keys.txt]]")
        seen = {a["filename"] for a in (await _ok(scoped, "list_attachments"))["attachments"]}
    assert said[0] == said[1], said
    assert said[0][0] == said[0][1].replace("sub.txt", "keys.txt")  # as a link to nothing
    assert by_path["changed"] == ["append"] and seen == {"keys.txt"}


async def test_the_name_a_scoped_attachment_gets_says_nothing_of_files_outside(
    folder: Folder, tmp_path: Path
) -> None:
    """Attachments go to the top of the folder, which every notebook shares: ``attach_file`` named
    wallet.txt (there already, linked by no note the client sees) was written as ``wallet 2.txt``, and
    the note's link told the client the file exists. A scoped client's attachment now goes beside its
    note, where every file is its notebook's, so a name is taken only by a file it could see."""
    store = folder.store
    async with _clients(folder, tmp_path) as (scoped, everything):
        for name in ("wallet.txt", "fresh.txt"):
            await _ok(
                scoped,
                "attach_file",
                note_id=folder.work_note,
                filename=name,
                mime="text/plain",
                content_base64=_b64(b"from the Work client\n"),
            )
        again = await _ok(
            scoped,
            "attach_file",
            note_id=folder.work_note,
            filename="diagram.txt",  # Work's own file: a name taken where the client sees
            mime="text/plain",
            content_base64=_b64(b"another diagram\n"),
        )
        mine = {a["filename"] for a in (await _ok(scoped, "list_attachments"))["attachments"]}
        person = await _ok(
            everything,
            "attach_file",
            note_id=folder.work_note,
            filename="wallet.txt",
            mime="text/plain",
            content_base64=_b64(b"the person's\n"),
        )
    body = store.get_note(folder.work_note).body
    assert "](wallet.txt)" in body and "](fresh.txt)" in body, body
    assert "](diagram%202.txt)" in body and again["filename"] == "diagram.txt"
    assert (folder.root / "Work" / "wallet.txt").read_bytes() == b"from the Work client\n"
    assert (folder.root / "wallet.txt").read_bytes() == WALLET
    assert mine == {"wallet.txt", "fresh.txt", "diagram.txt"}, mine
    # Not vacuous: the name is taken at the top, where the person's attachment still goes.
    assert "](../wallet%202.txt)" in body and person["filename"] == "wallet.txt"


async def test_a_scoped_rename_keeps_the_file_name_whatever_links_it_outside(
    folder: Folder, tmp_path: Path
) -> None:
    """A note titled by its file name is renamed with its file, unless another note links it by name
    (the link would break): then the file keeps its name. A note in Secret linking [[Draft one]] so
    kept Work's file named while [[Draft two]] was renamed, and the client saw which by where a link
    by that name led. From a scope the file now keeps its name whatever links it (the new title goes
    in its front matter), so no link breaks and nothing outside decides what the client sees."""
    root, store = folder.root, folder.store
    for name in ("Draft one", "Draft two", "Draft three"):
        (root / "Work" / f"{name}.md").write_text("text with no heading\n")
    (root / "Secret" / "Index.md").write_text("# Index\n\nsee [[Draft one]]\n")
    store.follower.scan()
    one, two = by_title(store, "Draft one"), by_title(store, "Draft two")
    async with _clients(folder, tmp_path) as (scoped, everything):
        for note_id, title in ((one, "First"), (two, "Second")):
            renamed = await _ok(scoped, "update_note", id=note_id, title=title)
            assert renamed["title"] == title
        await _ok(scoped, "update_note", id=folder.work_note, append="[[Draft one]] [[Draft two]]")
        links = await _ok(scoped, "note_links", id=folder.work_note)
        three = by_title(store, "Draft three")
        person = await _ok(everything, "update_note", id=three, title="Third")
    broken = {link["target"]: link["broken"] for link in links["outgoing"]}
    assert broken["Draft one"] == broken["Draft two"] is None, broken
    assert (root / "Work" / "Draft one.md").exists() and (root / "Work" / "Draft two.md").exists()
    assert [n.title for n in store.get_notes([one])] == ["First"]
    # Not vacuous: with no link to it, the person's rename takes the file along.
    assert person["title"] == "Third" and (root / "Work" / "Third.md").exists()
    assert not (root / "Work" / "Draft three.md").exists()


async def test_moving_a_note_rewrites_its_links_out_of_its_folder_whatever_lies_there(
    folder: Folder, tmp_path: Path
) -> None:
    """Moving a note rewrote a relative link only when a file was at its end: a client writing
    [x](../Secret/Secret%20plan.md) and [x](../Secret/Nothing.md) into Work notes and moving them
    into Work/Sub saw the first become ../../Secret/… and the second stay, so it learned which
    notes exist in Secret. A link out of the note's folder now leads to the same path after a move
    either way; one into it still follows its file only (else it may be read from the top)."""
    links = {"real": "../Secret/Secret%20plan.md", "none": "../Secret/Nothing.md", "down": "notes/none.md"}
    async with _clients(folder, tmp_path) as (scoped, _):
        sub = await _ok(scoped, "create_notebook", parent_id=folder.work, title="Sub")
        bodies = {}
        for name, link in links.items():
            made = await _ok(scoped, "create_note", title=name, notebook_id=folder.work, body=f"[x]({link})")
            await _ok(scoped, "update_note", id=made["id"], notebook_id=sub["id"])
            bodies[name] = (await _ok(scoped, "read_note", id=made["id"]))["body"]
    assert bodies == {
        "real": "[x](../../Secret/Secret%20plan.md)",
        "none": "[x](../../Secret/Nothing.md)",  # as the real one, though nothing is there
        "down": "[x](notes/none.md)",  # not vacuous: a link into its folder with no file stays
    }, bodies
    assert (folder.root / "Work" / "Sub" / "real.md").exists()


@pytest.mark.parametrize("how", ["swap", "replace"])
async def test_folders_that_swap_names_outside_noted_keep_the_scope_on_its_own_notes(
    folder: Folder, tmp_path: Path, how: str
) -> None:
    """``mv Work t; mv Secret Work; mv t Secret`` (or ``rm -r Work; mv Secret Work``) while noted
    was closed: the client limited to Work's notebook (by id) kept it, but the notebook stayed with
    the name, so it saw the secret plan. A notebook follows its files: the client sees its own notes
    (in a folder now called Secret), or none, and never the others'. Not vacuous: the main token
    sees the secret plan."""
    secret_note = by_title(folder.store, "Secret plan")
    if how == "swap":
        (folder.root / "Work").rename(folder.root / "t")
    else:
        shutil.rmtree(folder.root / "Work")
    (folder.root / "Secret").rename(folder.root / "Work")
    if how == "swap":
        (folder.root / "t").rename(folder.root / "Secret")
    folder.store.follower.scan()
    async with _clients(folder, tmp_path) as (scoped, everything):
        ids = {n["id"] for n in (await _ok(scoped, "list_notes"))["notes"]}
        assert ids == ({folder.work_note} if how == "swap" else set())
        await _refused(scoped, "read_note", id=secret_note)
        assert (await _ok(everything, "read_note", id=secret_note))["id"] == secret_note
