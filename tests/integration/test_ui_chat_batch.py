"""One approval for a round's writes in the chat pane: one card, Space unticks, y applies the
ticked ones, one Ctrl+Z reverts the batch. A scripted fake model tags three notes and moves one.

Not vacuous: the store is checked after each key (what y wrote, what Ctrl+Z put back), and a
card per write (the behaviour without batches) would fail the one-card assertion.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.test_ui_chat import Host, ask, host, settle, until
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static

from noted.models import NoteDraft
from noted.ops.attachments import attach_to_note
from noted.profile import Profile
from noted.providers import CallTool, Reply
from noted.providers.fake import Turn
from noted.services import Services
from noted.ui.chat.batch_card import BatchCard
from noted.ui.chat.edits import EditCard
from noted.ui.chat.views import ChatInput, NoticeView


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    s.settings.set("ai.enabled", True)
    s.settings.set("ai.provider", "fake")
    yield s
    s.close()


async def _asked(pilot: Pilot[None], app: App[None], text: str) -> None:
    """Ask the fake model ``text`` and wait for its batch card."""
    await settle(pilot)
    await ask(pilot, text)
    await until(pilot, lambda: bool(app.query(".edit-card.-asking")))


@pytest.mark.parametrize("size", [(100, 40)])
async def test_space_unticks_y_applies_the_rest_and_one_ctrl_z_reverts_them(
    services: Services, size: tuple[int, int]
) -> None:
    for tool in ("manage_tags", "update_note"):
        services.settings.set(f"ai.tool.{tool}.enabled", True)
    store = services.store
    home = store.create_folder("Home", actor="user")
    work = store.create_folder("Work", actor="user")
    ids = [
        store.create_note(NoteDraft(f"Note {i}", "x\n", parent_id=home.id), actor="user").id for i in range(3)
    ]
    script: list[Turn] = [
        [
            CallTool("manage_tags", {"note_id": ids[0], "add": ["later"]}, id="t0"),
            CallTool("manage_tags", {"note_id": ids[1], "add": ["later"]}, id="t1"),
            CallTool("manage_tags", {"note_id": ids[2], "add": ["later"]}, id="t2"),
            CallTool("update_note", {"id": ids[2], "notebook_id": work.id}, id="m2"),
        ],
        [Reply("Tagged and moved.")],
    ]
    app, _ = host(services, script)
    async with app.run_test(size=size) as pilot:
        await _asked(pilot, app, "tidy up")
        assert len(app.query(EditCard)) == 1  # one view for the four changes
        card = app.query_one(BatchCard)
        assert app.focused is card and len(card.question.items) == 4
        await pilot.press("down", "space")  # untick the second tag
        assert card.ticked == {0, 2, 3}
        assert store.note_tag_titles(ids) == {}  # nothing written before y
        await pilot.press("y")
        await until(pilot, lambda: card.has_class("-applied"))
        await settle(pilot)
        assert set(store.note_tag_titles(ids)) == {ids[0], ids[2]}
        assert store.get_note(ids[2]).parent_id == work.id

        app.query_one(ChatInput).focus()
        await pilot.press("ctrl+z")  # one undo for the whole batch
        await until(pilot, lambda: card.has_class("-undone"))
        await settle(pilot)
        assert store.note_tag_titles(ids) == {}
        assert store.get_note(ids[2]).parent_id == home.id


@pytest.mark.parametrize("size", [(100, 40)])
async def test_a_batch_whose_change_fails_writes_nothing_and_its_card_says_which(
    services: Services, size: tuple[int, int]
) -> None:
    """The note of the second change is deleted before y: the card says nothing was written and
    names that change, and offers no undo (without the batch's unit, the first tag would stay)."""
    services.settings.set("ai.tool.manage_tags.enabled", True)
    store = services.store
    home = store.create_folder("Home", actor="user")
    ids = [
        store.create_note(NoteDraft(f"Note {i}", "x\n", parent_id=home.id), actor="user").id for i in range(2)
    ]
    script: list[Turn] = [
        [CallTool("manage_tags", {"note_id": i, "add": ["later"]}, id=f"t{n}") for n, i in enumerate(ids)],
        [Reply("Tried.")],
    ]
    app, _ = host(services, script)
    async with app.run_test(size=size) as pilot:
        await _asked(pilot, app, "tag them")
        card = app.query_one(BatchCard)
        # Each change in words, its note by title (it was: manage_tags note_id=“Note 0” …).
        assert card.question.items == ('retag “Note 0” add=["later"]', 'retag “Note 1” add=["later"]')
        store.trash_note(ids[1], actor="user")
        store.empty_trash(actor="user")
        await pilot.press("y")
        await until(pilot, lambda: card.has_class("-refused"))
        await settle(pilot)
        assert "change 2 (retag) failed" in str(card.query_one(".card-status", Static).render())
        assert store.note_tag_titles(ids) == {}
        assert card.applied is None


@pytest.mark.parametrize("size", [(100, 40)])
async def test_ctrl_z_names_what_it_left_as_the_person_made_it_and_puts_a_replaced_file_back(
    services: Services, size: tuple[int, int]
) -> None:
    """The card said "Ctrl+Z undoes them all" over a file replaced for good, and the undo took off
    a tag the person had put on since, saying nothing. The file's old version is kept now, so the
    undo puts it back and nothing is marked "(cannot be undone)"."""
    for tool in ("manage_tags", "replace_attachment"):
        services.settings.set(f"ai.tool.{tool}.enabled", True)
    store = services.store
    home = store.create_folder("Home", actor="user")
    a, b = (store.create_note(NoteDraft(t, "x\n", parent_id=home.id), actor="user") for t in ("A", "B"))
    file = attach_to_note(store, b, b"old", filename="f.txt", mime="text/plain", title="", actor="user")
    script: list[Turn] = [
        [
            CallTool("manage_tags", {"note_id": a.id, "add": ["later"]}, id="t0"),
            CallTool("manage_tags", {"note_id": b.id, "add": ["later"]}, id="t1"),
            CallTool("replace_attachment", {"id": file.id, "content_base64": "bmV3"}, id="r"),
        ],
        [Reply("Done.")],
    ]
    app, _ = host(services, script)
    async with app.run_test(size=size) as pilot:
        await _asked(pilot, app, "tidy up")
        card = app.query_one(BatchCard)
        assert [i.endswith("(cannot be undone)") for i in card.question.items] == [False, False, False]
        await pilot.press("y")
        await until(pilot, lambda: card.has_class("-applied"))
        status = card.query_one(".card-status", Static)
        assert "cannot be undone" not in str(status.render())
        store.tag_note(a.id, ["mine"], actor="user")  # the person, after the batch

        app.query_one(ChatInput).focus()
        await pilot.press("ctrl+z")
        await until(pilot, lambda: card.has_class("-undone"))
        said = str(status.render())
        assert 'Left as they are, changed since the batch: note "A"' in said
        assert "Not undone" not in said
        assert sorted(store.note_tag_titles([a.id])[a.id]) == ["later", "mine"]
        assert store.note_tag_titles([b.id]) == {} and store.read_resource(file.id) == b"old"

    again = Host(services, None, None)  # the app opened again: the chat is read from the profile
    async with again.run_test(size=size) as pilot:
        await settle(pilot)
        # Not vacuous: the undo of a batch wrote nothing to the transcript, unlike an edit's undo.
        (notice,) = [n for n in again.query(NoticeView) if n.message.startswith("Undone.")]
        assert 'note "A"' in notice.message and notice.kind == "info"
