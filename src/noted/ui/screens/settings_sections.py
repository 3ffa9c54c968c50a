"""The settings screen's sections that are more than a list of settings, each with its own help:
Tools (a checklist of the tools, read or write), MCP server (the server's address and state, and
what to paste into each AI app) and Keys.

``SettingsScreen`` builds the rows of the other settings, and saves every change; what is here
reads settings but never writes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Checkbox, Collapsible, Label, Static

from noted.mcp.snippets import CLIENTS, Target, render, snippets, stdio_command
from noted.services import Services
from noted.settings import ResolvedSetting, SettingValue, Source
from noted.settings.handles import KEYS, MCP, MCP_ENABLED, MCP_HOST, MCP_PORT, MCP_TOKEN_FILE, TOOLS


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


def mcp_info(services: Services, status: str) -> ComposeResult:
    """The MCP section's state line and its client snippets."""
    yield Static(Content(mcp_state_text(services, status)), id="mcp-state")
    with Collapsible(title="Client snippets (Claude, Cursor, Zed, Codex)", id="mcp-snippets"):
        yield Static(snippets_text(services), id="mcp-snippet-text", markup=False)


def widget_id(key: str) -> str:
    """A DOM id for the control of ``key`` (dots are not allowed in ids)."""
    return "set-" + key.replace(".", "--")
