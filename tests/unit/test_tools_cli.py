"""``noted tools list``: every tool with its state, kind and the setting that switches it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from tests.support.tools_env import PUBLIC_TOOLS

from noted.cli import commands_tools
from noted.cli.args import Commands
from noted.cli.context import CliContext


def _run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile")
    commands_tools.register(Commands(parser, {}, dest="command"))
    args = parser.parse_args(argv)
    ctx = CliContext(profile_arg=args.profile, json=args.json)
    try:
        code: int = args.func(args, ctx)
    finally:
        ctx.close()
    return code


def test_tools_list_prints_each_tool_with_its_state_kind_and_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "profile"
    profile.mkdir()
    (profile / "config.toml").write_text("[ai.tool.update_note]\nenabled = true\n")
    assert _run_cli(["tools", "list", "--profile", str(profile)]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert PUBLIC_TOOLS <= set(lines)
    assert lines["search_notes"].split()[1:4] == ["on", "read", "ai.tool.search_notes.enabled"]
    assert lines["create_note"].split()[1:4] == ["off", "write", "ai.tool.create_note.enabled"]
    assert lines["update_note"].split()[1:3] == ["on", "write"] and "config file" in lines["update_note"]
    assert 'Tools → "Edit the open note"' in lines["editor_replace"]
    assert not (profile / "notes.db").exists()  # listing tools opens no database

    assert _run_cli(["tools", "--json", "--profile", str(profile)]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["tools"]}
    assert rows["update_note"]["enabled"] is True and rows["update_note"]["source"] == "config file"
    assert rows["editor_append"]["setting"] == "ai.tool.edit_current.enabled"
    assert rows["delete_note"]["annotations"]["destructiveHint"] is True
    assert rows["delete_note"]["write"] is True and rows["delete_note"]["enabled"] is False
    assert rows["list_tags"]["label"] == "List tags" and rows["list_tags"]["section"] == "Tools"
