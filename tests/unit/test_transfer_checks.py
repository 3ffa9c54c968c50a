"""An import refused on bad input writes nothing, on both backends.

Joplin has no transactions, so there "nothing written" rests on every check running before the
first write; the store's change feed, notebooks and attachments are compared before and after.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, open_backend

from noted.errors import InvalidInputError
from noted.store.protocol import Store
from noted.store.transfer import import_markdown


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def snapshot(store: Store) -> tuple[int, int, int, int]:
    return (
        store.latest_cursor(),
        len(store.list_folders(include_trashed=True)),
        len(store.list_notes()),
        len(store.list_resources()),
    )


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("n0550\nbad.md", "x\n", r"n0550\nbad.md: its name: a title must be one line"),
        ("n0551\x1bbad.md", "x\n", r"n0551\x1bbad.md: its name: a title must not hold control characters"),
        ("t.md", '---\ntags: ["a\\nb"]\n---\nx\n', "t.md: line 2: a tag must be one line"),
        ("t.md", "---\ntitle: " + "t" * 1001 + "\n---\n", "t.md: line 2: a title may have at most 1000"),
    ],
    ids=["newline-in-name", "escape-in-name", "newline-in-tag", "long-title"],
)
def test_a_bad_file_past_the_first_batch_writes_nothing(
    backend_store: Store, tmp_path: Path, name: str, text: str, message: str
) -> None:
    source = tmp_path / "Vault"
    source.mkdir()
    (source / "pic.png").write_bytes(b"\x89PNG" + bytes(32))
    (source / "a.md").write_text("![p](pic.png)\n", encoding="utf-8")
    for i in range(60):
        (source / f"n{i:04}.md").write_text(f"note {i}\n", encoding="utf-8")
    (source / name).write_text(text, encoding="utf-8")
    before = snapshot(backend_store)
    with pytest.raises(InvalidInputError) as caught:
        import_markdown(backend_store, source)
    assert message in str(caught.value)
    assert snapshot(backend_store) == before


def test_shown_escapes_control_characters_and_undecodable_bytes() -> None:
    from noted.store.transfer.checks import shown  # here, so the tests above also run on older code

    assert shown("a\nb\tc") == r"a\nb\tc"
    assert shown("bad\udcff.md") == r"bad\xff.md"
    assert shown("café.md") == "café.md"
