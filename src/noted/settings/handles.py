"""Every fixed setting of noted, declared once, in the order the settings screen shows them.

Each constant is the whole declaration (key, type, default, label, section, help, checks) and the
typed handle code reads it with: ``settings.get(AI_ENABLED)`` is a ``bool`` to mypy, and a misspelt
handle, a key given as a string to ``get`` or a value of the wrong type to ``set`` is a mypy error
(``tests/unit/test_settings_typing.py`` runs mypy on such code to show it). Keys typed by a person
(``noted config set``, the settings screen) are looked up through ``Settings.resolve(key)``.

Tool switches (``ai.tool.<id>.enabled``) are not listed here: each tool declares its own through
``SettingsRegistry.register_tool_setting`` when the tool registry is built, and ``tool_switch(id)``
is its handle. The only fixed one is ``ai.tool.edit_current.enabled``, shared by the editor tools.

No key may name a secret: API keys and tokens come from the environment or from the file a ``…File``
setting names, so they never sit in ``config.toml`` or on a screen.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from noted.errors import ConfigError
from noted.settings.spec import AT_START, Kind, Setting
from noted.settings.urls import EXAMPLE_URLS, base_url_problem, is_listen_address

if TYPE_CHECKING:
    from noted.settings.core import Settings

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

TOOL_KEY = re.compile(r"ai\.tool\.([a-z][a-z0-9_]*)\.enabled")
"""The family of tool switches; a tool id is lowercase snake case."""


SWITCHED_OFF = (False, "the tool is off")
"""What stands in for a tool switch the config file holds wrongly: a read tool, on by default,
is not switched back on by a typo in switching it off."""


def tool_key(tool_id: str) -> str:
    """The key of the switch of tool ``tool_id``."""
    return f"ai.tool.{tool_id}.enabled"


def tool_switch(tool_id: str) -> Setting[bool]:
    """The handle of ``ai.tool.<tool_id>.enabled``, a tool's on/off switch (see ``registry``)."""
    return Setting(tool_key(tool_id), TOOLS, f"Tool {tool_id}", default=False, help="", closed=SWITCHED_OFF)


def _readable_file(settings: Settings, value: str) -> None:
    if not value:
        return
    where = settings.path_of(value)
    try:
        with where.open("rb"):
            pass
    except OSError as exc:
        raise ConfigError(
            f"cannot read {where}: {exc.strerror or exc}; nothing was saved",
            hint="give the path of an existing file",
        ) from None


def _fits_provider(settings: Settings, value: str) -> None:
    provider = settings.get(AI_PROVIDER)
    problem = base_url_problem(value, provider)
    if problem is not None:
        example = EXAMPLE_URLS.get(provider, EXAMPLE_URLS["openai"])
        raise ConfigError(
            f"{AI_BASE_URL.key} {value!r}: {problem}; nothing was saved",
            hint=f"with ai.provider = {provider}, write it like {example}",
        )


def _listen_address(settings: Settings, value: str) -> None:
    if not is_listen_address(value):
        raise ConfigError(
            f"{MCP_HOST.key} {value!r} is not a host name or an IP address; nothing was saved",
            hint=f"write it like 127.0.0.1, localhost or ::1, or `noted config unset {MCP_HOST.key}`",
        )


