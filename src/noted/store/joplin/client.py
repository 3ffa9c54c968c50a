"""A small client of Joplin's Data API (the Web Clipper service) over ``httpx``.

Reads are retried for about a second when Joplin cannot be reached (a dropped connection, a
restart's last moment), then reported as "Joplin is not reachable at URL", so a Joplin that is
off is told at once rather than after a wait. Writes are sent once: a write that could not be
sent is reported as not done, and a write whose answer never came (a timeout after sending) is
reported as of unknown outcome, never retried blindly, so nothing is duplicated.

The token is added to each request's URL by the transport, below httpx's own request logging,
so it never appears in logs, errors or reprs.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx

from noted.errors import (
    BackendError,
    CredentialsRefusedError,
    InvalidInputError,
    NotFoundError,
    WriteOutcomeUnknownError,
)

log = logging.getLogger(__name__)

PAGE_LIMIT = 100
"""The largest page Joplin serves."""
DISCOVERY_PORTS = range(41184, 41194)
"""Where Joplin's clipper service listens: 41184, or the next free port up."""
PING_ANSWER = "JoplinClipperServer"
READ_DEADLINE = 1.0
"""Seconds a read keeps retrying by default: a person waiting on a Joplin that is off is told in
about this; longer outages are the followers' to ride out (they poll again)."""

Params = Mapping[str, str | int]


class JoplinUnreachableError(BackendError):
    """Joplin could not be reached: a read gave up retrying, or a write was not sent at all."""


class _TokenTransport(httpx.BaseTransport):
    """Adds ``token=…`` to every request's URL just before it goes on the wire."""

    def __init__(self, token: str, inner: httpx.BaseTransport) -> None:
        self._token = token
        self._inner = inner

    def __repr__(self) -> str:
        return "_TokenTransport(token=<hidden>)"

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        # A new request, not the client's one: httpx logs the client's URL after the answer.
        wire = httpx.Request(
            request.method,
            request.url.copy_merge_params({"token": self._token}),
            headers=request.headers,
            stream=request.stream,
            extensions=request.extensions,
        )
        return self._inner.handle_request(wire)

    def redact(self, text: str) -> str:
        """``text`` with the token blanked out (Joplin's error messages may echo the URL)."""
        return text.replace(self._token, "<token>")

    def close(self) -> None:
        self._inner.close()


def _unreachable(url: str) -> JoplinUnreachableError:
    return JoplinUnreachableError(
        f"Joplin is not reachable at {url}",
        hint="start Joplin with its Web Clipper service on (terminal app: `joplin server start`), "
        "or set joplin.url",
    )


def discover(ports: range = DISCOVERY_PORTS, *, host: str = "127.0.0.1", timeout: float = 0.5) -> str | None:
    """The URL of the first Joplin Data API answering ``/ping`` on ``host`` from ``ports``, or None."""
    with httpx.Client(timeout=timeout, trust_env=False) as http:
        for port in ports:
            url = f"http://{host}:{port}"
            try:
                answer = http.get(f"{url}/ping")
            except httpx.HTTPError:
                continue
            if answer.status_code == 200 and answer.text.strip() == PING_ANSWER:
                return url
    return None


