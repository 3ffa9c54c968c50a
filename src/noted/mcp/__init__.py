"""The MCP server: the tool registry served to outside AI apps (Claude, Cursor, Zed, Codex…).

One registry, two doors: an MCP client gets exactly the tools, switches, scope and actor rules the
in-app assistant gets. Built on the official SDK's low-level ``Server``; this is the only package
that imports the SDK.

Import from the modules; this package file imports nothing, because the SDK takes seconds of CPU
to import and no other ``noted`` command should pay for it:

- ``server``: ``NotedMcp`` (tools/list, tools/call, list_changed) and ``call_result``;
- ``stdio`` (``serve_stdio``) and ``http`` (``HttpServer``, ``build_app``): the transports;
- ``embedded``: ``EmbeddedMcpServer`` and ``McpState``, the TUI's background server;
- ``clients``: who is connected, and the actor ``mcp:self:<client name>`` of a client without a token;
- ``guard`` and ``token``: Host, Origin, bearer token and body-size checks;
- ``client_tokens`` and ``scopes``: named client tokens, the door without one, and scopes fixed by
  notebook id (names resolved once);
- ``logs``: the SDK's and uvicorn's warnings into the profile's log file;
- ``options`` (``HttpOptions``), ``deps`` (``McpDeps``), ``snippets``: light, no SDK import.
"""