# fmt: off
# Assistant
AI_ENABLED = Setting(
    "ai.enabled", ASSISTANT, "Use the assistant", default=False,
    help="Switch the assistant on. While it is off nothing is ever sent to a model.",
)
AI_ALLOW_REMOTE = Setting(
    "ai.allowRemote", ASSISTANT, "Allow remote models", default=False,
    help="Allow chat and embedding endpoints that are not on this machine. Only loopback hosts count "
    "as local; LAN addresses are remote. Off keeps every note on this computer.",
)
AI_PROVIDER = Setting(
    "ai.provider", ASSISTANT, "Provider", choices=("openai", "anthropic", "fake"), default="openai",
    help="openai: any OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM, OpenAI, "
    "OpenRouter). anthropic: Anthropic's API. fake: a scripted offline model for demos and tests.",
)
AI_MODEL = Setting(
    "ai.model", ASSISTANT, "Model", default="",
    help="Name of the chat model as the server knows it, e.g. llama3.2 or gpt-4o-mini.",
)
AI_BASE_URL = Setting(
    "ai.baseUrl", ASSISTANT, "Server URL", default=OLLAMA_URL, kind=Kind.URL, check=_fits_provider,
    help='Address of the model server. The default is a local Ollama; "" uses the provider\'s own '
    "public endpoint (which is remote).",
)
AI_API_KEY_FILE = Setting(
    "ai.apiKeyFile", ASSISTANT, "API key file", default="", kind=Kind.PATH, check=_readable_file,
    help="File holding the API key, if the server needs one. The key itself is never stored in "
    "settings: NOTED_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment also work.",
)
AI_APPROVE_WRITES = Setting(
    "ai.approveWrites", ASSISTANT, "Ask before every change", default=True,
    help="Ask you to approve each change the assistant makes to your notes before it is written.",
)
AI_WRITES = Setting(
    "ai.writes", ASSISTANT, "The assistant's changes", choices=("ask", "review", "direct"), default="ask",
    closed=("review", "the assistant's changes wait for your review"),
    help="ask: as \"Ask before every change\" says. review: each change waits as a proposal in the "
    "Changes view until you accept it (edits of the open note are asked about in the chat). "
    "direct: changes are written at once (all stay reviewable).",
)
AI_BUDGET_TOKENS = Setting(
    "ai.budgetTokens", ASSISTANT, "Conversation budget (tokens)", default=80_000, minimum=1_000,
    maximum=10_000_000,
    help="Largest conversation sent to the model. A longer one is refused, never silently cut: "
    "start a new chat or select a part of the note.",
)
AI_TIMEOUT_SECONDS = Setting(
    "ai.timeoutSeconds", ASSISTANT, "Request timeout (seconds)", default=120, minimum=5, maximum=3_600,
    help="How long you wait for an answer to begin, retries included; the chat shows the wait, "
    "and Esc stops it.",
)

# Tools
EDIT_CURRENT_TOOLS = Setting(
    "ai.tool.edit_current.enabled", TOOLS, "Edit the open note", default=False, writes_notes=True,
    closed=SWITCHED_OFF,
    help="Let the assistant change the note open beside the chat (append, insert, replace text). "
    "Each edit still asks first while 'Ask before every change' is on.",
)

# Search
SEARCH_DEFAULT_MODE = Setting(
    "search.defaultMode", SEARCH, "Search mode", choices=("keyword", "semantic", "hybrid"),
    default="hybrid",
    help="keyword: words and filters. semantic: by meaning, from the local index. hybrid: both, "
    "fused into one ranking.",
)
SEARCH_RELEVANCE = Setting(
    "search.relevance", SEARCH, "Search-by-meaning relevance", choices=("strict", "normal", "loose"),
    default="normal",
    help="How close a note must be to count as a match: strict shows fewer, surer results; loose "
    "shows more.",
)
SEARCH_TRANSLATE = Setting(
    "search.translate", SEARCH, "Also search queries in Spanish, German or French in English",
    choices=("auto", "off"), default="auto",
    help="auto: a query taken for Spanish, German or French is searched as typed and also in "
    "English, from noted's glossary (search by meaning and both). off: always as typed.",
)
SEARCH_INDEXER_ENABLED = Setting(
    "search.indexer.enabled", SEARCH, "Index notes for search by meaning", default=True,
    help="Keep the semantic index up to date in the background. Off saves CPU; search by meaning "
    "then uses the index as it was.",
    at_start=AT_START,
)
EMBEDDING_PROVIDER = Setting(
    "ai.embedding.provider", SEARCH, "Embedding provider", choices=("onnx", "openai", "fake"),
    default="onnx",
    help="onnx: a model run on this machine (no network). openai: an OpenAI-compatible "
    "/v1/embeddings server. fake: deterministic vectors for tests. A change of provider rebuilds the index.",
    at_start=AT_START,
)
EMBEDDING_MODEL = Setting(
    "ai.embedding.model", SEARCH, "Embedding model", default="",
    help='For onnx, a folder holding model.onnx and tokenizer.json; "" is the bundled '
    "all-MiniLM-L6-v2. For openai, the model's name. A change of model rebuilds the index.",
    at_start=AT_START,
)
EMBEDDING_BASE_URL = Setting(
    "ai.embedding.baseUrl", SEARCH, "Embedding server URL", default="", kind=Kind.URL,
    help='Address of the /v1/embeddings server for the openai embedding provider; "" uses the '
    "assistant's server URL.",
    at_start=AT_START,
)
EMBEDDING_QUERY_PREFIX = Setting(
    "ai.embedding.queryPrefix", SEARCH, "Query prefix", default="",
    help='Text put before each search query, e.g. "query: " for e5 models; "" uses what the model '
    "declares.",
    at_start=AT_START,
)
EMBEDDING_PASSAGE_PREFIX = Setting(
    "ai.embedding.passagePrefix", SEARCH, "Passage prefix", default="",
    help='Text put before each indexed passage, e.g. "passage: " for e5 models; "" uses what the '
    "model declares.",
    at_start=AT_START,
)
EMBEDDING_THREADS = Setting(
    "ai.embedding.threads", SEARCH, "Embedding threads", default=0, minimum=0, maximum=256,
    help="CPU threads the local model may use; 0 picks a number that suits this machine.",
    at_start=AT_START,
)

