"""The "Welcome" notebook a first run creates, so there is something to see, search and chat about.

It is ordinary content: the person may edit, move or trash it. It goes in through the ``Store``
protocol with the ``import`` actor, so its history shows it was not typed by the person.
"""

from __future__ import annotations

from noted.models import ACTOR_IMPORT, NoteDraft, new_id, now_ms
from noted.store.protocol import Store

WELCOME = "Welcome"
GUIDES = "Guides"
_DAY_MS = 24 * 60 * 60 * 1000

_START = """\
noted keeps notebooks, notes and tags in one database in your profile folder. Nothing needs a
network unless you pick a remote model. This notebook is yours: change it, or throw it away with
`noted notebook trash Welcome`.

## In the app

| Key | What it does |
|---|---|
| `Ctrl+P` | the command palette: every action, by name |
| `F1` | help for the part of the screen that has focus |
| `Ctrl+Q` | quit |

Every action is in the palette, so you never need the mouse; keys can be remapped in settings.

## From the command line

```sh
noted notes --notebook Welcome        # list notes (newest first)
noted show "Start here" --outline     # headings with their section paths
noted show "Start here" --section 3   # one section, subsections included
noted create "Call Ana" --todo --due 2030-01-31 --tag calls
noted edit "Call Ana" --append "- ask about the invoice"
noted edit "Start here"               # opens $EDITOR; a change made meanwhile keeps both
noted history "Start here"            # every revision, and who made it
noted export ~/notes-backup           # a folder of Markdown files; `noted import` reads one
```

A note can be named by its id, the first few characters of its id, or its exact title.
Add `--json` to any command for output a script can read.

## Search

`noted search QUERY` (and the search prompt in the app) uses the query language Joplin users know.
Words match by prefix and ignore accents; a match in the title counts more than one in the body.

| Query | Finds |
|---|---|
| `outline section` | notes with both words |
| `"who changed what"` | the exact phrase |
| `assist*` | words starting with *assist* |
| `notebook:Welcome tag:howto` | notes in a notebook (sub-notebooks included) with a tag |
| `type:todo iscompleted:0` | open to-dos |
| `updated:day-7` | notes changed in the last seven days |
| `due:day-0 -due:day+8` | to-dos due within the coming week |
| `any:1 mcp assistant` | notes with either word |
| `tools -mcp` | a word, but not another |

Each result names the section it was found in, so `noted show ID --section PATH` opens it there.

## Where to go next

- [The assistant and its tools](:/{assistant})
- [Use your notes from other AI apps](:/{mcp})
- [Reading a long note by its outline](:/{outline})
"""

_ASSISTANT = """\
The assistant chats with you about the note that is open. It is off until you switch it on, and it
can only read or change notes through **tools** that you enable one by one.

## Switching it on

```sh
noted config set ai.enabled true
noted config set ai.provider openai      # any OpenAI-compatible server: Ollama, LM Studio, vLLM…
noted config set ai.baseUrl http://127.0.0.1:11434/v1
noted config set ai.model llama3.1
```

A server on another machine also needs `ai.allowRemote`. API keys come from the environment
(for example `OPENAI_API_KEY`), never from the config file.

## Tools

Read tools (`search_notes`, `read_note`, `list_notebooks`…) are on by default; write tools
(`update_note`, `create_note`, `delete_note`…) are off until you enable them, each with its own
setting `ai.tool.<name>.enabled`. `noted tools list` shows them all with the setting of each.
With `ai.approveWrites` on, every write waits for your yes.

## Who changed what

Every edit the assistant makes is recorded with its conversation as the author, so
`noted history NOTE` tells your edits from its edits, and any revision can be restored.

## From a script

`noted ask --note "Start here" "Summarise the search section"` answers on standard output.
"""

_MCP = """\
Claude Desktop, Claude Code, Cursor, Zed, Codex and other apps that speak the Model Context
Protocol (MCP) can use your notes through the same tools, with the same switches, as the
built-in assistant.

## Connect an app

1. `noted mcp config claude` (or `cursor`, `zed`, `codex`) prints the snippet for that app.
2. Paste it into the app's MCP settings and restart the app once.
3. Ask the app something about your notes.

The app starts `noted mcp serve --stdio` itself. For apps that connect over HTTP, run
`noted mcp serve`; it listens on `http://127.0.0.1:8765/mcp` and only on this machine.

## Keep it contained

- `mcp.allowedNotebooks` limits what outside apps can see to some notebooks.
- Write tools stay off until you enable them; a disabled tool's refusal names the setting.
- Every change an app makes is recorded with its name (`mcp:claude`), so `noted history` shows it.
"""

_TODO = """\
A to-do, with a due date, to show how they work: `noted notes --todo` lists the open ones and
`noted complete "Try noted for a week"` ticks this one off.

- [ ] Create a notebook of your own: `noted notebook create Projects`
- [ ] Import a folder of Markdown files: `noted import ~/old-notes`
- [ ] Find this note with `type:todo iscompleted:0`
- [ ] Switch on the assistant, or connect an AI app over MCP
"""

_OUTLINE = """\
Long notes are easier to read by their headings. The outline numbers every heading by position:
the first top-level heading is `1`, its second subheading `1.2`. Search results, the outline pane
and `noted show --section` all use the same numbers.

# Trip to Lisbon

## Before leaving

### Papers

Passport, travel insurance, the hotel booking.

### Packing

Light clothes, a rain jacket, comfortable shoes for the hills.

## While there

### Places

The castle early in the morning; the tram 28 late in the evening.

### Food

Pastéis de nata warm from the oven; grilled sardines in June.

# Afterwards

Sort the photos and write down what to do differently next time.

Try `noted show "Reading a long note by its outline" --outline`, then `--section 1.2.2` or
`--section Food`.
"""


def _start_text(links: dict[str, str]) -> str:
    text = _START
    for key, note_id in links.items():
        text = text.replace(f"{{{key}}}", note_id)
    return text


def create_welcome(store: Store) -> None:
    """Fill a new profile with the Welcome notebook: a sub-notebook, five notes, a to-do and tags."""
    actor = ACTOR_IMPORT
    welcome = store.create_folder(WELCOME, actor=actor)
    guides = store.create_folder(GUIDES, parent_id=welcome.id, actor=actor)
    links = {"assistant": new_id(), "mcp": new_id(), "outline": new_id()}
    now = now_ms()
    notes = [
        (
            "The assistant and its tools",
            _ASSISTANT,
            guides.id,
            links["assistant"],
            False,
            ("welcome", "assistant"),
        ),
        ("Use your notes from other AI apps (MCP)", _MCP, guides.id, links["mcp"], False, ("howto", "mcp")),
        (
            "Reading a long note by its outline",
            _OUTLINE,
            guides.id,
            links["outline"],
            False,
            ("welcome", "howto"),
        ),
        ("Try noted for a week", _TODO, welcome.id, None, True, ("welcome",)),
        # Newest, so it heads the default (most recently updated first) listing.
        ("Start here", _start_text(links), welcome.id, None, False, ("welcome", "howto")),
    ]
    for age, (title, body, parent, note_id, is_todo, tags) in zip(
        range(len(notes), 0, -1), notes, strict=True
    ):
        draft = NoteDraft(
            title,
            body,
            parent,
            is_todo=is_todo,
            todo_due=now + 7 * _DAY_MS if is_todo else 0,
            id=note_id,
            user_created_time=now - age,
            user_updated_time=now - age,
            tags=tags,
        )
        store.create_note(draft, actor=actor)
