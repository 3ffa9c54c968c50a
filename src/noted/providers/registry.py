"""Build the configured chat provider, after checking the person allowed it.

Providers are chosen from :data:`PROVIDER_KINDS`, a table of factories; each factory imports its
SDK when called, so ``import noted.providers`` stays cheap and a missing SDK only hurts the kind
that needs it. Two settings gate every provider:

- ``ai.enabled`` must be on for any provider, the fake included;
- ``ai.allowRemote`` must be on for an endpoint whose host is not loopback (see
  :func:`~noted.providers.config.is_loopback_url`), because notes would leave the machine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from noted.endpoints import is_loopback_url
from noted.errors import ConfigError, UnavailableError
from noted.providers.base import ChatProvider
from noted.providers.config import KEY_ENV_VARS, NOTED_KEY_ENV, ProviderConfig, endpoint_host
from noted.providers.errors import ProviderError
from noted.settings.urls import EXAMPLE_URLS, base_url_problem

ProviderFactory = Callable[[ProviderConfig], ChatProvider]


@dataclass(frozen=True, slots=True)
class ProviderKind:
    """One kind of provider: how to build it and where it talks to by default.

    Attributes:
        factory: Builds the provider from a config whose ``base_url`` is already resolved.
        default_base_url: The endpoint when ``base_url`` is not set; ``None`` for no network at all.
        description: One line for settings screens and ``--help``.
    """

    factory: ProviderFactory
    default_base_url: str | None
    description: str


def _openai(config: ProviderConfig) -> ChatProvider:
    from noted.providers.openai_chat import OpenAIChatProvider

    return OpenAIChatProvider(config)


def _anthropic(config: ProviderConfig) -> ChatProvider:
    from noted.providers.anthropic_chat import AnthropicChatProvider

    return AnthropicChatProvider(config)


def _fake(config: ProviderConfig) -> ChatProvider:
    from noted.providers.fake import FakeProvider

    return FakeProvider()


PROVIDER_KINDS: Mapping[str, ProviderKind] = {
    "openai": ProviderKind(
        _openai,
        "https://api.openai.com/v1",
        "any OpenAI-compatible server: Ollama, LM Studio, llama.cpp, vLLM, OpenAI, OpenRouter…",
    ),
    "anthropic": ProviderKind(_anthropic, "https://api.anthropic.com", "Anthropic's Messages API"),
    "fake": ProviderKind(_fake, None, "an offline demo that needs no model (for trying noted out)"),
}


def make_provider(config: ProviderConfig, *, need_model: bool = True) -> ChatProvider:
    """Build the provider ``config`` names, or refuse with a message saying which setting to change
    (``need_model`` False: one that only lists the server's models may have none set).

    Raises:
        UnavailableError: ``ai.enabled`` is off, or the endpoint is remote and ``ai.allowRemote``
            is off.
        ConfigError: An unknown kind, a malformed base URL, a remote endpoint without a key, or
            no model named.
    """
    if not config.enabled:
        raise UnavailableError(
            "the assistant is off: set ai.enabled = true",
            hint="Settings → Assistant, or `noted config set ai.enabled true`",
        )
    kind = PROVIDER_KINDS.get(config.kind)
    if kind is None:
        known = ", ".join(sorted(PROVIDER_KINDS))
        raise ConfigError(
            f"unknown model provider {config.kind!r}", hint=f"ai.provider must be one of: {known}"
        )
    # A kind with no default endpoint (the fake) talks to no server: ai.baseUrl does not apply.
    base_url = (config.base_url or kind.default_base_url) if kind.default_base_url is not None else None
    if base_url is not None:
        problem = base_url_problem(base_url, config.kind)
        if problem is not None:  # the provider may have changed since ai.baseUrl was set
            raise ConfigError(
                f"ai.baseUrl {base_url!r} does not suit ai.provider = {config.kind}: {problem}",
                hint=f"write it like {EXAMPLE_URLS.get(config.kind, EXAMPLE_URLS['openai'])}",
            )
        host = endpoint_host(base_url)
        local = is_loopback_url(base_url)
        if not local and not config.allow_remote:
            raise UnavailableError(
                f"the model endpoint {host} is not on this machine and ai.allowRemote is off",
                hint=f"to send notes to {host}, set ai.allowRemote = true "
                "(Settings → Assistant, or `noted config set ai.allowRemote true`)",
            )
        if not local and not config.api_key:
            vendor = KEY_ENV_VARS.get(config.kind)
            where = f"{NOTED_KEY_ENV}" + (f" or {vendor}" if vendor else "")
            raise ConfigError(
                f"no API key for {host}", hint=f"set {where}, or point ai.apiKeyFile at a key file"
            )
        if need_model and not config.model:
            raise ConfigError(f"no model is set for {host}", hint="set ai.model, e.g. llama3.2 for Ollama")
        config = dataclasses.replace(config, base_url=base_url)
    return kind.factory(config)


async def list_models(config: ProviderConfig) -> list[str]:
    """The names of the models the configured server offers, sorted; ``ai.model`` need not be set.

    Raises:
        UnavailableError, ConfigError: As ``make_provider`` (the assistant off, a remote host not
            allowed, no key…).
        ProviderError: The server could not be reached, or cannot list its models (the line says
            so and that ``ai.model`` can be typed instead).
    """
    provider = make_provider(config, need_model=False)
    try:
        names = await provider.models()
    except ProviderError as exc:
        raise ProviderError(
            f"the model server cannot list its models: {exc.message}",
            hint="type the model's name in Settings → Assistant, or `noted config set ai.model NAME`",
            retryable=exc.retryable,
            status=exc.status,
        ) from exc
    finally:
        await provider.aclose()
    return sorted(set(names), key=str.casefold)
