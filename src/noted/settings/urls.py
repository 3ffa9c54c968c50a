"""Whether a server address is well formed, and right for the provider that will use it.

Used when ``ai.baseUrl`` (or another URL setting) is set, so a typo is refused with the part at
fault named, and again when a provider is built, since the provider may have changed since.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

EXAMPLE_URLS = {
    "openai": "http://127.0.0.1:11434/v1 (Ollama) or https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
"""A right URL per provider, for the hints of refusals."""
SETTING_EXAMPLES = {"joplin.url": "http://127.0.0.1:41184"}
"""A right URL for a setting whose server is not an AI provider's (the others: Ollama's)."""

_HOST_NAME = re.compile(
    r"(?i)^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$"
)


def url_problem(url: str) -> str | None:
    """What is wrong with ``url`` as a server address (scheme, host, port), or ``None`` when nothing.

    The words name the part at fault, e.g. ``the port "33167fake-claude" is not a number from 1 to
    65535``, for a message that says what to fix.
    """
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # an unbalanced [ of an IPv6 address
        return f"it does not parse as a URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "it must start with http:// or https://"
    netloc = parts.netloc.rsplit("@", 1)[-1]
    host = parts.hostname
    if not host:
        return "it names no host"
    if not netloc.startswith("[") and not _HOST_NAME.match(host):
        return f"the host {host!r} is not a host name or an IP address"
    after_host = netloc.rsplit("]", 1)[-1]  # past an IPv6 address's colons
    if ":" in after_host:
        port = after_host.partition(":")[2]
        if not (port.isdigit() and 1 <= int(port) <= 65535):
            return f"the port {port!r} is not a number from 1 to 65535"
    if parts.fragment:
        return "it must not have a #fragment"
    return None


def is_listen_address(host: str) -> bool:
    """Whether a server can bind to ``host`` as written: an IP address (IPv6 in brackets or not)
    or a host name, with no scheme, port, path or space (``mcp.host``, ``noted mcp serve --host``)."""
    try:
        ipaddress.ip_address(host.removeprefix("[").removesuffix("]"))
    except ValueError:
        return _HOST_NAME.fullmatch(host) is not None
    return True


def base_url_problem(url: str, provider: str) -> str | None:
    """What is wrong with ``url`` as ``provider``'s ``ai.baseUrl``, or ``None`` (``""`` is fine).

    Besides the shape (:func:`url_problem`), the path: an OpenAI-compatible server's API lives
    under ``/v1`` (the SDK adds ``/chat/completions``), while the Anthropic SDK adds ``/v1/messages``
    itself, so a URL ending in ``/v1`` would ask for ``/v1/v1/messages``.
    """
    if not url:
        return None
    problem = url_problem(url)
    if problem is not None:
        return problem
    path = urlsplit(url).path.rstrip("/")
    if provider == "anthropic" and path.endswith("/v1"):
        return "for the Anthropic provider it must not end in /v1 (the SDK adds /v1 itself)"
    if provider == "openai" and not path:
        return "an OpenAI-compatible server's URL ends in its API path, usually /v1"
    return None
