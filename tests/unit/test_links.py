"""Links on every backend: outgoing (wiki with |alias and #heading, relative Markdown, :/id),
backlinks, broken links; the ``note_links`` tool (scoped) and ``noted links --json``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend
from tests.support.tools_env import Env, make_env

from noted.errors import Interruption
from noted.models import NoteDraft
from noted.ops import backlink_search
from noted.ops.links import backlinks, note_links, raw_links
from noted.search.joplin import keyword_search_for


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def test_raw_links_skip_code_attachments_and_web_links() -> None:
    body = (
        "[[Target|shown]] [[Other#Part two]] ![[pic.png]] [web](https://x.org) [rel](sub/My%20Note.md#h)\n"
        "`[[not a link]]`\n```\n[[nor this]]\n```\n[by id](:/0123456789abcdef0123456789abcdef)\n"
    )
    got = [(r.name, r.heading, r.text) for r in raw_links(body)]
    assert got == [
        ("Target", "", "shown"),
        ("Other", "Part two", "Other#Part two"),
        ("sub/My Note.md", "h", "sub/My%20Note.md#h"),
        (":/0123456789abcdef0123456789abcdef", "", ":/0123456789abcdef0123456789abcdef"),
    ]


def test_outgoing_backlinks_and_broken_links_on_every_backend(backend_store: LocalStore) -> None:
    store = backend_store
    folder = store.create_folder("Links", actor="user")
    target = store.create_note(NoteDraft("Target", "intro\n\n## Part two\n\ntext\n", folder.id), actor="user")
    source = store.create_note(
        NoteDraft(
            "Source",
            f"See [[Target|the target]], [[Target#Part two]], [[Target#Nowhere]], [[Missing]] "
            f"and [by id](:/{target.id}).\n",
            folder.id,
        ),
        actor="user",
    )
    store.create_note(NoteDraft("Bystander", "mentions Target without a link\n", folder.id), actor="user")
    links = note_links(store, keyword_search_for(store), source.id)
    assert [(link.note_id, link.section, bool(link.broken)) for link in links.outgoing] == [
        (target.id, "", False),
        (target.id, "1", False),
        (target.id, "", True),
        ("", "", True),
        (target.id, "", False),
    ]
    assert [link.broken for link in links.broken] == [
        'no heading "Nowhere" in "Target"',
        'no note "Missing"',
    ]
    back = note_links(store, keyword_search_for(store), target.id)
    assert [(b.note_id, b.title) for b in back.backlinks] == [(source.id, "Source")]


def test_backlinks_are_found_however_many_notes_mention_the_name(
    backend_store: LocalStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note titled "Budget" that 230 notes mention: the one note linking it ranks last among them
    (a long body naming it once), past the 200 candidates backlinks used to read, so its backlink
    was silently missing. Pages of 100 make the search for candidates go three pages deep."""
    monkeypatch.setattr(backlink_search, "BACKLINK_PAGE", 100)
    store = backend_store
    folder = store.create_folder("Money", actor="user")
    target = store.create_note(NoteDraft("Budget", "the plan\n", folder.id), actor="user")
    with store.batch():
        for i in range(230):
            body = f"budget {i}: the budget, budget and budget again\n"
            store.create_note(NoteDraft(f"Spending {i}", body, folder.id), actor="user")
    filler = " ".join(f"word{i}" for i in range(2000))
    linker = store.create_note(
        NoteDraft("Appendix", f"{filler}\n\nSee [[Budget]].\n", folder.id), actor="user"
    )
    keyword = keyword_search_for(store)
    ranked = [hit.note_id for hit in keyword.search('"Budget"', limit=1000, snippets=False).hits]
    assert len(ranked) == 232 and ranked[-1] == linker.id  # the linking note ranks last: not vacuous
    back = note_links(store, keyword, target.id).backlinks
    assert [(b.note_id, b.title) for b in back] == [(linker.id, "Appendix")]


def test_a_backlinks_search_stops_between_pages_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader stops the search of a note it no longer shows (``j`` held): asked to stop after
    its first page of mentions, it reads no further page and says it stopped."""
    monkeypatch.setattr(backlink_search, "BACKLINK_PAGE", 10)
    with open_backend("sqlite", tmp_path / "store") as store:
        folder = store.create_folder("Money", actor="user")
        target = store.create_note(NoteDraft("Budget", "the plan\n", folder.id), actor="user")
        with store.batch():
            for i in range(35):
                store.create_note(NoteDraft(f"Spending {i}", f"budget {i}\n", folder.id), actor="user")
        asked: list[int] = []

        def stop() -> bool:
            asked.append(len(asked))
            return len(asked) > 1  # the person moved on while the first page was read

        with pytest.raises(Interruption):
            backlinks(store, keyword_search_for(store), target, stop=stop)
        assert len(asked) == 2  # not vacuous: a search that ran on would ask before all four pages


@pytest.fixture
def env(backend_store: LocalStore, tmp_path: Path) -> Env:
    return make_env(backend_store, tmp_path)


async def test_the_note_links_tool_hides_notes_outside_the_scope(env: Env) -> None:
    work, private = env.folder("Work"), env.folder("Private")
    secret = env.note(private, "Secret", body="links to [[Plan]]")
    plan = env.note(work, "Plan", body="see [[Secret]]")
    full = await env.ok("note_links", id=plan)
    assert [o["note_id"] for o in full["outgoing"]] == [secret]
    assert [b["note_id"] for b in full["backlinks"]] == [secret]
    env.scoped("Work")
    scoped = await env.ok("note_links", id=plan)
    assert scoped["outgoing"][0]["note_id"] is None and scoped["outgoing"][0]["broken"] == 'no note "Secret"'
    assert scoped["backlinks"] == []


async def test_in_a_scope_links_resolve_among_the_visible_notes_only(env: Env) -> None:
    """A name that a note outside the scope shares with one inside leads inside, though among every
    note the outside one wins (the lower id; the shorter path ``Private/Twin`` in a Markdown folder);
    a name only an outside note has leads nowhere, as a name no note has. Resolving among every note
    and hiding the result called the first a broken link: a way to learn what titles exist outside."""
    work, private = env.folder("Work"), env.folder("Private")
    outside = env.note(private, "Twin", body="outside", id="0" * 31 + "1")
    inside = env.note(work, "Twin", body="inside", id="f" * 32)
    elsewhere = env.note(private, "Elsewhere", body="outside")
    source = env.note(work, "Source", body="[[Twin]] [[Elsewhere]] [[Nowhere]]")
    full = await env.ok("note_links", id=source)
    assert [o["note_id"] for o in full["outgoing"]] == [outside, elsewhere, None]
    assert (await env.ok("note_links", id=inside))["backlinks"] == []
    env.scoped("Work")
    scoped = await env.ok("note_links", id=source)
    assert [o["note_id"] for o in scoped["outgoing"]] == [inside, None, None]
    assert [o["broken"] for o in scoped["outgoing"][1:]] == ['no note "Elsewhere"', 'no note "Nowhere"']
    backlinks = (await env.ok("note_links", id=inside))["backlinks"]
    assert backlinks == [{"note_id": source, "title": "Source"}]  # [[Twin]] leads here in the scope
