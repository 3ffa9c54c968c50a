"""What the settings screen shows: a section of settings (``build_section``), each setting's row,
and the sections that are more than a list of settings, each with its own help: Tools (a checklist
of the tools, read or write), MCP server (the server's address and state, and what to paste into
each AI app) and Keys.

``SettingsScreen`` builds the sections when it shows them and saves every change; what is here
reads settings but never writes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Checkbox, Collapsible, Input, Label, Select, Static, Switch

from noted.mcp.snippets import CLIENTS, Target, render, snippets, stdio_command
from noted.services import Services
from noted.settings import Kind, ResolvedSetting, SettingValue, Source
from noted.settings.handles import (
    KEYS,
    MCP,
    MCP_ENABLED,
    MCP_HOST,
    MCP_PORT,
    MCP_TOKEN_FILE,
    TOOLS,
    UI_THEME,
)


class ToolBox(Checkbox):
    """A tool's checkbox, whose mark is ``X`` when on and blank when off.

    Textual's draws an ``X`` either way and tells them apart by its colour alone, which NO_COLOR
    (and a dim terminal) loses.
    """

    def __init__(self, label: Content, value: bool, *, name: str, id: str) -> None:  # noqa: A002
        super().__init__(label, value, name=name, id=id)
        self.BUTTON_INNER = self._mark(value)

    @staticmethod
    def _mark(on: bool) -> str:
        return "X" if on else " "

    def watch_value(self) -> None:
        self.BUTTON_INNER = self._mark(self.value)
        super().watch_value()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """As many lines as the label wraps to (``text-wrap: wrap``): Textual's toggle takes one,
        which cut a tool's names at 60 columns. Its base's measure, as for any text widget."""
        return Widget.get_content_height(self, container, viewport, width)


Findable = list[tuple[Widget, str]]
"""Each row the filter can find, and the words it looks for in it (``SettingsScreen``): its name
first, then after a newline the rest (its help), which ranks below the name when Enter picks one."""


MCP_KEYS = frozenset(h.key for h in (MCP_HOST, MCP_PORT, MCP_TOKEN_FILE, MCP_ENABLED))
"""The settings the MCP section's address and snippets are drawn from."""


class ToolsSection(Vertical):
    """The Tools section: which tools the assistant and AI apps may use."""

    HELP = """\
## Tools

Each line is a tool the assistant (and AI apps over MCP) may use. **read** tools only look at
notes; **write** tools change them, and while *Ask before every change* is on the assistant asks
you first. **Space** or **Enter** ticks or unticks the focused one; it applies at once.
The command palette's *Toggle tool…* does the same from anywhere.
"""


class McpSection(Vertical):
    """The MCP server section: its switch, address, token and the snippets for AI apps."""

    HELP = """\
## MCP server

With the switch on, the app serves your notes to AI apps (Claude, Cursor, Zed, Codex) at the
address shown, on this machine only, with the tools ticked above. Open *Client snippets* for
what to paste into each app. Without the app running, `noted mcp serve` does the same and
`noted mcp config CLIENT` prints the setup for an app that starts noted itself.
"""


class KeysSection(Vertical):
    """The Keys section: the keymap."""

    HELP = """\
## Keys

Every key has a binding id (`note.save`, `chat.send`…); {app.help} on any pane lists them.
Give new keys as a table, e.g. `{"note.save": "ctrl+w"}`, or from a shell:
`noted config set ui.keymap.note.save ctrl+w`. Unlisted bindings keep their keys.
"""


SECTIONS: dict[str, type[Vertical]] = {TOOLS: ToolsSection, MCP: McpSection, KEYS: KeysSection}
"""The container of each section with a help of its own (the others are a plain ``Vertical``)."""


def mcp_url(resolved: Mapping[str, SettingValue]) -> str:
    """The address the embedded MCP server listens on (or would, once switched on)."""
    return f"http://{resolved['mcp.host']}:{resolved['mcp.port']}/mcp"


def mcp_values(services: Services) -> dict[str, SettingValue]:
    """The MCP settings in effect, by key."""
    settings = services.settings
    return {key: settings.resolve(key).value for key in MCP_KEYS}


def mcp_state_text(services: Services, status: str) -> str:
    """The MCP section's first line: off and where it would listen, or where it is and ``status``."""
    values = mcp_values(services)
    if not values[MCP_ENABLED.key]:
        return f"Server off. When on, AI apps connect to {mcp_url(values)}"
    return f"Server at {mcp_url(values)}" + (f"  ·  {status}" if status else "")


def snippets_text(services: Services) -> str:
    """What to paste into each AI app to reach the app's server over HTTP."""
    values = mcp_values(services)
    token = services.settings.get_path(MCP_TOKEN_FILE)
    target = Target(stdio_command(services.profile.root), mcp_url(values), token_file=token)
    found = [s for client in CLIENTS for s in snippets(client, target) if s.transport == "http"]
    return render(found) + "\n\n# Without a running app: noted mcp config CLIENT prints the stdio form."


