"""``noted config``: list, read and change settings.

Works from the profile alone: no database is opened, so it also serves to repair a profile whose
settings keep the app from starting. A command that may reach a tool's switch (``ai.tool.<id>.enabled``)
declares every tool's first, so it says of a switch what ``noted tools list`` and MCP go by: a read
tool's is on by default, and the switch of a tool that does not exist is refused.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from noted.cli.args import Commands
from noted.cli.context import CliContext
from noted.errors import ConfigError
from noted.settings import Kind, ResolvedSetting, Settings, Source
from noted.ui import setting_checks

_VALUE_WIDTH = 32
_SWITCHES = "ai.tool."


def register(sub: Commands) -> None:
    """Add ``noted config list|get|set|unset|path`` (plain ``noted config`` lists)."""
    parser, actions = sub.group(
        "config",
        cmd_list,
        "Show and change settings.",
        dest="config_action",
        description="Show and change settings. Every setting can also be overridden for one run by "
        "an environment variable named from its key: ai.enabled -> NOTED_AI_ENABLED, "
        "ai.allowRemote -> NOTED_AI_ALLOWREMOTE (or NOTED_AI_ALLOW_REMOTE).",
    )
    parser.set_defaults(prefix=None)

    p = actions.add("list", cmd_list, "List every setting with its value and where it comes from.")
    p.add_argument("prefix", nargs="?", help="only keys that start with this, e.g. ai.tool")

    p = actions.add("get", cmd_get, "Print the value of one setting.")
    p.add_argument("key", help="a key such as ai.enabled (or ui.keymap.BINDING)")

    p = actions.add("set", cmd_set, "Check a value and save it in the config file.")
    p.add_argument("key", help="a key such as ai.provider")
    p.add_argument("value", help="true/false, a number or text; a list as a,b or a JSON array")

    p = actions.add("unset", cmd_unset, "Remove a setting from the config file, so its default applies.")
    p.add_argument("key", help="a key such as ai.provider")

    actions.add("path", cmd_path, "Print where the config file is.")


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    """Print every setting, grouped by section, with its value and origin."""
    settings = Settings.load(ctx.profile)
    setting_checks.install(settings)
    settings.recheck()  # a value only the app can judge (a theme, a key) is reported as the app does
    prefix: str | None = args.prefix
    if prefix is None or prefix.startswith(_SWITCHES) or _SWITCHES.startswith(prefix):
        _declare_tools(settings)
    entries = [e for e in settings.entries() if prefix is None or e.key.startswith(prefix)]
    if ctx.json:
        ctx.emit(
            {
                "path": str(settings.path),
                "exists": settings.path.exists(),
                "settings": [entry.to_json() for entry in entries],
                "problems": list(settings.problems),
            }
        )
        return 0
    key_width = max((len(entry.key) for entry in entries), default=0)
    value_width = min(_VALUE_WIDTH, max((len(_shown(entry)) for entry in entries), default=0))
    section = None
    for entry in entries:
        if entry.spec.section != section:
            section = entry.spec.section
            ctx.out(("\n" if section != entries[0].spec.section else "") + section)
        value = _shown(entry)
        mark = ", at next start" if entry.spec.at_start else ""
        ctx.out(
            f"  {entry.key:<{key_width}}  {value:<{value_width}}  {entry.describe_source()}{mark}".rstrip()
        )
    if not entries:
        ctx.out(f"no setting starts with {prefix}")
    for problem in settings.problems:
        ctx.error(problem)
    return 0


def cmd_get(args: argparse.Namespace, ctx: CliContext) -> int:
    """Print one value, in a form ``config set`` accepts back."""
    settings = Settings.load(ctx.profile)
    _check_tool_id(settings, args.key, "")
    entry = settings.resolve(args.key)
    if ctx.json:
        ctx.emit(entry.to_json())
    else:
        ctx.out(entry.shown())
    return 0


def cmd_set(args: argparse.Namespace, ctx: CliContext) -> int:
    """Validate and save one value; what only the app knows (themes, keys, tools) is checked too."""
    settings = Settings.load(ctx.profile)
    setting_checks.install(settings)
    value: str = args.value
    spec = settings.registry.find(args.key)
    if spec is not None and spec.kind is Kind.PATH and value.strip():
        # a path typed in a shell means "from here", not from the profile folder
        value = str(Path.cwd() / Path(value.strip()).expanduser())
    _check_tool_id(settings, args.key, "; nothing was saved")
    entry = settings.set(args.key, value)
    _report(ctx, settings, entry, f"saved in {settings.path}")
    return 0


def _declare_tools(settings: Settings) -> None:
    from noted.tools import build_registry  # the tools load only when a switch may be shown

    build_registry(settings)  # declares every tool's switch, with its default


def _check_tool_id(settings: Settings, key: str, outcome: str, *, held: bool = False) -> None:
    """Declare the tools' switches when ``key`` is one, and refuse the switch of a tool that does
    not exist: it would be saved and switch nothing, and read as off while nothing is off. With
    ``held``, a switch the config file holds is let through (so ``unset`` can remove it)."""
    spec = settings.registry.find(key)
    if spec is None or spec.registered or not key.startswith(_SWITCHES):
        return
    _declare_tools(settings)
    if settings.registry.spec(key).registered or (held and settings.resolve(key).source is Source.FILE):
        return
    raise ConfigError(
        f"no tool has the id {key.split('.')[2]}, so {key} switches nothing{outcome}",
        hint="`noted tools list` shows the tools and their switches",
    )


def cmd_unset(args: argparse.Namespace, ctx: CliContext) -> int:
    """Remove one key from the config file."""
    settings = Settings.load(ctx.profile)
    _check_tool_id(settings, args.key, "; nothing was removed", held=True)
    entry = settings.unset(args.key)
    _report(ctx, settings, entry, f"removed from {settings.path}")
    return 0


def cmd_path(args: argparse.Namespace, ctx: CliContext) -> int:
    """Print the config file's path."""
    path = ctx.profile.config_path
    if ctx.json:
        ctx.emit({"path": str(path), "exists": path.exists()})
    else:
        ctx.out(str(path))
    return 0


def _report(ctx: CliContext, settings: Settings, entry: ResolvedSetting, done: str) -> None:
    if ctx.json:
        ctx.emit(entry.to_json())
        return
    ctx.out(f"{entry.key} = {entry.spec.display(entry.value)}  ({done})")
    if entry.spec.at_start:
        ctx.out(f"note: {entry.spec.next_start}")
    if entry.source is Source.ENV:
        ctx.out(f"note: {entry.env_var} overrides it while it is set in the environment")
    for problem in settings.problems:
        ctx.error(problem)


def _shown(entry: ResolvedSetting) -> str:
    text = entry.shown()
    return text if len(text) <= _VALUE_WIDTH * 2 else text[: _VALUE_WIDTH * 2 - 1] + "…"
