"""``noted history ID`` for an attachment: its kept versions, and ``--restore N`` (a deleted one too)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, open_backend
from tests.support.cli import Cli
from tests.support.vaults import by_title

from noted.errors import InvalidInputError
from noted.models import NoteDraft, NotePatch
from noted.ops.attachments import delete_attachment, replace_attachment
from noted.ops.resolve import attachment_by_prefix
from noted.store.vault import VaultStore


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "p", capsys)


def _attachment(cli: Cli) -> str:
    cli.ok("notes")  # the profile is made
    store = cli.store()
    try:
        res = store.add_resource(b"first", filename="plan.txt", mime="text/plain", title="Plan", actor="user")
    finally:
        store.close()
    cli.ok("create", "Has it", "--body", f"see [Plan](:/{res.id})\n")
    return res.id


def test_history_lists_an_attachments_versions_and_restores_one(cli: Cli) -> None:
    res_id = _attachment(cli)
    store = cli.store()
    try:
        replace_attachment(store, res_id, b"second!", filename="plan2.txt", actor="mcp:claude")
    finally:
        store.close()
    listed = cli.ok("history", res_id).out
    assert 'attachment "Plan" (plan2.txt, 7 bytes) now' in listed
    assert "mcp:claude" in listed and "replaced" in listed and "plan.txt  5 bytes" in listed
    [version] = cli.json("history", res_id)["versions"]
    assert (version["filename"], version["actor"]) == ("plan.txt", "mcp:claude")
    done = cli.ok("history", res_id, "--restore", str(version["version"])).out
    assert f"as it was in version {version['version']}" in done
    store = cli.store()
    try:
        assert store.read_resource(res_id) == b"first" and store.get_resource(res_id).filename == "plan.txt"
        assert store.resource_versions(res_id)[0].resource.filename == "plan2.txt"  # kept in turn
    finally:
        store.close()


def test_history_restores_a_deleted_attachment_under_its_id(cli: Cli) -> None:
    res_id = _attachment(cli)
    store = cli.store()
    try:
        delete_attachment(store, res_id, actor="assistant:c1")
    finally:
        store.close()
    assert "is deleted" in cli.ok("history", res_id).out
    [version] = cli.json("history", res_id)["versions"]
    assert version["deleted"] is True
    cli.ok("history", res_id, "--restore", str(version["version"]))
    store = cli.store()
    try:
        assert store.read_resource(res_id) == b"first"
    finally:
        store.close()


def test_bad_input_is_one_line_with_its_exit_code_and_writes_nothing(cli: Cli) -> None:
    res_id = _attachment(cli)
    store = cli.store()
    try:
        replace_attachment(store, res_id, b"second!", actor="user")
        cursor = store.latest_cursor()
    finally:
        store.close()
    missing = cli("history", res_id, "--restore", "999")
    assert missing.code == 1 and missing.err.count("\n") == 1 and "no attachment version 999" in missing.err
    shown = cli("history", res_id, "--show", "1")
    assert shown.code == 2 and shown.err.count("\n") == 1 and "--show" in shown.err
    store = cli.store()
    try:
        assert store.latest_cursor() == cursor and store.read_resource(res_id) == b"second!"
    finally:
        store.close()


def test_an_attachment_is_named_by_an_id_prefix_as_a_note_is(cli: Cli) -> None:
    res_id = _attachment(cli)
    store = cli.store()
    try:
        replace_attachment(store, res_id, b"second!", actor="mcp:claude")
    finally:
        store.close()
    # Before: 'no note with id or title "…"', while `noted history NOTE-PREFIX` works for notes.
    listed = cli.ok("history", res_id[:8]).out
    assert 'attachment "Plan"' in listed and "mcp:claude" in listed
    store = cli.store()
    try:
        delete_attachment(store, res_id, actor="mcp:claude")
    finally:
        store.close()
    # Deleted, it is named the same way (before: "no note or attachment", its full id needed).
    assert "is deleted" in cli.ok("history", res_id[:8]).out
    version = cli.json("history", res_id[:8])["versions"][0]["version"]
    cli.ok("history", res_id[:8], "--restore", str(version))
    store = cli.store()
    try:
        assert store.read_resource(res_id) == b"second!"
    finally:
        store.close()
    nothing = cli("history", "fedcba98")
    assert nothing.code == 1 and nothing.err.count("\n") == 1, nothing
    assert 'no note or attachment with id or title "fedcba98"' in nothing.err


def test_a_deleted_attachment_is_named_by_an_id_prefix_in_a_markdown_folder(cli: Cli, tmp_path: Path) -> None:
    vault = tmp_path / "notes"
    (vault / "img").mkdir(parents=True)
    (vault / "img" / "a.png").write_bytes(b"not noted's")
    (vault / "Trip.md").write_text("# Trip\n\nNo link.\n")
    v = ("--vault", str(vault))
    cli.ok("notes", *v)
    store = VaultStore.open(vault, tmp_path / "p")
    try:
        trip = by_title(store, "Trip")
        store.update_note(trip, NotePatch(body="# Trip\n\n![](img/a.png)\n"), actor="user")
        [res] = store.list_resources(note_id=trip)
        store.update_note(trip, NotePatch(body="# Trip\n\nNo link.\n"), actor="user")
        delete_attachment(store, res.id, actor="assistant:c1")
    finally:
        store.close()
    [version] = cli.json("history", res.id[:6], *v)["versions"]
    assert version["deleted"] is True
    done = cli.ok("history", res.id[:6], "--restore", str(version["version"]), *v).out
    assert "as it was in version" in done
    assert (vault / "img" / "a.png").read_bytes() == b"not noted's"


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_deleted_attachments_id_prefix_names_it_on_every_backend_and_an_ambiguous_one_says_so(
    backend: str, tmp_path: Path
) -> None:
    with open_backend(backend, tmp_path / "store") as store:
        kept = store.add_resource(b"one", filename="a.txt", mime="text/plain", actor="user")
        live = store.add_resource(b"two", filename="b.txt", mime="text/plain", actor="user")
        delete_attachment(store, kept.id, actor="user")
        assert attachment_by_prefix(store, kept.id[:6].upper()) == kept.id  # before: None, deleted
        assert attachment_by_prefix(store, live.id[:6]) == live.id
        # A note whose id starts the same way: which of them is meant cannot be told.
        folder = store.create_folder("Home", actor="user")
        twin = kept.id[:6] + ("0" * 26 if kept.id[6:] != "0" * 26 else "1" * 26)
        store.create_note(NoteDraft("Twin", "x", folder.id, id=twin), actor="user")
        with pytest.raises(InvalidInputError) as raised:
            attachment_by_prefix(store, kept.id[:6])
        message = str(raised.value)
        assert "\n" not in message and kept.id in message and twin in message, message
        assert attachment_by_prefix(store, kept.id) is None  # (a full id is not a prefix: named as such)


def test_a_missing_revision_is_named_with_its_note_and_how_to_list_them(cli: Cli) -> None:
    cli.ok("create", "Plan", "--body", "one")
    cli.ok("edit", "Plan", "--append", "two")
    cli.ok("create", "Other", "--body", "x")
    other_rev = cli.json("history", "Other")[0]["id"]
    for rev in (str(other_rev), "999"):  # another note's revision, and one that never was
        result = cli("history", "Plan", "--restore", rev)
        # Before: 999 said only "no revision 999".
        assert result.code == 1 and result.err.count("\n") == 1, result
        assert f'no revision {rev} of note "Plan"' in result.err and "lists them" in result.err


def test_history_says_a_deleted_attachments_file_stayed_in_the_folder_when_it_did(
    cli: Cli, tmp_path: Path
) -> None:
    """Not vacuous: before, the version read "deleted" while its file, which noted did not write,
    stayed in the notes folder."""
    vault = tmp_path / "notes"
    (vault / "img").mkdir(parents=True)
    (vault / "img" / "a.png").write_bytes(b"not noted's")
    (vault / "Trip.md").write_text("# Trip\n\n![](img/a.png)\n")
    v = ("--vault", str(vault))
    cli.ok("notes", *v)
    store = VaultStore.open(vault, tmp_path / "p")
    try:
        trip = by_title(store, "Trip")
        [res] = store.list_resources(note_id=trip)
        store.update_note(trip, NotePatch(body="# Trip\n\nNo link.\n"), actor="user")
        kept = delete_attachment(store, res.id, actor="assistant:c1")
    finally:
        store.close()
    assert kept is not None and (vault / "img" / "a.png").exists()
    [version] = cli.json("history", res.id, *v)["versions"]
    assert version["file_stayed"] == "img/a.png"
    shown = cli.ok("history", res.id, *v).out
    assert "no longer in noted (its file stays in the notes folder)" in shown and " is deleted" not in shown
    assert "forgotten" in shown and "its file stays in the notes folder: img/a.png" in shown
