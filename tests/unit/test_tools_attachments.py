"""Attachment tools and ``create_note``'s HTML and attachments, through the registry.

Each refusal is checked for "nothing written": the change feed's cursor does not move and no file
is left in the store.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, LocalStore, body_with_ids, open_backend
from tests.support.images import b64, image_bytes, size_of
from tests.support.tools_env import ACTOR, MANAGE_TOOLS, WRITE_TOOLS, Env, make_env

from noted.models import ACTOR_USER, NoteDraft, NotePatch
from noted.ops.attachments import add_from_path
from noted.ops.filetypes import MAX_FILE
from noted.store.protocol import HasFileLinks

PDF = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


@pytest.fixture
def env(backend_store: LocalStore, tmp_path: Path) -> Env:
    return make_env(backend_store, tmp_path, enabled=(*WRITE_TOOLS, *MANAGE_TOOLS))


def _nothing_written(env: Env, cursor: int) -> None:
    # On Joplin too: noted's earlier writes were fed when Joplin answered, and Joplin's late
    # reports of them are not added again, so only a new write could move the cursor.
    assert env.store.latest_cursor() == cursor
    assert env.store.list_resources() == []


# attach_file and read_attachment --------------------------------------------------------------------


async def test_an_image_attached_by_base64_is_linked_and_read_back_as_image_content(env: Env) -> None:
    note = env.note(env.folder("F"), "Trip", "Some text")
    original = image_bytes(800, 400)
    got = await env.ok(
        "attach_file", note_id=note, filename="shot.png", mime="image/png", content_base64=b64(original)
    )
    assert got["link"] == f"![shot.png](:/{got['id']})" and got["size"] == len(original)
    assert body_with_ids(env.store, note) == f"Some text\n\n![shot.png](:/{got['id']})"
    assert env.store.read_resource(got["id"]) == original  # the original is kept, not the small copy
    assert [n["id"] for n in got["notes"]] == [note]
    assert {c.actor for c in env.store.item_changes([note, got["id"]])} == {"user", ACTOR}

    result = await env.call("read_attachment", id=got["id"])
    assert result.ok and result.payload is not None
    assert result.payload["kind"] == "image"
    (image,) = result.images
    assert image.mime == "image/png" and size_of(image.data) == (512, 256)  # high: longest side 512
    assert result.payload["image"] == {
        "mime": "image/png",
        "width": 512,
        "height": 256,
        "original_width": 800,
        "original_height": 400,
        "detail": "high",
        "bytes": len(image.data),
    }
    # The chat path sends JSON text: it carries the description, never the bytes.
    text = json.dumps(result.for_model())
    assert "__images__" not in text and len(text) < 2_000

    low = await env.call("read_attachment", id=got["id"], detail="low")
    assert size_of(low.images[0].data) == (128, 64)


async def test_a_jpeg_stays_jpeg_and_a_small_image_is_not_enlarged(env: Env) -> None:
    note = env.note(env.folder("F"), "n")
    photo = await env.ok(
        "attach_file",
        note_id=note,
        filename="p.jpg",
        mime="image/jpg",  # an alias, normalised
        content_base64=b64(image_bytes(300, 1000, "JPEG")),
        title="Photo [1]",
    )
    assert photo["mime"] == "image/jpeg" and photo["link"] == f"![Photo \\[1\\]](:/{photo['id']})"
    medium = await env.call("read_attachment", id=photo["id"], detail="medium")
    assert medium.images[0].mime == "image/jpeg" and size_of(medium.images[0].data) == (77, 256)
    tiny = await env.ok(
        "attach_file",
        note_id=note,
        filename="t.gif",
        mime="image/gif",
        content_base64=b64(image_bytes(20, 10, "GIF")),
    )
    shown = await env.call("read_attachment", id=tiny["id"])
    assert size_of(shown.images[0].data) == (20, 10)


async def test_text_and_other_files_are_linked_as_links_and_read_as_text_or_base64(env: Env) -> None:
    note = env.note(env.folder("F"), "n", "")
    text = "line one\n" * 2000
    txt = await env.ok(
        "attach_file",
        note_id=note,
        filename="log.txt",
        mime="text/plain; charset=utf-8",
        content_base64=b64(text.encode()),
    )
    assert txt["link"] == f"[log.txt](:/{txt['id']})"
    first = await env.ok("read_attachment", id=txt["id"])
    assert first["kind"] == "text" and first["text"] == text[:8000] and first["has_more"] is True
    assert f"offset={8000}" in first["truncated"]
    rest = await env.ok("read_attachment", id=txt["id"], offset=8000, max_chars=0)
    assert first["text"] + rest["text"] == text and rest["has_more"] is False
    assert (await env.error("read_attachment", id=txt["id"], offset=len(text) + 1)).field == "offset"
    pdf = await env.ok(
        "attach_file",
        note_id=note,
        filename="a.pdf",
        mime="application/pdf",
        content_base64=b64(PDF),
        title="Invoice",
    )
    assert pdf["link"] == f"[Invoice](:/{pdf['id']})"
    read = await env.ok("read_attachment", id=pdf["id"])
    assert read["kind"] == "binary" and read["content_base64"] == b64(PDF)
    body = body_with_ids(env.store, note)
    assert body == f"[log.txt](:/{txt['id']})\n\n[Invoice](:/{pdf['id']})"


async def test_base64_with_line_breaks_a_data_url_or_the_url_safe_alphabet_is_accepted(env: Env) -> None:
    note = env.note(env.folder("F"), "n")
    data = bytes(range(256)) * 4
    encoded = b64(data)
    wrapped = "\n".join(encoded[i : i + 76] for i in range(0, len(encoded), 76))
    for given in (
        wrapped,
        "data:application/octet-stream;base64," + encoded,
        encoded.replace("+", "-").replace("/", "_"),
    ):
        got = await env.ok(
            "attach_file",
            note_id=note,
            filename="b.bin",
            mime="application/octet-stream",
            content_base64=given,
        )
        assert env.store.read_resource(got["id"]) == data


async def test_an_attachment_of_10_mib_and_1_byte_is_refused_with_nothing_written(env: Env) -> None:
    note = env.note(env.folder("F"), "n", "body")
    cursor = env.store.latest_cursor()
    too_big = b64(b"\0" * (MAX_FILE + 1))
    refused = await env.error(
        "attach_file",
        note_id=note,
        filename="big.bin",
        mime="application/octet-stream",
        content_base64=too_big,
    )
    assert refused.field == "content_base64" and "10 MiB" in (refused.message or "")
    assert "10,485,761 bytes" in (refused.message or "")
    inside = await env.error(
        "create_note",
        title="with a big file",
        notebook_title="Brand new",
        attachments=[{"filename": "big.bin", "mime": "application/octet-stream", "content_base64": too_big}],
    )
    assert inside.field == "attachments.0.content_base64"
    _nothing_written(env, cursor)
    assert env.store.get_note(note).body == "body"
    assert "Brand new" not in {f.title for f in env.store.list_folders()}


async def test_exactly_10_mib_fits(env: Env) -> None:
    note = env.note(env.folder("F"), "n")
    got = await env.ok(
        "attach_file",
        note_id=note,
        filename="max.bin",
        mime="application/octet-stream",
        content_base64=b64(b"\1" * MAX_FILE),
    )
    assert got["size"] == MAX_FILE


@pytest.mark.parametrize(
    ("mime", "data", "words"),
    [
        ("image/png", image_bytes(10, 10, "JPEG"), 'bytes are a "image/jpeg" file'),
        ("image/jpeg", b"just some text, not a picture", "bytes are not an image"),
        ("image/png", image_bytes(40, 40)[:60], "damaged or cut short"),
        ("image/x-unknown", image_bytes(10, 10), "cannot check"),
        ("image/svg+xml", image_bytes(10, 10), "bytes are a"),
    ],
)
async def test_a_file_whose_bytes_do_not_match_its_declared_image_type_is_refused(
    env: Env, mime: str, data: bytes, words: str
) -> None:
    note = env.note(env.folder("F"), "n", "body")
    cursor = env.store.latest_cursor()
    refused = await env.error(
        "attach_file", note_id=note, filename="x.img", mime=mime, content_base64=b64(data)
    )
    assert words in (refused.message or "")
    _nothing_written(env, cursor)


async def test_attach_file_errors_name_the_field_and_write_nothing(env: Env) -> None:
    folder = env.folder("F")
    note = env.note(folder, "n")
    cursor = env.store.latest_cursor()
    ok = {"note_id": note, "filename": "a.txt", "mime": "text/plain", "content_base64": b64(b"hi")}
    cases = [
        ({"content_base64": "not base64!"}, "content_base64"),
        ({"mime": "not a type"}, "mime"),
        ({"filename": "../"}, "filename"),
        ({"note_id": "0" * 32}, "note_id"),
        ({"title": "two\nlines"}, "title"),
    ]
    for change, field in cases:
        assert (await env.error("attach_file", **{**ok, **change})).field == field, change
    env.store.trash_note(note, actor="user")
    cursor = env.store.latest_cursor()
    assert "trash" in ((await env.error("attach_file", **ok)).message or "")
    _nothing_written(env, cursor)


async def test_a_dot_name_is_attached_without_its_dots_and_format_characters_are_refused(
    env: Env, tmp_path: Path
) -> None:
    """``.gitignore`` holding ``*.md`` attached to a top-level note became the Markdown folder's own
    ``.gitignore`` (outside edits then ignored), a file the folder then never showed; and a
    right-to-left override (U+202E, category Cf) passed the control-character check in names and
    titles, so ``photo\u202egnp.exe`` listed as ``photoexe.png``."""
    note = env.note(env.folder("F"), "n")
    got = await env.ok(
        "attach_file", note_id=note, filename=".gitignore", mime="text/plain", content_base64=b64(b"*.md\n")
    )
    assert got["filename"] == "gitignore"
    assert not (tmp_path / "store" / "vault" / ".gitignore").exists()
    hidden = b64(b"seen")
    await env.ok("attach_file", note_id=note, filename=".notes.txt", mime="text/plain", content_base64=hidden)
    listed = await env.ok("list_attachments", note_id=note)
    assert "notes.txt" in [a["filename"] for a in listed["attachments"]]  # the folder sees it too

    cursor = env.store.latest_cursor()
    ok = {"note_id": note, "filename": "a.txt", "mime": "text/plain", "content_base64": b64(b"hi")}
    for change, field in [({"filename": "photo\u202egnp.exe"}, "filename"), ({"title": "a\u2066b"}, "title")]:
        refused = await env.error("attach_file", **{**ok, **change})
        assert refused.field == field and "U+" in (refused.message or ""), refused.message
    refused = await env.error("create_note", title="evil\u202eetoN")
    assert "title must not hold the invisible characters that reorder text" in (refused.message or "")
    assert "U+202E" in (refused.message or "")
    assert env.store.latest_cursor() == cursor  # the refusals wrote nothing
    emoji = await env.ok("create_note", title="Family \U0001f468\u200d\U0001f469\u200d\U0001f467")
    assert "\u200d" in emoji["title"]  # the joiners of emoji and of scripts stay allowed
    # The marks of right-to-left text, soft hyphens and zero-width spaces reorder nothing: they stay.
    for title in ["\u05e9\u05dc\u05d5\u05dd\u200f (2024)", "Donau\u00addampf\u00adschiff", "a\u200bb"]:
        kept = await env.ok("create_note", title=title)
        assert kept["title"] == title


# list, replace, delete ---------------------------------------------------------------------------------


async def test_list_attachments_of_a_note_and_of_all_with_their_notes(env: Env) -> None:
    folder = env.folder("F")
    a, b = env.note(folder, "a"), env.note(folder, "b")
    one = await env.ok(
        "attach_file", note_id=a, filename="1.txt", mime="text/plain", content_base64=b64(b"1")
    )
    two = await env.ok(
        "attach_file", note_id=b, filename="2.txt", mime="text/plain", content_base64=b64(b"22")
    )
    env.store.update_note(
        b,
        NotePatch(append=f"[again](:/{one['id']})"),
        actor="user",
    )
    only_b = await env.ok("list_attachments", note_id=b)
    assert {r["id"] for r in only_b["attachments"]} == {one["id"], two["id"]}
    every = await env.ok("list_attachments")
    rows = {r["id"]: r for r in every["attachments"]}
    assert {n["id"] for n in rows[one["id"]]["notes"]} == {a, b}
    assert (rows[two["id"]]["filename"], rows[two["id"]]["size"], rows[two["id"]]["mime"]) == (
        "2.txt",
        2,
        "text/plain",
    )
    paged = await env.ok("list_attachments", limit=1)
    assert paged["total"] == 2 and paged["has_more"] is True and paged["next_offset"] == 1


async def test_replace_attachment_keeps_the_id_and_the_links(env: Env) -> None:
    note = env.note(env.folder("F"), "n")
    got = await env.ok(
        "attach_file",
        note_id=note,
        filename="s.png",
        mime="image/png",
        content_base64=b64(image_bytes(100, 100)),
    )
    body = env.store.get_note(note).body
    bigger = image_bytes(1000, 500)
    replaced = await env.ok("replace_attachment", id=got["id"], content_base64=b64(bigger))
    assert (replaced["id"], replaced["mime"], replaced["size"]) == (got["id"], "image/png", len(bigger))
    assert env.store.get_note(note).body == body and env.store.read_resource(got["id"]) == bigger
    shown = await env.call("read_attachment", id=got["id"])
    assert size_of(shown.images[0].data) == (512, 256)
    cursor = env.store.latest_cursor()
    wrong = await env.error("replace_attachment", id=got["id"], content_base64=b64(PDF))  # still declared png
    assert "image/png" in (wrong.message or "") and env.store.latest_cursor() == cursor
    as_pdf = await env.ok(
        "replace_attachment",
        id=got["id"],
        content_base64=b64(PDF),
        mime="application/pdf",
        filename="s.pdf",
        title="Scan",
    )
    assert (as_pdf["mime"], as_pdf["filename"], as_pdf["title"]) == ("application/pdf", "s.pdf", "Scan")
    assert (await env.ok("read_attachment", id=got["id"]))["content_base64"] == b64(PDF)


async def test_delete_attachment_erases_the_file_and_names_the_notes_that_linked_it(env: Env) -> None:
    note = env.note(env.folder("F"), "n")
    got = await env.ok(
        "attach_file", note_id=note, filename="a.txt", mime="text/plain", content_base64=b64(b"x")
    )
    deleted = await env.ok("delete_attachment", id=got["id"])
    assert deleted["deleted"] is True and [n["id"] for n in deleted["notes"]] == [note]
    assert env.store.list_resources() == []
    assert (await env.error("read_attachment", id=got["id"])).field == "id"


async def test_a_stored_file_over_10_mib_is_not_returned(env: Env) -> None:
    folder = env.folder("F")
    big = env.store.add_resource(
        b"\0" * (MAX_FILE + 1), filename="big.bin", mime="application/octet-stream", actor="user"
    )
    env.note(folder, "n", f"[big](:/{big.id})")
    refused = await env.error("read_attachment", id=big.id)
    assert "10,485,761 bytes" in (refused.message or "")


# Scope --------------------------------------------------------------------------------------------------


async def test_in_a_scope_an_attachment_a_note_outside_links_is_invisible(env: Env) -> None:
    """Only an attachment that visible notes alone link is seen: one that a note outside links
    too is not, or a caller could read any file it knows the id of by linking it from a visible
    note first (and a refusal to delete it would say that notes outside link it)."""
    work, private = env.folder("Work"), env.folder("Private")
    hidden = env.store.add_resource(
        image_bytes(50, 50), filename="secret.png", mime="image/png", actor="user"
    )
    shared = env.store.add_resource(b"shared", filename="shared.txt", mime="text/plain", actor="user")
    mine = env.store.add_resource(b"mine", filename="mine.txt", mime="text/plain", actor="user")
    env.note(private, "p", f"![s](:/{hidden.id}) [x](:/{shared.id})")
    work_note = env.note(work, "w", f"[x](:/{shared.id}) [m](:/{mine.id})")
    env.store.add_resource(
        b"loose", filename="loose.txt", mime="text/plain", actor="user"
    )  # linked from nothing
    assert (await env.ok("read_attachment", id=shared.id))["text"] == "shared"  # without a scope
    env.scoped("Work")
    listed = await env.ok("list_attachments")
    assert [(r["id"], [n["id"] for n in r["notes"]]) for r in listed["attachments"]] == [
        (mine.id, [work_note])
    ]
    cursor = env.store.latest_cursor()
    # The hidden and the shared attachment are, for every tool, exactly as an id that names nothing.
    for tool, extra in (
        ("read_attachment", {}),
        ("get_attachment", {}),
        ("delete_attachment", {}),
        ("replace_attachment", {"content_base64": b64(b"x"), "mime": "text/plain"}),
    ):
        missing = await env.error(tool, id="0" * 32, **extra)
        for seen in (hidden, shared):
            error = await env.error(tool, id=seen.id, **extra)
            assert (error.message or "").replace(seen.id, "X") == (missing.message or "").replace(
                "0" * 32, "X"
            )
    links = (await env.ok("note_links", id=work_note))["outgoing"]
    # Listed as a made-up id is; mine is left out (a Markdown folder writes file links as paths).
    as_ids = not isinstance(env.store, HasFileLinks)
    assert [link["broken"] for link in links] == (
        [f'no note or attachment ":/{shared.id}"'] if as_ids else []
    )
    assert env.store.latest_cursor() == cursor and env.store.read_resource(hidden.id)
    assert (await env.ok("delete_attachment", id=mine.id))["deleted"] is True


async def test_in_a_scope_a_write_links_nothing_the_caller_cannot_see(env: Env) -> None:
    """A :/id link to a note or a file outside the scope is refused as one to an id that names
    nothing. A Markdown folder wrote it as the path of what it names (``../Private/Secret plan.md``),
    so reading the note back told a notebook and a title, or a file name, kept outside."""
    work, private = env.folder("Work"), env.folder("Private")
    secret = env.note(private, "Secret plan")
    kept = env.store.add_resource(b"pay", filename="payroll.txt", mime="text/plain", actor="user")
    env.note(private, "p", f"[f](:/{kept.id})")
    plan = env.note(work, "Plan", "hello")
    env.scoped("Work")
    cursor = env.store.latest_cursor()
    missing = await env.error("update_note", id=plan, append=f"[c](:/{'0' * 32})")
    for rid in (secret, kept.id):
        refused = await env.error("update_note", id=plan, append=f"[c](:/{rid})")
        assert (refused.message, refused.field) == ((missing.message or "").replace("0" * 32, rid), "append")
    assert env.store.latest_cursor() == cursor
    await env.ok("update_note", id=plan, append=f"[own](:/{plan})")  # a visible note may be linked
    assert "Private" not in env.store.get_note(plan).body and "payroll" not in env.store.get_note(plan).body


# create_note: HTML and attachments -------------------------------------------------------------------------


async def test_create_note_from_html_resolves_links_against_base_url(env: Env) -> None:
    env.folder("Reading")
    html = (
        "<html><head><title>Page</title><script>steal()</script></head><body>"
        "<h2>Heading</h2><p>Read <a href='../more.html'>more</a> and <a href='javascript:x()'>this</a>.</p>"
        "<img src='img/fig.png' alt='Figure'><ul><li>one</li><li>two</li></ul></body></html>"
    )
    got = await env.ok(
        "create_note",
        title="Clip",
        body_html=html,
        base_url="https://example.org/a/b/page.html",
        notebook_title="Reading",
    )
    body = env.store.get_note(got["id"]).body
    assert "## Heading" in body and "- one\n- two" in body
    assert "[more](https://example.org/a/more.html)" in body
    assert "![Figure](https://example.org/a/b/img/fig.png)" in body
    assert "javascript" not in body and "steal" not in body and "Page" not in body and " this." in body


async def test_create_note_body_and_html_errors(env: Env) -> None:
    env.folder("F")
    cursor = env.store.latest_cursor()
    both = await env.error("create_note", title="x", body="md", body_html="<p>h</p>")
    assert both.field == "body_html"
    assert (await env.error("create_note", title="x", base_url="https://example.org")).field == "base_url"
    assert env.store.latest_cursor() == cursor


async def test_create_note_with_attachments_stores_and_links_them_in_one_revision(env: Env) -> None:
    png = image_bytes(64, 32)
    got = await env.ok(
        "create_note",
        title="Receipt",
        body="Lunch",
        notebook_title="Expenses",
        attachments=[
            {"filename": "r.png", "mime": "image/png", "content_base64": b64(png), "title": "Photo"},
            {"filename": "r.pdf", "mime": "application/pdf", "content_base64": b64(PDF)},
        ],
    )
    ids = [a["id"] for a in got["attachments"]]
    assert [a["link"] for a in got["attachments"]] == [f"![Photo](:/{ids[0]})", f"[r.pdf](:/{ids[1]})"]
    note = env.store.get_note(got["id"])
    assert body_with_ids(env.store, note.id) == f"Lunch\n\n![Photo](:/{ids[0]})\n\n[r.pdf](:/{ids[1]})\n"
    assert [r.id for r in env.store.list_resources(note_id=note.id)] == ids or set(ids) == {
        r.id for r in env.store.list_resources(note_id=note.id)
    }
    assert len(env.store.note_history(note.id)) == 1 and env.store.read_resource(ids[0]) == png


async def test_a_bad_second_attachment_refuses_the_whole_note(env: Env) -> None:
    env.folder("F")
    cursor = env.store.latest_cursor()
    refused = await env.error(
        "create_note",
        title="x",
        attachments=[
            {"filename": "ok.txt", "mime": "text/plain", "content_base64": b64(b"fine")},
            {"filename": "bad.png", "mime": "image/png", "content_base64": b64(b"not a png")},
        ],
    )
    assert refused.field == "attachments.1.mime" and (refused.message or "").startswith("attachment 2:")
    _nothing_written(env, cursor)


async def test_note_history_shows_each_step_with_the_callers_name(env: Env) -> None:
    made = await env.ok("create_note", title="n", body="b", notebook_title="New")
    await env.ok(
        "attach_file",
        note_id=made["id"],
        filename="a.png",
        mime="image/png",
        content_base64=b64(image_bytes(10, 10)),
    )
    await env.ok("update_notebook", id=made["notebook_id"], title="Renamed")
    await env.ok("manage_tags", note_id=made["id"], add=["filed"])
    history = await env.ok("note_history", id=made["id"])
    steps = [(a["actor"], a["what"]) for a in history["activity"]]
    assert steps[:5] == [
        (ACTOR, "added a tag to the note"),
        (ACTOR, "changed the note's notebook (renamed, moved, trashed or restored)"),
        (ACTOR, "changed the note (text, title, notebook, to-do state or trash)"),
        (ACTOR, "added an attachment"),
        (ACTOR, "created the note"),
    ]
    assert (ACTOR, "created the note's notebook") in steps
    assert {r["actor"] for r in history["revisions"]} == {ACTOR}


@pytest.mark.parametrize("data", [b"garbage", b"\x89PNG\r\n\x1a\n"])
def test_an_unreadable_image_is_refused_in_words_that_name_no_python_object(data: bytes) -> None:
    from noted.ops.filetypes import FileTypeError, open_image

    with pytest.raises(FileTypeError) as refused:
        open_image(data)
    assert refused.value.message.startswith("the image cannot be read")
    assert "BytesIO" not in refused.value.message and " at 0x" not in refused.value.message


# An empty file (0 bytes) is an attachment like any other; Joplin keeps empty resources too ------


async def test_an_empty_file_is_attached_read_and_replaced_by_the_tools(env: Env) -> None:
    """Before: attach_file refused content_base64 "" (the schema's minLength 1): "too short"."""
    note = env.note(env.folder("F"), "Log", "text")
    got = await env.ok(
        "attach_file", note_id=note, filename="empty.txt", mime="text/plain", content_base64=""
    )
    assert got["size"] == 0 and env.store.read_resource(got["id"]) == b""
    assert body_with_ids(env.store, note) == f"text\n\n[empty.txt](:/{got['id']})"
    read = await env.ok("read_attachment", id=got["id"])
    assert (read["size"], read["kind"], read["text"], read["has_more"]) == (0, "text", "", False)
    full = await env.ok("replace_attachment", id=got["id"], content_base64="aGk=")
    assert full["size"] == 2
    emptied = await env.ok("replace_attachment", id=got["id"], content_base64="")
    assert emptied["size"] == 0 and env.store.read_resource(got["id"]) == b""


def test_an_empty_file_is_attached_from_its_path(backend_store: LocalStore, tmp_path: Path) -> None:
    """The app's ``A`` (attach from a path): the empty file is stored and linked."""
    folder = backend_store.create_folder("F", actor=ACTOR_USER)
    note = backend_store.create_note(NoteDraft("Log", "text", folder.id), actor=ACTOR_USER)
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    made = add_from_path(backend_store, note.id, str(empty), actor=ACTOR_USER)
    assert made.size == 0 and backend_store.read_resource(made.id) == b""
    assert [r.id for r in backend_store.list_resources(note_id=note.id)] == [made.id]
