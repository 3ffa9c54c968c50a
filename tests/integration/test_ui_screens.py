"""Pilot tests of the search and settings screens, on a real profile with real services.

Search: results as you type, Enter opens the note at the matching section, a bad filter says why,
Ctrl+O switches to search by meaning over a real (fake-vector) index. Settings: a tool switch
changes what the registry offers and lands in config.toml, an enum and a bad number, and the
embedded MCP server starts and stops with ``mcp.enabled`` and answers ``/healthz``.
"""

from __future__ import annotations

import socket
import tomllib
from collections.abc import Iterator

import httpx
import pytest
from tests.integration.ui_support import Fixture, open_services, until
from textual._compositor import Compositor
from textual.pilot import Pilot
from textual.visual import VisualType
from textual.widgets import Checkbox, Input, Label, OptionList, Select, Static

from noted.indexer.engine import Indexer
from noted.models import NoteDraft
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.messages import OpenAnswered
from noted.ui.screens.search import SearchScreen
from noted.ui.screens.settings import SettingsScreen
from noted.ui.screens.settings_sections import widget_id
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer

SIZE = (120, 40)


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root, search_defaultmode="keyword")
    yield services
    services.close()


def _indexed(services: Services) -> Indexer:
    """The profile's notes indexed (with its embedder), and the indexer, to index later changes."""
    indexer = Indexer(services.store, services.db, services.embedder())
    indexer.prepare()
    indexer.run_until_idle()
    return indexer


async def _open_search(pilot: Pilot[None]) -> SearchScreen:
    await until(pilot, lambda: len(pilot.app.screen_stack) == 1 and pilot.app.screen.is_mounted)
    await pilot.press("ctrl+f")
    await until(pilot, lambda: isinstance(pilot.app.screen, SearchScreen))
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    return screen


def tickets(answers: dict[int, OpenAnswered]) -> list[int]:
    return sorted(message.ticket for message in answers.values())


async def _type(pilot: Pilot[None], screen: SearchScreen, text: str) -> None:
    asked = screen.answered
    await pilot.press(*text)
    await until(pilot, lambda: screen.answered > asked and not screen.query_one(Input).value != text)
    # The last key's Changed can start the wait before asking again after its text shows: Down and
    # Enter then went to an answer on its way, and Enter opened its first row (in a clean clone's CI).
    await pilot.pause()
    await until(pilot, lambda: screen._timer is None and screen.answered == screen._asked)


async def test_search_as_you_type_opens_the_note_at_its_section(services: Services, fixture: Fixture) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_search(pilot)
        assert screen.mode == "keyword"  # from search.defaultMode
        await _type(pilot, screen, "freeze")
        await until(pilot, lambda: screen.marks is not None and screen.marks[0] == "freeze")  # not "freez"
        # Only the release plan says "freeze", under "Week 1" (section 2.1).
        assert [row.note_id for row in screen.rows] == [fixture.release]
        first = screen.rows[0].section
        assert first is not None and first.heading == "Week 1"
        section = first.path
        await pilot.press("enter")
        viewer = app.workspace.query_one(NoteViewer)
        await until(pilot, lambda: not isinstance(app.screen, SearchScreen))
        await until(pilot, lambda: viewer.view is not None and viewer.note_id == fixture.release)
        # Not vacuous: section 2.1 sits far below the first screenful, so the reader must scroll.
        await until(pilot, lambda: viewer.query_one("#note-scroll").scroll_y > 0)
        assert section == "2.1"
        # The word it was found by is marked, the current match the first in that section.
        page = viewer.query_one(NoteScroll)
        assert (
            page.find is not None and page.find.hit is not None and page.find.status() == "find: freeze · 1/1"
        )
        assert page.find.hit.row >= (viewer.section_row("2.1") or 0) > 0
        # The app keeps the screen between searches; each one starts afresh all the same.
        again = await _open_search(pilot)
        assert again is screen and again.query_one(Input).value == "" and not again.rows
        await _type(pilot, again, "milk")
        assert [row.note_id for row in again.rows] == [fixture.groceries]
        await pilot.press("enter")
        await until(pilot, lambda: viewer.view is not None and viewer.note_id == fixture.groceries)


