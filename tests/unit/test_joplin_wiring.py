"""How the Joplin backend is chosen: ``--joplin`` anywhere on the command line, the ``backend``
setting, and a clear message when the token is missing. No Joplin is needed for these."""

from __future__ import annotations

from pathlib import Path

import pytest

from noted.cli import build_parser
from noted.errors import ConfigError
from noted.profile import Profile
from noted.search.joplin import JoplinKeywordSearch
from noted.services import Services
from noted.settings import Settings
from noted.store.joplin import JoplinStore


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--joplin", "search", "budget"], True),
        (["search", "budget", "--joplin"], True),
        (["mcp", "serve", "--stdio", "--joplin"], True),
        (["--joplin", "mcp", "serve", "--stdio"], True),
        (["search", "budget"], False),
    ],
)
def test_joplin_flag_is_accepted_before_or_after_the_command(argv: list[str], expected: bool) -> None:
    assert build_parser().parse_args(argv).joplin is expected


def test_a_missing_token_is_a_config_error_naming_both_ways_to_give_it(tmp_path: Path) -> None:
    profile = Profile(tmp_path / "p").ensure()
    with pytest.raises(ConfigError, match="token is not set") as caught:
        Services.open(profile, backend="joplin", settings=Settings.load(profile, environ={}))
    assert "joplin.tokenFile" in str(caught.value) and "NOTED_JOPLIN_TOKEN" in str(caught.value)


def test_the_backend_setting_opens_joplin_without_reaching_it(tmp_path: Path) -> None:
    """Opening never talks to Joplin, so the app and the MCP server start while Joplin is off."""
    profile = Profile(tmp_path / "p").ensure()
    token_file = tmp_path / "token"
    token_file.write_text("abc123\n", encoding="utf-8")
    environ = {
        "NOTED_BACKEND": "joplin",
        "NOTED_JOPLIN_TOKENFILE": str(token_file),
        "NOTED_JOPLIN_URL": "http://127.0.0.1:9",
    }
    services = Services.open(profile, settings=Settings.load(profile, environ=environ))
    try:
        assert isinstance(services.store, JoplinStore)
        assert isinstance(services.keyword, JoplinKeywordSearch)
        assert services.store.url == "http://127.0.0.1:9"
        assert "abc123" not in repr(services.store)
        assert (profile.root / "joplin-sidecar.db").exists() and not profile.db_path.exists()
    finally:
        services.close()


def test_a_command_with_joplin_off_exits_16_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script can tell "Joplin is off" (start it and retry) from "no such note" (exit 1)."""
    from noted.cli import main

    token_file = tmp_path / "token"
    token_file.write_text("abc123\n", encoding="utf-8")
    monkeypatch.setenv("NOTED_JOPLIN_TOKENFILE", str(token_file))
    monkeypatch.setenv("NOTED_JOPLIN_URL", "http://127.0.0.1:9")  # the discard port: nothing answers
    assert main(["--joplin", "init", "--profile", str(tmp_path / "p")]) == 0
    capsys.readouterr()
    code = main(["--joplin", "notes", "--profile", str(tmp_path / "p")])
    err = capsys.readouterr().err
    assert code == 16, err
    assert "Joplin is not reachable at http://127.0.0.1:9" in err
    assert len(err.strip().splitlines()) <= 2 and "Traceback" not in err


def test_a_joplin_command_without_a_notebook_names_the_joplin_init(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: the hint said `noted init`, which makes an embedded notes.db, not a Joplin profile.
    from noted.cli import main

    profile = tmp_path / "p"
    assert main(["--joplin", "notes", "--profile", str(profile)]) == 2
    assert "`noted --joplin init` makes one there" in capsys.readouterr().err
    assert not profile.exists()


def test_init_for_joplin_or_a_folder_says_the_notes_stay_where_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``noted init`` on Joplin or a Markdown folder makes no notebook: it must not say it did."""
    from noted.cli import main

    token_file = tmp_path / "token"
    token_file.write_text("abc123\n", encoding="utf-8")
    monkeypatch.setenv("NOTED_JOPLIN_TOKENFILE", str(token_file))
    monkeypatch.setenv("NOTED_JOPLIN_URL", "http://127.0.0.1:9")
    assert main(["--joplin", "init", "--profile", str(tmp_path / "j")]) == 0
    assert capsys.readouterr().out.startswith(f"made a profile at {tmp_path / 'j'} for your Joplin notes")
    (tmp_path / "folder").mkdir()
    assert main(["--vault", str(tmp_path / "folder"), "init", "--profile", str(tmp_path / "v")]) == 0
    assert capsys.readouterr().out.startswith(f"made a profile at {tmp_path / 'v'} for the Markdown folder")
