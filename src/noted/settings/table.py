"""Every fixed setting of noted, in the order the settings screen shows them.

Tool switches (``ai.tool.<id>.enabled``) are not listed here: each tool declares its own through
``SettingsRegistry.register_tool_setting`` when the tool registry is built. The only fixed one is
``ai.tool.edit_current.enabled``, shared by the editor tools.

A setting added here also gets a typed handle in ``handles`` (a test checks that each has one),
which is how the code reads it.

No key may name a secret: API keys and tokens come from the environment or from the file a ``…File``
setting names, so they never sit in ``config.toml`` or on a screen.
"""

from __future__ import annotations

from types import MappingProxyType

from noted.settings.spec import Kind, SettingSpec

ASSISTANT = "Assistant"
TOOLS = "Tools"
SEARCH = "Search"
MCP = "MCP server"
STORAGE = "Storage"
APPEARANCE = "Appearance"
KEYS = "Keys"

SECTIONS: tuple[str, ...] = (ASSISTANT, TOOLS, SEARCH, MCP, STORAGE, APPEARANCE, KEYS)
"""Section names in display order."""

OLLAMA_URL = "http://127.0.0.1:11434/v1"

SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec(
        key="ai.enabled",
        label="Use the assistant",
        section=ASSISTANT,
        kind=Kind.BOOL,
        default=False,
        help="Switch the assistant on. While it is off nothing is ever sent to a model.",
    ),
    SettingSpec(
        key="ai.allowRemote",
        label="Allow remote models",
        section=ASSISTANT,
        kind=Kind.BOOL,
        default=False,
        help="Allow chat and embedding endpoints that are not on this machine. Only loopback hosts count "
        "as local; LAN addresses are remote. Off keeps every note on this computer.",
    ),
    SettingSpec(
        key="ai.provider",
        label="Provider",
        section=ASSISTANT,
        kind=Kind.ENUM,
        default="openai",
        choices=("openai", "anthropic", "fake"),
        help="openai: any OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM, OpenAI, "
        "OpenRouter). anthropic: Anthropic's API. fake: a scripted offline model for demos and tests.",
    ),
    SettingSpec(
        key="ai.model",
        label="Model",
        section=ASSISTANT,
        kind=Kind.STR,
        default="",
        help="Name of the chat model as the server knows it, e.g. llama3.2 or gpt-4o-mini.",
    ),
    SettingSpec(
        key="ai.baseUrl",
        label="Server URL",
        section=ASSISTANT,
        kind=Kind.URL,
        default=OLLAMA_URL,
        help='Address of the model server. The default is a local Ollama; "" uses the provider\'s own '
        "public endpoint (which is remote).",
    ),
    SettingSpec(
        key="ai.apiKeyFile",
        label="API key file",
        section=ASSISTANT,
        kind=Kind.PATH,
        default="",
        must_exist=True,
        help="File holding the API key, if the server needs one. The key itself is never stored in "
        "settings: NOTED_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment also work.",
    ),
    SettingSpec(
        key="ai.approveWrites",
        label="Ask before every change",
        section=ASSISTANT,
        kind=Kind.BOOL,
        default=True,
        help="Ask you to approve each change the assistant makes to your notes before it is written.",
    ),
    SettingSpec(
        key="ai.budgetTokens",
        label="Conversation budget (tokens)",
        section=ASSISTANT,
        kind=Kind.INT,
        default=80_000,
        minimum=1_000,
        maximum=10_000_000,
        help="Largest conversation sent to the model. A longer one is refused, never silently cut: "
        "start a new chat or select a part of the note.",
    ),
    SettingSpec(
        key="ai.timeoutSeconds",
        label="Request timeout (seconds)",
        section=ASSISTANT,
        kind=Kind.INT,
        default=120,
        minimum=5,
        maximum=3_600,
        help="How long you wait for an answer to begin, retries included; the chat shows the wait, "
        "and Esc stops it.",
    ),
    SettingSpec(
        key="ai.tool.edit_current.enabled",
        label="Edit the open note",
        section=TOOLS,
        kind=Kind.BOOL,
        default=False,
        writes_notes=True,
        help="Let the assistant change the note open beside the chat (append, insert, replace text). "
        "Each edit still asks first while 'Ask before every change' is on.",
    ),
    SettingSpec(
        key="search.defaultMode",
        label="Search mode",
        section=SEARCH,
        kind=Kind.ENUM,
        default="hybrid",
        choices=("keyword", "semantic", "hybrid"),
        help="keyword: words and filters. semantic: by meaning, from the local index. hybrid: both, "
        "fused into one ranking.",
    ),
    SettingSpec(
        key="search.relevance",
        label="Search-by-meaning relevance",
        section=SEARCH,
        kind=Kind.ENUM,
        default="normal",
        choices=("strict", "normal", "loose"),
        help="How close a note must be to count as a match: strict shows fewer, surer results; loose "
        "shows more.",
    ),
    SettingSpec(
        key="search.indexer.enabled",
        label="Index notes for search by meaning",
        section=SEARCH,
        kind=Kind.BOOL,
        default=True,
        help="Keep the semantic index up to date in the background. Off saves CPU; search by meaning "
        "then uses the index as it was.",
    ),
    SettingSpec(
        key="ai.embedding.provider",
        label="Embedding provider",
        section=SEARCH,
        kind=Kind.ENUM,
        default="onnx",
        choices=("onnx", "openai", "fake"),
        help="onnx: a model run on this machine (no network). openai: an OpenAI-compatible "
        "/v1/embeddings server. fake: deterministic vectors for tests. Changing it rebuilds the index.",
    ),
    SettingSpec(
        key="ai.embedding.model",
        label="Embedding model",
        section=SEARCH,
        kind=Kind.STR,
        default="",
        help='For onnx, a folder holding model.onnx and tokenizer.json; "" is the bundled '
        "all-MiniLM-L6-v2. For openai, the model's name. Changing it rebuilds the index.",
    ),
    SettingSpec(
        key="ai.embedding.baseUrl",
        label="Embedding server URL",
        section=SEARCH,
        kind=Kind.URL,
        default="",
        help='Address of the /v1/embeddings server for the openai embedding provider; "" uses the '
        "assistant's server URL.",
    ),
    SettingSpec(
        key="ai.embedding.queryPrefix",
        label="Query prefix",
        section=SEARCH,
        kind=Kind.STR,
        default="",
        help='Text put before each search query, e.g. "query: " for e5 models; "" uses what the model '
        "declares.",
    ),
    SettingSpec(
        key="ai.embedding.passagePrefix",
        label="Passage prefix",
        section=SEARCH,
        kind=Kind.STR,
        default="",
        help='Text put before each indexed passage, e.g. "passage: " for e5 models; "" uses what the '
        "model declares.",
    ),
    SettingSpec(
        key="ai.embedding.threads",
        label="Embedding threads",
        section=SEARCH,
        kind=Kind.INT,
        default=0,
        minimum=0,
        maximum=256,
        help="CPU threads the local model may use; 0 picks a number that suits this machine.",
    ),
    SettingSpec(
        key="mcp.enabled",
        label="Run the MCP server in the app",
        section=MCP,
        kind=Kind.BOOL,
        default=False,
        help="Serve your notes to AI apps (Claude, Cursor, Zed, Codex…) over HTTP while noted runs. "
        "They get exactly the tools switched on under Tools.",
    ),
    SettingSpec(
        key="mcp.host",
        label="Listen address",
        section=MCP,
        kind=Kind.STR,
        default="127.0.0.1",
        help="Address the HTTP server binds to. Anything but loopback requires a token file.",
    ),
    SettingSpec(
        key="mcp.port",
        label="Port",
        section=MCP,
        kind=Kind.INT,
        default=8765,
        minimum=1,
        maximum=65_535,
        help="TCP port of the HTTP server (http://HOST:PORT/mcp).",
    ),
    SettingSpec(
        key="mcp.allowedNotebooks",
        label="Notebooks AI apps may see",
        section=MCP,
        kind=Kind.LIST,
        default=(),
        help="Notebook ids or titles (their sub-notebooks included) the tools may see; empty means all. "
        "Other notebooks are invisible: no titles, snippets or counts leak.",
    ),
    SettingSpec(
        key="mcp.tokenFile",
        label="Bearer token file",
        section=MCP,
        kind=Kind.PATH,
        default="",
        help="File holding the bearer token HTTP clients must send (noted mcp token creates one). It "
        "must belong to you and be unreadable by others.",
    ),
    SettingSpec(
        key="mcp.allowedOrigins",
        label="Allowed browser origins",
        section=MCP,
        kind=Kind.LIST,
        default=(),
        help="Browser origins (e.g. https://example.org) allowed to call the server; requests from other "
        "origins are refused. Clients that send no Origin, as AI apps do, are not affected.",
    ),
    SettingSpec(
        key="mcp.actions.enabled",
        label="OpenAPI actions",
        section=MCP,
        kind=Kind.BOOL,
        default=False,
        help="Also serve /openapi.json and /actions/{tool} for plain-HTTP clients such as custom GPT "
        "actions. Needs a token file and ai.allowRemote, because it exposes notes to whatever remote "
        "service you connect.",
    ),
    SettingSpec(
        key="backend",
        label="Where notes live",
        section=STORAGE,
        kind=Kind.ENUM,
        default="sqlite",
        choices=("sqlite", "joplin"),
        help="sqlite: the profile's own database. joplin: a running Joplin's Data API (desktop app with "
        "the Web Clipper on, or the terminal app's server).",
    ),
    SettingSpec(
        key="joplin.url",
        label="Joplin Data API URL",
        section=STORAGE,
        kind=Kind.URL,
        default="",
        help='Address of Joplin\'s Data API; "" finds it on this machine from port 41184 up.',
    ),
    SettingSpec(
        key="joplin.tokenFile",
        label="Joplin token file",
        section=STORAGE,
        kind=Kind.PATH,
        default="",
        help="File holding Joplin's API token (Joplin: Options, Web Clipper). NOTED_JOPLIN_TOKEN in the "
        "environment also works.",
    ),
    SettingSpec(
        key="joplin.syncCommand",
        label="Joplin sync command",
        section=STORAGE,
        kind=Kind.STR,
        default="",
        help='What "Sync now" and noted sync run to make Joplin sync (its API cannot), e.g. "joplin sync" '
        'for the terminal app. "" : noted leaves syncing to Joplin.',
    ),
    SettingSpec(
        key="ui.theme",
        label="Theme",
        section=APPEARANCE,
        kind=Kind.STR,
        default="noted-dark",
        help="Name of a bundled theme (noted-dark, noted-light) or of a theme file in your config folder.",
    ),
    SettingSpec(
        key="ui.keymap",
        label="Key bindings",
        section=KEYS,
        kind=Kind.TABLE,
        default=MappingProxyType({}),
        help='Keys for binding ids, e.g. "note.save" = "ctrl+s,f2". Set one with '
        "noted config set ui.keymap.note.save ctrl+s; unlisted bindings keep their keys.",
    ),
)