async def test_help_or_the_palette_over_search_keeps_the_query_and_its_results(
    services: Services, fixture: Fixture
) -> None:
    # Issue 39, defect 1: the screen cleared itself on every resume, so F1 or Ctrl+P and Esc wiped
    # the query and the results; only opening it anew (Ctrl+F from the workspace) starts afresh.
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_search(pilot)
        await _type(pilot, screen, "freeze")
        assert [row.note_id for row in screen.rows] == [fixture.release]
        for key in ("f1", "ctrl+p"):
            await pilot.press(key)
            await until(pilot, lambda: app.screen is not screen)
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is screen)
            await pilot.pause()
            assert screen.query_one(Input).value == "freeze", key
            assert [row.note_id for row in screen.rows] == [fixture.release], key
            assert screen.query_one("#search-results", OptionList).option_count == 1, key
            assert screen.query_one(Input).has_focus, key
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.workspace)
        again = await _open_search(pilot)
        assert again is screen and again.query_one(Input).value == "" and again.rows == ()


async def test_a_note_opened_from_search_comes_with_the_workspace_in_one_paint(
    services: Services, fixture: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The screen asks for the note first and closes once the reader has it: the workspace is then
    # painted once, whole and with the note in it (not as it was, and then again with the note).
    # The hook sees a message at each node it reaches: count it once, by its id (the message is
    # kept in the value, so a later message cannot reuse the id of one collected meanwhile).
    shown: dict[int, tuple[NoteViewer.Shown, str, object, int]] = {}
    paints: list[str] = []
    app = NotedApp(services, background=False)

    def hook(message: object) -> None:
        if isinstance(message, NoteViewer.Shown):
            shown.setdefault(id(message), (message, message.note_id, app.screen, len(paints)))

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        viewer = app.workspace.query_one(NoteViewer)
        screen = await _open_search(pilot)
        await _type(pilot, screen, "milk")
        assert [row.note_id for row in screen.rows] == [fixture.groceries]
        # The highlighted result is read ahead, so Enter needs no trip to a thread.
        await until(pilot, lambda: viewer.reader.has_ahead(fixture.groceries))
        render_update = Compositor.render_update

        def counted(self: Compositor, *args: object, **kwargs: object) -> object:
            update = render_update(self, *args, **kwargs)  # type: ignore[arg-type]
            if update is not None and self.root is app.workspace:
                paints.append(type(update).__name__)
            return update

        monkeypatch.setattr(Compositor, "render_update", counted)
        shown.clear()
        await pilot.press("enter")
        await until(pilot, lambda: bool(shown))
        # Said once the workspace is on top, painted once, whole, with the note in it.
        assert [(note_id, on, n) for _, note_id, on, n in shown.values()] == [
            (fixture.groceries, app.workspace, 1)
        ]
        assert paints[0] == "LayoutUpdate"
        # The focus moves to the page in the frame after (the note first).
        await until(pilot, lambda: app.workspace.focused is viewer.query_one("#note-scroll"))


async def test_opening_a_note_answers_its_ticket_once_whatever_happens(
    services: Services, fixture: Fixture
) -> None:
    # The answer is a message to the screen on top: each ticket once, whether its note was shown,
    # replaced by another request first, or gone. Not vacuous: a request replaced before its read
    # came back must be answered at once, and a missing note must be answered too.
    # The hook sees a message at each node it reaches: count it once, by its id. The message is
    # kept, or a later one could take the id of one collected meanwhile and not be counted.
    answers: dict[int, OpenAnswered] = {}
    app = NotedApp(services, background=False)

    def hook(message: object) -> None:
        if isinstance(message, OpenAnswered):
            answers.setdefault(id(message), message)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        viewer = app.workspace.query_one(NoteViewer)
        await until(pilot, lambda: viewer.view is not None)  # the list's first note: settled
        viewer.show(fixture.release, ticket=1)
        viewer.show(fixture.meeting, ticket=2)
        await until(pilot, lambda: tickets(answers) == [1, 2])
        assert viewer.view is not None and viewer.view.note.id == fixture.meeting
        viewer.show("0" * 32, ticket=3)
        await until(pilot, lambda: 3 in tickets(answers))
        await pilot.pause()
        assert viewer.view is None and tickets(answers) == [1, 2, 3]


async def test_search_moves_with_keys_and_escape_closes(services: Services, fixture: Fixture) -> None:
    app = NotedApp(services, background=False)
    chosen: list[object] = []
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.screen.is_mounted)
        app.push_screen(SearchScreen(services), chosen.append)
        await until(pilot, lambda: isinstance(app.screen, SearchScreen))
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await _type(pilot, screen, "release")
        assert len(screen.rows) >= 2
        await pilot.press("down", "enter")
        await until(pilot, lambda: bool(chosen))
        second = screen.rows[1].section
        assert chosen[0] == (screen.rows[1].note_id, None if second is None else second.path)
        screen2 = SearchScreen(services)
        app.push_screen(screen2, chosen.append)
        await until(pilot, lambda: app.screen is screen2)
        await pilot.press("escape")
        await until(pilot, lambda: len(chosen) == 2)
        assert chosen[1] is None