def tool_rows(services: Services, items: Iterable[ResolvedSetting], findable: Findable) -> ComposeResult:
    """The Tools section's checklist, one box per tool switch (``findable`` gets each box)."""
    yield Label(
        "Read tools only look at notes; write tools change them (and ask first while "
        '"Ask before every change" is on).',
        classes="setting--help",
    )
    tools = services.registry.all()
    for resolved in items:
        spec = resolved.spec
        names = [t.name for t in tools if t.setting_key == spec.key]
        kind = ("write", "$text-warning") if spec.writes_notes else ("read ", "$text-success")
        label = Content.assemble(kind, "  ", (spec.label, "bold"), (f"  {', '.join(names)}", "$text-muted"))
        if resolved.source is Source.ENV:
            label = label + Content.styled(f"  set by {resolved.env_var}", "$text-warning")
        box = ToolBox(label, bool(resolved.value), name=spec.key, id=widget_id(spec.key))
        box.disabled = resolved.source is Source.ENV
        findable.append((box, f"{TOOLS.lower()} {spec.key} {spec.label}\n{' '.join(names)}".lower()))
        yield box
    error = Label("", classes="setting--error", id="tools-error")
    error.display = False
    yield error


def mcp_info(services: Services, status: str) -> list[Widget]:
    """The MCP section's state line and its client snippets."""
    snippets = Static(snippets_text(services), id="mcp-snippet-text", markup=False)
    return [
        Static(Content(mcp_state_text(services, status)), id="mcp-state"),
        Collapsible(snippets, title="Client snippets (Claude, Cursor, Zed, Codex)", id="mcp-snippets"),
    ]


def widget_id(key: str) -> str:
    """A DOM id for the control of ``key`` (dots are not allowed in ids)."""
    return "set-" + key.replace(".", "--")


def as_text(value: SettingValue) -> str:
    """A value as a text field holds it, in a form ``Setting.parse`` reads back."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | str):
        return str(value)
    if isinstance(value, tuple):
        return ", ".join(value)
    return json.dumps(dict(value), ensure_ascii=False) if value else ""


def state_word(on: bool) -> str:
    """A switch's state in words, beside it: its colour alone is lost with NO_COLOR."""
    return "on " if on else "off"


def build_section(
    services: Services,
    section: str,
    items: list[ResolvedSetting],
    findable: Findable,
    themes: Iterable[str],
    mcp_status: str,
) -> Widget:
    """The section ``section`` with a row for each of ``items`` (``findable`` gets each row);
    ``themes`` are the themes the app has, ``mcp_status`` what its server says of itself."""
    if section == TOOLS:
        rows = list(tool_rows(services, items, findable))
    else:
        rows = [setting_row(resolved, section.lower(), findable, themes) for resolved in items]
    if section == MCP:
        rows.extend(mcp_info(services, mcp_status))
    title = Label(section, classes="section--title")
    return SECTIONS.get(section, Vertical)(title, *rows, classes="section")


def setting_row(resolved: ResolvedSetting, section: str, findable: Findable, themes: Iterable[str]) -> Widget:
    """A setting's row: its name and control (a switch's state in words beside it), the line
    that says why a value was refused (hidden), and its help."""
    spec = resolved.spec
    control = _control(resolved, themes)
    control.disabled = resolved.source is Source.ENV
    label = Label(_label(resolved), classes="setting--label")
    state = Label(
        state_word(bool(resolved.value)), classes="setting--state", id=widget_id(spec.key) + "-state"
    )
    parts: list[Widget] = (
        [Horizontal(control, state, label, classes="setting--head")]
        if spec.kind is Kind.BOOL
        else [label, control]
    )
    error = Label("", classes="setting--error", id=widget_id(spec.key) + "-error")
    error.display = False
    row = Vertical(*parts, error, Label(Content(spec.explained), classes="setting--help"), classes="setting")
    findable.append((row, f"{section} {spec.key} {spec.label}\n{spec.explained}".lower()))
    return row


def _label(resolved: ResolvedSetting) -> Content:
    pieces: list[str | tuple[str, str]] = [(resolved.spec.label, "bold")]
    if resolved.source is Source.ENV:
        pieces.append((f"  set by {resolved.env_var}: read-only here", "$text-warning"))
    return Content.assemble(*pieces)


def _control(resolved: ResolvedSetting, themes: Iterable[str]) -> Widget:
    spec, value, wid = resolved.spec, resolved.value, widget_id(resolved.spec.key)
    if spec.kind is Kind.BOOL:
        return Switch(bool(value), animate=False, name=spec.key, id=wid)
    if spec.kind is Kind.ENUM or spec.key == UI_THEME.key:
        if spec.kind is Kind.ENUM:
            choices = list(spec.choices)
        else:  # the noted themes first
            choices = sorted({*themes, str(value)}, key=lambda n: (not n.startswith("noted"), n))
        return Select(((c, c) for c in choices), value=str(value), allow_blank=False, name=spec.key, id=wid)
    return Input(as_text(value), placeholder=spec.allowed(), name=spec.key, id=wid)