class JoplinClient:
    """Requests to one Joplin Data API, with its token, retries for reads and single-send writes.

    ``url`` may be empty: the API is then found on this machine from port 41184 up, on first use
    and again after a failure (Joplin may come back on another port).
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        read_deadline: float = READ_DEADLINE,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        discover_url: Callable[[], str | None] = discover,
    ) -> None:
        if not token:
            raise InvalidInputError("a Joplin client needs the API token")
        self._configured = url.rstrip("/")
        self._url = self._configured
        self._discover = discover_url
        self.read_deadline = read_deadline
        """Seconds a read keeps retrying while Joplin cannot be reached."""
        inner = transport or httpx.HTTPTransport(retries=0)
        self._transport = _TokenTransport(token, inner)
        self._http = httpx.Client(
            transport=self._transport,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
            trust_env=False,
        )
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"JoplinClient(url={self.url!r})"

    @property
    def url(self) -> str:
        """The API's address (``""`` while it has not been found)."""
        return self._url

    def close(self) -> None:
        self._http.close()

    # Addresses ---------------------------------------------------------------------------
    def _base(self) -> str:
        with self._lock:
            if not self._url:
                found = self._discover()
                if found is None:
                    ports = f"{DISCOVERY_PORTS.start}-{DISCOVERY_PORTS.stop - 1}"
                    raise JoplinUnreachableError(
                        f"no Joplin Data API answered on this machine (ports {ports})",
                        hint="start Joplin with its Web Clipper service on, or set joplin.url",
                    )
                self._url = found
            return self._url

    def _forget_discovered(self) -> None:
        with self._lock:
            self._url = self._configured

    # Reads -------------------------------------------------------------------------------
    def get(self, path: str, params: Params | None = None) -> Any:
        """The decoded JSON Joplin answers to ``GET path``."""
        return self._read(path, params).json()

    def get_bytes(self, path: str) -> bytes:
        """The raw body of ``GET path`` (a resource's file)."""
        return self._read(path, None).content

    def pages(self, path: str, params: Params | None = None, *, first_page: int = 1) -> Iterator[list[Any]]:
        """Every page of a paginated listing, in order, from ``first_page``."""
        page = first_page
        while True:
            answer = self.get(path, {**(params or {}), "page": page, "limit": PAGE_LIMIT})
            if not isinstance(answer, dict) or "items" not in answer:
                raise BackendError(f"Joplin answered {path} with something other than a page of items")
            yield list(answer["items"])
            if not answer.get("has_more"):
                return
            page += 1

    def count(self, path: str, params: Params | None = None) -> int:
        """How many items a listing Joplin pages itself holds, without reading them all.

        The API cannot count, but it pages with SQL's ``LIMIT``/``OFFSET``, so a page of one item
        says whether the item at an offset exists: the last page of ``PAGE_LIMIT`` is found by
        doubling then halving (a request of one id each), and only that page is read. 1,000 notes:
        9 small requests instead of 10 pages of every note.
        """
        base = {**(params or {}), "fields": "id"}

        def items(page: int, limit: int) -> int:
            answer = self.get(path, {**base, "page": page, "limit": limit})
            if not isinstance(answer, dict) or not isinstance(answer.get("items"), list):
                raise BackendError(f"Joplin answered {path} with something other than a page of items")
            return len(answer["items"])

        def has_page(page: int) -> bool:  # its first item exists
            return items((page - 1) * PAGE_LIMIT + 1, 1) > 0

        if not has_page(1):
            return 0
        low, high = 1, 2  # low has items; is high past the end?
        while has_page(high):
            low, high = high, high * 2
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if has_page(middle) else (low, middle)
        return (low - 1) * PAGE_LIMIT + items(low, PAGE_LIMIT)

    def get_all(self, path: str, params: Params | None = None) -> list[Any]:
        """Every item of a paginated listing."""
        return [item for page in self.pages(path, params) for item in page]

    def _read(self, path: str, params: Params | None) -> httpx.Response:
        deadline = time.monotonic() + self.read_deadline
        pause = 0.1
        while True:
            try:
                base = self._base()
                answer = self._http.get(f"{base}{path}", params=dict(params or {}))
            except (httpx.TransportError, BackendError) as exc:
                self._forget_discovered()
                if time.monotonic() + pause > deadline:
                    if isinstance(exc, BackendError):
                        raise
                    raise _unreachable(self._url or self._configured or "127.0.0.1") from None
                log.debug("Joplin read %s failed (%s); retrying", path, type(exc).__name__)
                time.sleep(pause)
                pause = min(pause * 2, 1.0)
                continue
            if answer.status_code in (502, 503, 504) and time.monotonic() + pause <= deadline:
                time.sleep(pause)
                continue
            return self._checked(answer, path)

    # Writes ------------------------------------------------------------------------------
    def write(self, method: str, path: str, body: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """Send one ``POST``, ``PUT`` or ``DELETE`` once; returns the decoded answer (None if empty).

        ``body`` is sent as JSON; ``kwargs`` go to httpx (``params``, ``files``, ``data``).

        Raises:
            JoplinUnreachableError: it was not sent; nothing changed.
            WriteOutcomeUnknownError: it was sent and no answer came; it may have been applied.
        """
        if body is not None:
            kwargs["json"] = body
        base = self._base()
        try:
            answer = self._http.request(method, f"{base}{path}", **kwargs)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout):
            self._forget_discovered()
            raise JoplinUnreachableError(
                f"Joplin is not reachable at {base}; nothing was changed",
                hint="start Joplin, then try again",
            ) from None
        except httpx.TransportError as exc:
            raise WriteOutcomeUnknownError(
                f"Joplin at {base} received the change but did not answer ({type(exc).__name__}); "
                "it may or may not have been saved",
                hint="look at the item in Joplin before trying again, so nothing is done twice",
            ) from None
        answer = self._checked(answer, path)
        if not answer.content:
            return None
        try:
            return answer.json()
        except ValueError:
            return None

    # Answers -----------------------------------------------------------------------------
    def _checked(self, answer: httpx.Response, path: str) -> httpx.Response:
        status = answer.status_code
        if status < 400:
            return answer
        reason = self._transport.redact(_error_text(answer))
        if status == 404:
            raise NotFoundError(f"Joplin has no {path.strip('/')}" + (f": {reason}" if reason else ""))
        if status == 403:
            raise CredentialsRefusedError(
                "Joplin refused the API token",
                hint="copy the token from Joplin's Web Clipper options into the file joplin.tokenFile "
                "names, or into NOTED_JOPLIN_TOKEN",
            )
        if status == 400:
            raise InvalidInputError(f"Joplin refused the request: {reason or 'bad request'}")
        raise BackendError(
            f"Joplin answered {status} to {path.split('?')[0]}" + (f": {reason}" if reason else "")
        )


def _error_text(answer: httpx.Response) -> str:
    """Joplin's error message from an error answer (``{"error": "..."}``), shortened."""
    try:
        payload = answer.json()
    except ValueError:
        text = answer.text
    else:
        text = str(payload.get("error", "")) if isinstance(payload, dict) else str(payload)
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first[:300]
