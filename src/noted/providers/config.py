"""What a provider needs to be built, where its key comes from, and whether its endpoint is local.

``ProviderConfig`` is independent of the settings module: the composition root fills it from the
``ai.*`` settings and :func:`load_api_key`. The key is kept out of ``repr`` so it never reaches a
log line or a traceback's locals.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from noted.errors import ConfigError

KEY_ENV_VARS: Mapping[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
"""The vendor's own environment variable per provider kind, read after ``NOTED_API_KEY``."""

NOTED_KEY_ENV = "NOTED_API_KEY"


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """Everything needed to build a chat provider.

    Attributes:
        kind: ``openai`` (any OpenAI-compatible server), ``anthropic`` or ``fake``.
        model: The model name sent with every request (ignored by the fake).
        base_url: The endpoint; ``None`` uses the kind's default (the vendor's public API).
        api_key: The key, already loaded (see :func:`load_api_key`); never shown.
        enabled: ``ai.enabled``: no provider is built while it is off.
        allow_remote: ``ai.allowRemote``: a non-loopback endpoint is refused while it is off.
        timeout: Seconds to wait for the server (connection, and each read of the stream).
        max_retries: How many times the SDK retries a 408/409/429/5xx or a connection failure,
            with exponential backoff (or the server's ``Retry-After``).
    """

    kind: str
    model: str = ""
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    enabled: bool = False
    allow_remote: bool = False
    timeout: float = 120.0
    max_retries: int = 2


def load_api_key(
    kind: str, *, key_file: Path | None = None, environ: Mapping[str, str] | None = None
) -> str | None:
    """Find the API key for a provider kind.

    The order is ``NOTED_API_KEY``, then the vendor's variable (``OPENAI_API_KEY``,
    ``ANTHROPIC_API_KEY``), then ``key_file`` when one is configured (``ai.apiKeyFile``).

    Raises:
        ConfigError: ``key_file`` is set but cannot be read or is empty (the message names the
            file, never its contents).
    """
    env = os.environ if environ is None else environ
    for name in (NOTED_KEY_ENV, KEY_ENV_VARS.get(kind)):
        if name and (key := env.get(name, "").strip()):
            return key
    if key_file is None:
        return None
    try:
        key = key_file.expanduser().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise ConfigError(
            f"cannot read the API key file {key_file}: {reason}",
            hint="fix the path in ai.apiKeyFile, or set NOTED_API_KEY",
        ) from None
    if not key:
        raise ConfigError(f"the API key file {key_file} is empty", hint="put the key on its first line")
    return key


def endpoint_host(url: str) -> str:
    """The host (and port, when given) of ``url``, without any user or password, for messages.

    Raises:
        ConfigError: ``url`` is not an ``http``/``https`` URL with a host.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"ai.baseUrl {url.split('@')[-1]!r} is not an http(s) URL",
            hint="write it like http://127.0.0.1:11434/v1",
        )
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(f"ai.baseUrl has a bad port: {parts.netloc.split('@')[-1]}") from None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{host}:{port}" if port is not None else host


@dataclass(frozen=True)
class Endpoint:
    """Where a provider sends its requests, as its messages name it (no secret in ``where``)."""

    base_url: str
    host: str
    local: bool
    model: str
    timeout: float
    key: str | None = field(repr=False)
    where: str
    """``"<what> at <host>"``, the subject of every error message about this server."""

    @classmethod
    def of(cls, config: ProviderConfig, *, default_url: str, what: str) -> Endpoint:
        from noted.endpoints import is_loopback_url

        base_url = config.base_url or default_url
        host = endpoint_host(base_url)
        return cls(
            base_url=base_url,
            host=host,
            local=is_loopback_url(base_url),
            model=config.model,
            timeout=config.timeout,
            key=config.api_key,
            where=f"{what} at {host}",
        )

    def label(self, kind: str) -> str:
        """Kind, model, host, and whether the host is this machine."""
        return f"{kind} {self.model} at {self.host} ({'local' if self.local else 'remote'})"
