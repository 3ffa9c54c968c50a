"""Front-matter keys noted does not read (``aliases``, ``cssclass``, a person's own) in a Markdown
folder: an export keeps them, and an import into a Markdown folder writes them (real files)."""

from __future__ import annotations

from pathlib import Path

from tests.support.vaults import opened

from noted.store.transfer import export_markdown, import_markdown
from noted.store.transfer.common import load_yaml, split_front_matter

FRONT = "---\naliases: [g, gam]\ncssclass: wide\nmykey: {deep: [1, 2]}\nid: own-id\ntags: [t1]\n---\n# Gamma\n\nText.\n"


def _notes(tmp_path: Path) -> Path:
    """A folder of two notes, one with keys noted does not read."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "g.md").write_text(FRONT)
    (root / "plain.md").write_text("# Plain\n\nText.\n")
    return root


def test_an_export_keeps_the_front_matter_keys_noted_does_not_read(tmp_path: Path) -> None:
    """They were dropped: the export held only noted's keys. Not vacuous: a key noted reads or
    writes itself (``tags``, ``id``: the export's own) is the export's, not the file's."""
    with opened(_notes(tmp_path), tmp_path / "p") as store:
        export_markdown(store, tmp_path / "out")
        gamma = next(n for n in store.list_notes() if n.title == "Gamma").id
    yaml_text, _ = split_front_matter((tmp_path / "out" / "notes" / "Gamma.md").read_text())
    data = load_yaml(yaml_text or "")
    assert isinstance(data, dict)
    assert (data["aliases"], data["cssclass"], data["mykey"]) == (["g", "gam"], "wide", {"deep": [1, 2]})
    assert data["id"] == gamma and data["tags"] == ["t1"]
    plain, _ = split_front_matter((tmp_path / "out" / "notes" / "Plain.md").read_text())
    assert "aliases" not in (plain or "")


def test_an_import_into_a_markdown_folder_writes_them_into_the_new_notes_file(tmp_path: Path) -> None:
    """A round trip (a folder exported, the export imported into another folder) lost them. Not
    vacuous: noted's own keys are read as fields, not copied as keys (no ``is_todo`` in the file)."""
    source, target = tmp_path / "notes", tmp_path / "other"
    source.mkdir()
    target.mkdir()
    (source / "g.md").write_text(FRONT)
    with opened(source, tmp_path / "p1") as store:
        export_markdown(store, tmp_path / "out")
    with opened(target, tmp_path / "p2") as store:
        import_markdown(store, tmp_path / "out")
        gamma = next(n for n in store.list_notes() if n.title == "Gamma")
        path = target / store.note_paths()[gamma.id]
    yaml_text, body = split_front_matter(path.read_text())
    data = load_yaml(yaml_text or "")
    assert isinstance(data, dict)
    assert (data["aliases"], data["cssclass"], data["mykey"]) == (["g", "gam"], "wide", {"deep": [1, 2]})
    assert "is_todo" not in data and "id" not in data and body.startswith("# Gamma")


def test_importing_again_adds_them_to_the_notes_that_exist_and_keeps_their_own_values(
    tmp_path: Path,
) -> None:
    """Importing an export over notes that exist dropped the keys the file adds (a new note got
    them). Now they are added as for a new note; a key the note has keeps its value. Not vacuous:
    the import counts the note updated, and before the fix its file gained no key."""
    root = _notes(tmp_path)
    with opened(root, tmp_path / "p") as store:
        export_markdown(store, tmp_path / "out")
        for name, extra in (("Plain.md", "rating: 5\n"), ("Gamma.md", "cssclass: narrow\nmood: calm\n")):
            exported = tmp_path / "out" / "notes" / name
            text = exported.read_text()
            exported.write_text(text.replace("\n---\n", f"\n{extra}---\n", 1))
        report = import_markdown(store, tmp_path / "out")
        assert report.notes_updated == 2
        assert import_markdown(store, tmp_path / "out").notes_unchanged == 2  # added once
    plain, _ = split_front_matter((root / "plain.md").read_text())
    gamma, _ = split_front_matter((root / "g.md").read_text())
    assert load_yaml(plain or "") == {"rating": 5}
    data = load_yaml(gamma or "")
    assert isinstance(data, dict) and (data["cssclass"], data["mood"]) == ("wide", "calm")