# MCP server
MCP_ENABLED = Setting(
    "mcp.enabled", MCP, "Run the MCP server in the app", default=False,
    help="Serve your notes to AI apps (Claude, Cursor, Zed, Codex…) over HTTP while noted runs. "
    "They get exactly the tools switched on under Tools.",
)
MCP_HOST = Setting(
    "mcp.host", MCP, "Listen address", default="127.0.0.1", check=_listen_address,
    help="Address the HTTP server binds to. Anything but loopback requires a token file.",
)
MCP_PORT = Setting(
    "mcp.port", MCP, "Port", default=8765, minimum=1, maximum=65_535,
    help="TCP port of the HTTP server (http://HOST:PORT/mcp).",
)
MCP_ALLOWED_NOTEBOOKS: Setting[tuple[str, ...]] = Setting(
    "mcp.allowedNotebooks", MCP, "Notebooks AI apps may see", default=(), empty_means="every notebook",
    closed=(("",), "no notebook is shared"),
    help="Notebook ids or titles (their sub-notebooks included) the tools may see; unset means all. "
    "Other notebooks are invisible: no titles, snippets or counts leak.",
)
REFUSED_TOKEN_FILE = "no-token-file (mcp.tokenFile in config.toml is refused)"
"""What ``mcp.tokenFile`` names when the config file holds a value it refuses (``""``, a number):
a token file that is not there, so the HTTP server refuses to start rather than take no token."""
MCP_TOKEN_FILE = Setting(
    "mcp.tokenFile", MCP, "Bearer token file", default="", kind=Kind.PATH, empty_means="no token",
    closed=(REFUSED_TOKEN_FILE, "the MCP server does not start"),
    help="File holding the bearer token HTTP clients must send (noted mcp token creates one). It "
    "must belong to you and be unreadable by others.",
)
MCP_ALLOWED_ORIGINS: Setting[tuple[str, ...]] = Setting(
    "mcp.allowedOrigins", MCP, "Allowed browser origins", default=(),
    help="Browser origins (e.g. https://example.org) allowed to call the server; requests from other "
    "origins are refused. Clients that send no Origin, as AI apps do, are not affected.",
    at_start=AT_START,
)
MCP_WRITES = Setting(
    "mcp.writes", MCP, "AI apps' changes", choices=("direct", "review"), default="direct",
    closed=("review", "every AI app's writes wait for your review"),
    help="direct: an AI app's writes land at once (all stay reviewable). review: every AI app's writes, "
    "the main token's and no token's too, wait as proposals in the Changes view until you accept them "
    "(a client token's own --writes review does it for that app alone).",
)
MCP_ACTIONS_ENABLED = Setting(
    "mcp.actions.enabled", MCP, "OpenAPI actions", default=False,
    help="Also serve /openapi.json and /actions/{tool} for plain-HTTP clients such as custom GPT "
    "actions. Needs a token file and ai.allowRemote, because it exposes notes to whatever remote "
    "service you connect.",
)

