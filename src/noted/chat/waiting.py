"""Waiting for a model's answer: one deadline for the whole wait, retries inside it, signs of life.

``ai.timeoutSeconds`` is the time the person waits for an answer to begin, all tries included:
the SDKs' own retries are switched off (``ProviderConfig.max_retries = 0``) because each would
wait the full timeout again, unseen (three tries of 120 s arrived as "did not answer within
120 s" after six minutes). Here a try that fails in a way worth retrying (connection refused,
429, 5xx) is tried again after a short pause while time is left, and while nothing has arrived a
:class:`~noted.chat.events.Waiting` event comes every second with the time waited and the try
under way, so the front end can show them. The person's cancel stops every wait at once.

Once the first event has arrived the answer is streaming: the SDK's read timeout then guards
silence between pieces, and a failure is not retried (the person has seen part of the answer).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import suppress

from noted.chat.events import Waiting
from noted.chat.turns import settle
from noted.errors import Interruption
from noted.providers import ChatProvider, ChatRequest, ProviderError, ProviderEvent

TICK = 1.0
"""Seconds between two ``Waiting`` events."""
BACKOFF = (0.5, 1.0, 2.0, 4.0)
"""Pause before each retry (the last repeats)."""


class Stopped(Interruption):
    """The person cancelled while the answer was awaited or streamed."""


async def patient_stream(
    provider: ChatProvider,
    request: ChatRequest,
    cancel: asyncio.Event,
    *,
    timeout: float,
    retries: int,
) -> AsyncIterator[ProviderEvent | Waiting]:
    """The provider's events, retried and timed as the module says, with ``Waiting`` between.

    Raises:
        Stopped: ``cancel`` was set.
        ProviderError: No answer began within ``timeout`` seconds, or the last try failed.
    """
    loop = asyncio.get_running_loop()
    start = loop.time()
    deadline = start + timeout
    attempt = 0
    last: ProviderError | None = None
    while True:
        stream = provider.stream(request).__aiter__()
        started = False
        try:
            async for event in _events(stream, cancel, (loop, start, deadline), attempt, retries):
                started = started or not isinstance(event, Waiting)
                yield event
            return
        except TimeoutError:  # the wait ran out in this try: said once, with why the last one failed
            raise _timed_out(timeout, attempt + 1, last) from None
        except ProviderError as exc:
            if started or not exc.retryable:
                raise
            last = exc
        attempt += 1
        pause = BACKOFF[min(attempt - 1, len(BACKOFF) - 1)]
        if attempt > retries or loop.time() + pause >= deadline:
            raise _tried(last, attempt) from None
        yield Waiting(loop.time() - start, timeout, attempt, retries, last.message)
        await _pause(cancel, pause)


async def _events(
    stream: AsyncIterator[ProviderEvent],
    cancel: asyncio.Event,
    clock: tuple[asyncio.AbstractEventLoop, float, float],
    attempt: int,
    retries: int,
) -> AsyncIterator[ProviderEvent | Waiting]:
    """One try: its events; ``Waiting`` each second until the first one; the deadline until then.

    ``clock`` is the loop, when the wait began and when it must end (loop time).
    """
    loop, start, deadline = clock
    stop = asyncio.ensure_future(cancel.wait())
    step: asyncio.Future[ProviderEvent] | None = None
    started = False
    try:
        while True:
            step = asyncio.ensure_future(stream.__anext__())
            while not step.done():
                wait = None if started else max(0.0, min(TICK, deadline - loop.time()))
                await asyncio.wait({step, stop}, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
                if stop.done():
                    raise Stopped()
                if step.done() or started:
                    continue
                if loop.time() >= deadline:
                    raise TimeoutError  # patient_stream says so, with the tries before this one
                yield Waiting(loop.time() - start, deadline - start, attempt, retries)
            try:
                event = step.result()
            except StopAsyncIteration:
                return
            step = None
            started = True
            yield event
    finally:
        stop.cancel()
        await settle(step)
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            with suppress(Exception):
                await aclose()


async def _pause(cancel: asyncio.Event, seconds: float) -> None:
    """Sleep before a retry, or stop at once when the person cancels."""
    with suppress(TimeoutError):
        await asyncio.wait_for(cancel.wait(), seconds)
    if cancel.is_set():
        raise Stopped()


def _tried(last: ProviderError, tries: int) -> ProviderError:
    """The last try's error, saying how many tries there were when there was more than one."""
    if tries == 1:
        return last
    return ProviderError(
        f"{last.message} ({tries} tries)", hint=last.hint, retryable=True, status=last.status
    )


def _timed_out(timeout: float, tries: int, earlier: ProviderError | None) -> ProviderError:
    """The error for a wait that ran out of time: the whole wait, how many tries it held, and how
    the try before the last one ended (a 503 "overloaded" says more than the timeout does)."""
    told = f" ({tries} tries; the one before ended: {earlier.message})" if earlier is not None else ""
    return ProviderError(
        f"the model server did not answer within {timeout:g} s{told}",
        hint="the model may still be loading; try again, or raise ai.timeoutSeconds",
        retryable=True,
    )
