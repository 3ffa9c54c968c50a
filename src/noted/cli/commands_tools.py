"""``noted tools``: the tools a model may use, whether each is on, and the setting that switches it.

Works from the profile's settings alone: no database is opened.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from noted.cli.args import Commands
from noted.cli.context import CliContext
from noted.settings import Settings

if TYPE_CHECKING:  # the tools load only for `noted tools`
    from noted.tools import Tool, ToolRegistry


def register(sub: Commands) -> None:
    """Add ``noted tools list`` (plain ``noted tools`` lists too)."""
    _, actions = sub.group(
        "tools",
        cmd_list,
        "List the assistant's tools and the setting that switches each.",
        dest="tools_action",
        description="List the tools the assistant and connected AI apps may use, whether each is on, "
        "whether it only reads or changes notes, and the setting that switches it "
        "(change one with `noted config set KEY true`).",
    )
    actions.add("list", cmd_list, "List every tool with its state and its setting.")


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    """Print each tool: on/off, read/write, and the setting (with its section and label)."""
    settings = Settings.load(ctx.profile)
    from noted.tools import build_registry

    registry = build_registry(settings)
    rows = [_row(registry, settings, tool) for tool in registry.all()]
    if ctx.json:
        ctx.emit({"tools": rows})
        return 0
    name_width = max(len(r["name"]) for r in rows)
    key_width = max(len(r["setting"]) for r in rows)
    for r in rows:
        state = "on" if r["enabled"] else "off"
        kind = "write" if r["write"] else "read"
        where = f'{r["section"]} → "{r["label"]}"'
        extra = ", open note only" if r["editor"] else ""
        if r["source"] != "default":
            extra += f" (set by {r['source']})"
        line = (
            f"{r['name']:<{name_width}}  {state:<3}  {kind:<5}  {r['setting']:<{key_width}}  {where}{extra}"
        )
        ctx.out(line.rstrip())
    ctx.out()
    ctx.out("Switch one with `noted config set KEY true|false`; write tools start off.")
    return 0


def _row(registry: ToolRegistry, settings: Settings, tool: Tool) -> dict[str, Any]:
    resolved = settings.resolve(tool.setting_key)
    return {
        "name": tool.name,
        "title": tool.title,
        "enabled": registry.enabled(tool),
        "write": tool.is_write,
        "editor": tool.editor,
        "setting": tool.setting_key,
        "section": resolved.spec.section,
        "label": resolved.spec.label,
        "source": resolved.describe_source(),
        "default": tool.enabled_by_default,
        "annotations": tool.annotations.to_mcp(),
    }