# Storage
BACKEND = Setting(
    "backend", STORAGE, "Where notes live", choices=("sqlite", "joplin", "vault"), default="sqlite",
    help="sqlite: the profile's own database. joplin: a running Joplin's Data API (desktop app with "
    "the Web Clipper on, or the terminal app's server). vault: a folder of Markdown files "
    "(vault.path), worked on in place.",
    at_start=AT_START,
)
VAULT_PATH = Setting(
    "vault.path", STORAGE, "Markdown folder", default="", kind=Kind.PATH,
    help="The folder of Markdown files (an Obsidian vault, a git repository of notes) this profile "
    "works on when backend is vault; noted --vault DIR does it for one run. One profile per folder.",
    at_start=AT_START,
)
JOPLIN_URL = Setting(
    "joplin.url", STORAGE, "Joplin Data API URL", default="", kind=Kind.URL,
    help='Address of Joplin\'s Data API; "" finds it on this machine from port 41184 up.',
    at_start=AT_START,
)
JOPLIN_TOKEN_FILE = Setting(
    "joplin.tokenFile", STORAGE, "Joplin token file", default="", kind=Kind.PATH,
    help="File holding Joplin's API token (Joplin: Options, Web Clipper). NOTED_JOPLIN_TOKEN in the "
    "environment also works.",
    at_start=AT_START,
)
JOPLIN_SYNC_COMMAND = Setting(
    "joplin.syncCommand", STORAGE, "Joplin sync command", default="",
    help='What "Sync now" and noted sync run to make Joplin sync (its API cannot), e.g. "joplin sync" '
    'for the terminal app. "" : noted leaves syncing to Joplin.',
)
LARGE_NOTE_CHARS = Setting(
    "notes.largeNoteChars", STORAGE, "Large notes: the part shown and indexed (characters)",
    default=200_000, minimum=10_000, maximum=100_000_000,
    help="A note longer than this opens in the app showing its first this many characters (the reader "
    "says so; noted show, noted edit, noted export and the MCP read_note give all of it), and search by "
    "meaning indexes that part; keyword search covers it all. Keeps a huge note from stalling the app.",
    at_start="A change to search by meaning",
)
HISTORY_KEEP_ALL_DAYS = Setting(
    "history.keepAllDays", STORAGE, "Keep every revision for (days)", default=7, minimum=1, maximum=36_500,
    help="Every saved version of a note (and every kept version of an attachment) younger than this "
    "is kept. Older ones are thinned: one a day, then one a week, always keeping the state each "
    "writer left a note in.",
    at_start=AT_START,
)
HISTORY_KEEP_DAILY_DAYS = Setting(
    "history.keepDailyDays", STORAGE, "Keep a revision a day for (days)", default=90, minimum=1,
    maximum=36_500,
    help="Up to this age the last revision of each day is kept; older history keeps the last of each "
    "week. noted history --prune thins every note now and gives the space back.",
    at_start=AT_START,
)

# Appearance and keys
UI_THEME = Setting(
    "ui.theme", APPEARANCE, "Theme", default="noted-dark",
    help="A bundled theme (noted-dark, noted-light), one of Textual's, or a theme file in your config folder.",
)
UI_KEYMAP: Setting[Mapping[str, str]] = Setting(
    "ui.keymap", KEYS, "Key bindings", default=MappingProxyType({}),
    help='Keys for binding ids, e.g. "note.save" = "ctrl+s,f2". Set one with '
    "noted config set ui.keymap.note.save ctrl+s; unlisted bindings keep their keys.",
)
# fmt: on

SETTINGS: tuple[Setting[Any], ...] = tuple(v for v in list(globals().values()) if isinstance(v, Setting))
"""Every fixed setting above, in the order declared."""
