"""The error a chat provider raises when its server cannot be reached, refuses or fails.

``ProviderError`` sits under ``NotedError`` beside ``BackendError``: a model endpoint is not a
storage backend, and the engine needs to know whether trying again may help. A provider that is
switched off or not allowed to reach a remote host raises ``UnavailableError`` instead (see
``registry.make_provider``), and a bad setting ``ConfigError``.

Messages name the host and the HTTP status but never the API key: :func:`redact` scrubs it from
anything a server echoed back.
"""

from __future__ import annotations

from collections.abc import Mapping

from noted.errors import NotedError

_HINTS: dict[int, str] = {
    400: "the server rejected the request; check ai.model and that the server supports tools",
    401: "check the API key (NOTED_API_KEY, the provider's own variable, or the key file)",
    403: "the API key is not allowed to use this model",
    404: "check ai.model and ai.baseUrl (OpenAI-compatible servers usually end in /v1)",
    408: "the server timed out; try again",
    413: "the conversation is too large for this model; start a new chat",
    429: "the server is rate limiting; wait a moment and try again",
}


class ProviderError(NotedError):
    """A chat request that failed at the model's server or on the way to it.

    Attributes:
        retryable: Whether the same request may succeed later (rate limit, overload, timeout,
            connection failure, 5xx). The SDKs have already retried these with backoff.
        status: The HTTP status, when the server answered with one.
    """

    def __init__(
        self, message: str, *, hint: str | None = None, retryable: bool = False, status: int | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.retryable = retryable
        self.status = status


def is_retryable_status(status: int) -> bool:
    """The statuses worth retrying: timeout, conflict, rate limit, and server failures."""
    return status in (408, 409, 429) or status >= 500


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` replaced, so a key a server echoed never leaks."""
    if secret and len(secret) >= 4:
        return text.replace(secret, "***")
    return text


def status_error(
    where: str,
    status: int,
    detail: str | None,
    *,
    secret: str | None,
    retryable: bool | None = None,
    hints: Mapping[int, str] | None = None,
) -> ProviderError:
    """A ``ProviderError`` for an HTTP error answer.

    Args:
        where: Who answered, e.g. ``"openai-compatible server at 127.0.0.1:11434"``.
        status: The HTTP status.
        detail: The server's own message, if any (shortened, key removed).
        secret: The API key to scrub from ``detail``.
        retryable: Overrides the status-based guess (for errors sent inside a stream).
        hints: The provider's own remedies by status, before the general ones.
    """
    message = f"the {where} answered {status}"
    if detail:
        short = redact(" ".join(detail.split()), secret)
        message += f": {short[:300]}"
    hint = (hints or {}).get(status) or _HINTS.get(
        status, "the server failed; try again later" if status >= 500 else None
    )
    return ProviderError(
        message,
        hint=hint,
        retryable=is_retryable_status(status) if retryable is None else retryable,
        status=status,
    )


def stream_error(where: str, detail: str, *, secret: str | None, retryable: bool) -> ProviderError:
    """A ``ProviderError`` for an error event sent inside a stream that had begun well."""
    short = redact(" ".join(detail.split()), secret)[:300]
    return ProviderError(
        f"the {where} failed mid-answer: {short}",
        hint="try again" if retryable else None,
        retryable=retryable,
    )


def connection_error(
    where: str, *, timed_out: bool, timeout: float, midstream: bool = False
) -> ProviderError:
    """A ``ProviderError`` for a server that could not be reached, went silent, or dropped the line."""
    if timed_out:
        return ProviderError(
            f"the {where} did not answer within {timeout:g} s",
            hint="the model may still be loading; try again, or raise ai.timeoutSeconds",
            retryable=True,
        )
    if midstream:
        return ProviderError(
            f"the connection to the {where} broke mid-answer", hint="try again", retryable=True
        )
    return ProviderError(
        f"cannot reach the {where}",
        hint="is the server running, and is ai.baseUrl right?",
        retryable=True,
    )