async def test_f2_opens_the_settings_over_search_and_esc_comes_back(services: Services) -> None:
    """Not vacuous: the search screen, a modal one, stopped the app's F2 (README: F2 anywhere)."""
    app = NotedApp(services, background=False)
    async with app.run_test(size=(60, 15)) as pilot:
        screen = await _open_search(pilot)
        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)


async def test_the_search_hint_names_only_keys_that_work_from_the_query(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_search(pilot)
        await _type(pilot, screen, "rel")
        assert len(screen.rows) >= 2
        # j and k type into the query (the focus is there), so the hint must not offer them.
        await pilot.press("j")
        assert screen.query_one(Input).value == "relj"
        hint = str(screen.query_one("#search-hint", Label).render())
        assert "j/k" not in hint and "↑↓" in hint


async def test_a_bad_filter_says_why_instead_of_results(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_search(pilot)
        await _type(pilot, screen, "release")
        assert screen.rows  # results first, so the error below must replace them
        await pilot.press(*" notebok:1")
        await until(pilot, lambda: screen.answered == screen._asked and screen._timer is None)
        message = screen.query_one("#search-message", Label)
        assert screen.rows == ()
        assert message.has_class("-error")
        assert 'unknown filter "notebok:"; did you mean notebook:?' in str(message.render())


async def test_mode_switch_searches_by_meaning(fixture: Fixture) -> None:
    services = open_services(fixture.root, ai_embedding_provider="fake", search_defaultmode="keyword")
    try:
        _indexed(services)
        app = NotedApp(services, background=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _open_search(pilot)
            await _type(pilot, screen, "groceries milk")
            assert [row.note_id for row in screen.rows] == [fixture.groceries]
            await pilot.press("ctrl+o")
            assert screen.mode == "semantic"
            assert "meaning" in str(screen.query_one("#search-mode", Label).render())
            await until(pilot, lambda: screen.answered == screen._asked)
            semantic_rows = screen.rows
            assert semantic_rows, screen.query_one("#search-message", Label).render()
            # Hits by meaning carry the notebook title looked up from the store, and a score order.
            assert all(row.notebook for row in semantic_rows)
            assert fixture.groceries in {row.note_id for row in semantic_rows}
            await pilot.press("ctrl+o")
            assert screen.mode == "hybrid"
            await until(pilot, lambda: screen.answered == screen._asked)
            assert screen.rows and screen.rows[0].note_id == fixture.groceries
    finally:
        services.close()


async def test_search_by_meaning_says_when_the_index_is_partial(fixture: Fixture) -> None:
    services = open_services(fixture.root, ai_embedding_provider="fake", search_defaultmode="semantic")
    try:
        indexer = _indexed(services)
        folder = services.store.list_folders()[0].id
        services.store.create_note(
            NoteDraft("Late", "milk for the late groceries", parent_id=folder), actor="user"
        )
        app = NotedApp(services, background=False)  # no indexer: the new note stays out of the index
        async with app.run_test(size=SIZE) as pilot:
            screen = await _open_search(pilot)
            await _type(pilot, screen, "groceries milk")
            await until(pilot, lambda: screen.answered == screen._asked)
            assert screen.rows  # results, and a line saying they come from a partial index
            assert "the index covers" in str(screen.query_one("#search-message", Label).render())
            indexer.run_until_idle()
            await pilot.press("ctrl+o")  # to both (hybrid): the query runs again, on a full index
            assert screen.mode == "hybrid"
            await until(pilot, lambda: screen.answered == screen._asked and bool(screen.rows))
            assert "the index covers" not in str(screen.query_one("#search-message", Label).render())
    finally:
        services.close()


async def test_ctrl_t_picks_the_section_a_result_opens_at(fixture: Fixture) -> None:
    services = open_services(fixture.root, ai_embedding_provider="fake", search_defaultmode="hybrid")
    try:
        folder = services.store.list_folders()[0].id
        body = "intro\n# Birds\nthe puffin nests on cliffs\n# Fish\ncod\n# Puffins again\npuffin chicks on cliffs\n"
        zoo = services.store.create_note(NoteDraft("Zoo", body, parent_id=folder), actor="user").id
        _indexed(services)
        app = NotedApp(services, background=False)
        chosen: list[object] = []
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.screen.is_mounted)
            app.push_screen(SearchScreen(services), chosen.append)
            await until(pilot, lambda: isinstance(app.screen, SearchScreen))
            screen = app.screen
            assert isinstance(screen, SearchScreen)
            await _type(pilot, screen, "puffin nests cliffs")
            await until(pilot, lambda: screen.answered == screen._asked and bool(screen.rows))
            row = screen.rows[0]
            assert row.note_id == zoo and len(row.sections) >= 2  # so the key has a section to move to
            results = screen.query_one("#search-results", OptionList)
            texts = {"1": "the puffin nests on cliffs", "2": "cod", "3": "puffin chicks on cliffs"}
            first, second = (texts[s.path] for s in row.sections[:2])
            assert first in str(results.get_option_at_index(0).prompt)
            await pilot.press("ctrl+t")
            # the snippet is the chosen section's, not still the first's (it was)
            shown = str(results.get_option_at_index(0).prompt)
            assert second in shown and first not in shown
            await pilot.press("enter")
            await until(pilot, lambda: bool(chosen))
            assert chosen[0] == (zoo, row.sections[1].path)
    finally:
        services.close()


# Settings ----------------------------------------------------------------------------------------


async def test_a_search_in_spanish_says_what_it_searched_in_english(fixture: Fixture) -> None:
    services = open_services(fixture.root, ai_embedding_provider="fake", search_defaultmode="hybrid")
    try:
        folder = services.store.list_folders()[0].id
        restoring = services.store.create_note(
            NoteDraft("Restoring", "restore the database from a backup", parent_id=folder), actor="user"
        ).id
        _indexed(services)
        app = NotedApp(services, background=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _open_search(pilot)
            await _type(pilot, screen, "restaurar una copia de seguridad")
            await until(pilot, lambda: screen.answered == screen._asked and bool(screen.rows))
            assert screen.rows[0].note_id == restoring
            message = str(screen.query_one("#search-message", Label).render())
            assert 'searched as typed and in English as "restore backup"' in message
    finally:
        services.close()


async def test_keyword_search_in_spanish_says_what_the_other_modes_search(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_search(pilot)
        assert screen.mode == "keyword"
        await _type(pilot, screen, "restaurar una copia de seguridad")
        await until(pilot, lambda: screen.answered == screen._asked)
        assert screen.rows == ()
        message = str(screen.query_one("#search-message", Label).render())
        assert 'by meaning or both it is also searched in English as "restore backup"' in message


async def _open_settings(pilot: Pilot[None]) -> SettingsScreen:
    await until(pilot, lambda: pilot.app.screen.is_mounted)
    await pilot.press("f2")
    await until(pilot, lambda: isinstance(pilot.app.screen, SettingsScreen))
    screen = pilot.app.screen
    assert isinstance(screen, SettingsScreen)
    await until(pilot, lambda: screen.built)  # the sections below the first come after its first frame
    await pilot.pause()
    return screen


def _config(services: Services) -> dict[str, object]:
    path = services.settings.path
    return tomllib.loads(path.read_text()) if path.exists() else {}


async def test_toggling_a_tool_changes_what_the_registry_offers(services: Services) -> None:
    write_tool = next(t for t in services.registry.all() if t.is_write and not t.editor)
    assert write_tool not in services.registry.offered()  # write tools start off
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_settings(pilot)
        box = screen.query_one(f"#{widget_id(write_tool.setting_key)}", Checkbox)
        box.focus()
        await pilot.press("enter")
        await until(pilot, lambda: write_tool in services.registry.offered() and screen.saving == 0)
        tool_id = write_tool.setting_key.split(".")[2]
        assert _config(services)["ai"]["tool"][tool_id]["enabled"] is True  # type: ignore[index]


async def test_an_enum_changes_and_persists(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_settings(pilot)
        select = screen.query_one(f"#{widget_id('search.relevance')}", Select)
        select.value = "strict"
        await until(
            pilot,
            lambda: services.settings.resolve("search.relevance").value == "strict" and screen.saving == 0,
        )
        assert _config(services)["search"]["relevance"] == "strict"  # type: ignore[index]


async def test_a_bad_number_shows_the_error_and_saves_nothing(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_settings(pilot)
        field = screen.query_one(f"#{widget_id('mcp.port')}", Input)
        field.focus()
        field.value = ""
        await pilot.press(*"99999", "enter")
        error = screen.query_one(f"#{widget_id('mcp.port')}-error", Label)
        await until(pilot, lambda: error.display)
        assert "mcp.port must be a whole number from 1 to 65535" in str(error.render())
        assert services.settings.resolve("mcp.port").value == 8765
        assert "mcp" not in _config(services)


async def test_an_emptied_field_of_a_list_or_number_goes_back_to_the_default(services: Services) -> None:
    # Typed text that reads as empty never lifts mcp.allowedNotebooks (Setting.empty_means); in the
    # app, emptying the field is the person leaving the setting out, as `noted config unset` does.
    services.settings.set("mcp.allowedNotebooks", "Work")
    services.settings.set("mcp.port", "9000")
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_settings(pilot)

        async def empty(key: str) -> None:
            field = screen.query_one(f"#{widget_id(key)}", Input)
            field.focus()
            field.value = ""
            await pilot.press("enter")
            await until(
                pilot, lambda: services.settings.resolve(key).source == "default" and not screen.saving
            )
            assert not screen.query_one(f"#{widget_id(key)}-error", Label).display

        await empty("mcp.allowedNotebooks")
        await empty("mcp.port")
        assert "mcp" not in _config(services)
        assert services.settings.resolve("mcp.port").value == 8765


async def test_a_key_textual_never_sends_shows_the_error_and_saves_nothing(services: Services) -> None:
    # The app adds the checks only a front end can make (noted.ui.setting_checks); without them the
    # keymap field saved "ctrl+sss", which no key press ever matches.
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_settings(pilot)
        field = screen.query_one(f"#{widget_id('ui.keymap')}", Input)
        field.focus()
        field.value = '{"note.save": "ctrl+sss"}'
        await pilot.press("enter")
        error = screen.query_one(f"#{widget_id('ui.keymap')}-error", Label)
        await until(pilot, lambda: error.display and screen.saving == 0)
        assert '"ctrl+sss" is not a key Textual knows; nothing was saved' in str(error.render())
        assert "ui" not in _config(services)


async def test_an_environment_override_is_read_only(fixture: Fixture) -> None:
    services = open_services(fixture.root, ai_provider="fake")
    try:
        app = NotedApp(services, background=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _open_settings(pilot)
            assert screen.query_one(f"#{widget_id('ai.provider')}", Select).disabled
            assert not screen.query_one(f"#{widget_id('ai.model')}", Input).disabled
    finally:
        services.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_switching_the_mcp_server_on_and_off(services: Services) -> None:
    port = _free_port()
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_settings(pilot)
        field = screen.query_one(f"#{widget_id('mcp.port')}", Input)
        field.value = str(port)
        await field.action_submit()
        await until(pilot, lambda: services.settings.resolve("mcp.port").value == port and screen.saving == 0)
        screen.query_one(f"#{widget_id('mcp.enabled')}").toggle()  # type: ignore[attr-defined]
        url = f"http://127.0.0.1:{port}"
        await until(pilot, lambda: app.mcp_status.startswith(f"MCP {url}/mcp"))
        async with httpx.AsyncClient() as client:
            answer = await client.get(f"{url}/healthz")
        assert answer.status_code == 200 and answer.json() == {"ok": True}
        assert app.status.part("mcp") == f"MCP {url}/mcp · 0 clients"
        screen.query_one(f"#{widget_id('mcp.enabled')}").toggle()  # type: ignore[attr-defined]
        await until(pilot, lambda: app.mcp_status == "MCP off")
        with pytest.raises(httpx.ConnectError):
            async with httpx.AsyncClient() as client:
                await client.get(f"{url}/healthz")


def _redraws(monkeypatch: pytest.MonkeyPatch, widget: Static) -> list[VisualType]:
    """What ``widget`` is given to show from now on, one entry per ``update``."""
    drawn: list[VisualType] = []
    draw = widget.update

    def counted(content: VisualType = "", *, layout: bool = True) -> None:
        drawn.append(content)
        draw(content, layout=layout)

    monkeypatch.setattr(widget, "update", counted)
    return drawn


async def test_the_mcp_state_is_redrawn_only_when_it_changes(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The screen looks at the server's state twice a second; redrawing it unchanged laid the whole
    # screen out again each time (a few hundred widgets), so an idle settings screen kept a core busy.
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_settings(pilot)
        state = screen.query_one("#mcp-state", Static)
        drawn = _redraws(monkeypatch, state)
        for _ in range(3):
            screen._refresh_mcp_state()  # what the timer calls
        assert drawn == []  # fails without the check: three redraws of the same line
        services.settings.set("mcp.port", 4321)  # as `noted config` would, from outside the screen
        await until(pilot, lambda: "127.0.0.1:4321" in str(state.content))
        assert len(drawn) == 1


async def test_a_setting_without_an_error_leaves_its_error_line_alone(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every save (each blur of a text field, changed or not) cleared the error line by redrawing
    # it, which lays the whole screen out again; the line is drawn only when its text changes.
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_settings(pilot)
        field = screen.query_one(f"#{widget_id('ai.timeoutSeconds')}", Input)
        error = screen.query_one(f"#{widget_id('ai.timeoutSeconds')}-error", Label)
        drawn = _redraws(monkeypatch, error)
        screen._save("ai.timeoutSeconds", field.value)  # what Enter or a blur does with the value it holds
        assert drawn == [] and not error.display  # fails without the check: one redraw of ""
        field.value = "2"  # below the minimum: the error shows, and is drawn once
        await field.action_submit()
        await until(pilot, lambda: error.display)
        assert len(drawn) == 1 and "5" in str(error.content)
        field.value = "60"
        await field.action_submit()
        await until(pilot, lambda: not error.display and screen.saving == 0)
        assert len(drawn) == 2 and str(error.content) == ""
        assert services.settings.resolve("ai.timeoutSeconds").value == 60


async def test_f2_inside_the_settings_does_not_open_a_second_one(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_settings(pilot)
        depth = len(app.screen_stack)
        await pilot.press("f2")
        await pilot.pause()
        # Before the fix a second SettingsScreen was pushed on the first.
        assert len(app.screen_stack) == depth and app.screen is screen
        assert sum(isinstance(s, SettingsScreen) for s in app.screen_stack) == 1


async def test_the_settings_open_again_as_the_same_screen_shown_afresh(services: Services) -> None:
    # F2 built every section's few hundred widgets again on each opening (0.7-1.4 s each time).
    # The app now keeps the screen: opened again, it shows what a new one would.
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        first = await _open_settings(pilot)
        field = first.query_one(f"#{widget_id('ai.timeoutSeconds')}", Input)
        field.value = "2"  # refused (below the minimum): its error shows under it
        await field.action_submit()
        error = first.query_one(f"#{widget_id('ai.timeoutSeconds')}-error", Label)
        await until(pilot, lambda: error.display)
        finder = first.query_one("#settings-filter", Input)
        finder.value = "port"
        await until(pilot, lambda: not first.query_one(f"#{widget_id('ai.provider')}").ancestors[0].display)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.workspace)
        services.settings.set("mcp.port", 4321)  # from outside while the screen is away
        again = await _open_settings(pilot)
        assert again is first  # not vacuous: before, a new screen each time
        assert finder.value == "" and all(row.display for row in again.query(".setting"))
        assert again.focused is finder
        saved = str(services.settings.resolve("ai.timeoutSeconds").value)
        assert not error.display and field.value == saved != "2"  # the saved value, not the refused one
        assert again.query_one(f"#{widget_id('mcp.port')}", Input).value == "4321"


async def test_enter_typed_ahead_of_the_settings_goes_to_a_setting_built_after_the_first_frame(
    services: Services,
) -> None:
    from tests.integration.test_ui_keys import type_ahead
    from tests.integration.ui_support import ready

    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        type_ahead(pilot, "f2", *"mcp port", "enter")
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        # The MCP section is built after the screen's first frame; Enter waits for it.
        await until(pilot, lambda: screen.focused is not None and screen.focused.id == widget_id("mcp.port"))
        assert screen.built


async def test_the_results_are_reached_and_used_by_keyboard_alone(
    services: Services, fixture: Fixture
) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_search(pilot)
        await _type(pilot, screen, "release")
        assert len(screen.rows) == 3
        field, results = screen.query_one(Input), screen.query_one("#search-results", OptionList)
        await pilot.press("down")
        assert results.has_focus and results.highlighted == 1
        await pilot.press("j")
        # Not vacuous: before, ↓ left the focus in the query and `j` was typed there ("releasej").
        assert field.value == "release" and results.highlighted == 2
        await pilot.press("g", "j", "G", "k", "k")
        assert results.highlighted == 0 and results.has_focus
        await pilot.press("up")  # above the first result is the query
        assert field.has_focus and field.value == "release"
        await pilot.press("down", "s")  # a key that types goes back to the query, typed there
        assert field.has_focus and field.value == "releases"
        asked = screen.answered
        await pilot.press("backspace")
        await until(pilot, lambda: screen.answered > asked and screen._timer is None)
        await until(pilot, lambda: screen.answered == screen._asked)
        assert len(screen.rows) == 3  # the query was not selected on coming back: one letter went
        await pilot.press("up")
        assert results.has_focus and results.highlighted == 2  # ↑ from the query: the previous (last)
        chosen = screen.rows[2].note_id
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is app.workspace)
        assert app.workspace.query_one(NoteViewer).note_id == chosen


async def test_a_note_found_by_its_title_says_so_rather_than_no_match(
    services: Services, fixture: Fixture
) -> None:
    """Opened from a search for a word of its title only, the note said "find: meeting · no match"."""
    # Not vacuous: the note's text ("# Monday … Talked about the release.") lacks the word.
    assert "meeting" not in services.store.get_note(fixture.meeting).body.lower()
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        viewer = app.workspace.query_one(NoteViewer)
        screen = await _open_search(pilot)
        await _type(pilot, screen, "meeting")
        assert [row.note_id for row in screen.rows] == [fixture.meeting]
        await pilot.press("enter")
        await until(pilot, lambda: viewer.view is not None and viewer.note_id == fixture.meeting)
        header = viewer.query_one("#note-header", Static)
        await until(
            pilot, lambda: str(header.border_subtitle) == "find: meeting · in the title, not the text"
        )
