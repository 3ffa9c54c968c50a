"""A write tool rehearsed: its handler run up to its first write, so a call that must wait is
refused as the direct call would be.

In review mode a write is stored as a proposal instead of being run (``noted.tools.proposals``).
A call that direct mode refuses ("body" and "append" together, nothing to change, a notebook that
does not exist or lies outside the caller's notebooks) must be refused then too, in the same words
and with nothing stored; otherwise the person accepts it only to see it fail. Rather than keep a
second copy of each tool's checks, ``ToolRegistry`` runs the tool's own handler against
``ReadOnlyStore``: reads reach the store, and the first write (a ``Store`` method taking an
``actor``, as ``noted.ops`` calls them) stops the handler with ``WouldWrite``. Every refusal the
handler and its operation make before writing comes out as it does in direct mode; reaching the
write means the call passed them all. Nothing is written on any backend, so no transaction is
needed (Joplin's Data API has none).

A handler that ends without reaching a write is a call that changes nothing (a tag the note has,
a body as it is: every operation writes nothing when there is nothing to do). Its answer is direct
mode's, "nothing changed" in the tool's words, and nothing is proposed: the person is never asked
to accept a change that is none.

A refusal made only inside a store's write (a title of two lines) is out of the rehearsal's sight:
the tools make such checks themselves before their first write.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from collections.abc import Callable, Iterator
from typing import Any, cast

from noted.errors import Interruption
from noted.store.protocol import Store
from noted.store.sync import SyncConflicts, Syncing
from noted.tools.base import ToolContext


class WouldWrite(Interruption):
    """A rehearsed handler reached its first write: the call passed every check made before it."""


def _writes(protocol: type) -> frozenset[str]:
    """The methods of ``protocol`` that write: those taking an ``actor`` (inherited ones too)."""
    return frozenset(
        name
        for name, member in inspect.getmembers(protocol, inspect.isfunction)
        if "actor" in inspect.signature(member).parameters
    )


STORE_WRITES = _writes(Store) | {"prune_history"}  # the one write that records no change
"""What ``ReadOnlyStore`` stops at (``tests/unit/test_store_writes.py`` names writes the same way)."""


class _ReadOnly:
    """``target`` with the methods named in ``writes`` stopping the caller with ``WouldWrite``."""

    def __init__(self, target: object, writes: frozenset[str]) -> None:
        self._target = target
        self._writes = writes

    def __getattr__(self, name: str) -> Any:
        if name in self._writes:
            return _stop(name)
        return getattr(self._target, name)


class ReadOnlyStore(_ReadOnly):
    """A store that answers every read and stops at the first write; its ``batch`` groups nothing
    (no transaction is opened, so no lock is taken)."""

    def __init__(self, store: Store) -> None:
        super().__init__(store, STORE_WRITES)
        self._store = store

    def batch(self) -> contextlib.AbstractContextManager[None]:
        return _nothing()

    @property
    def sync(self) -> Syncing | None:
        sync = self._store.sync
        return None if sync is None else cast(Syncing, _ReadOnly(sync, frozenset({"run"})))

    @property
    def conflicts(self) -> SyncConflicts | None:
        found = self._store.conflicts
        return None if found is None else cast(SyncConflicts, _ReadOnly(found, _writes(SyncConflicts)))


@contextlib.contextmanager
def _nothing() -> Iterator[None]:
    yield


def _stop(name: str) -> Callable[..., Any]:
    def write(*args: object, **kwargs: object) -> Any:
        raise WouldWrite(name)

    return write


def rehearsal(ctx: ToolContext) -> ToolContext:
    """``ctx`` for a rehearsal: the same caller and scope, over ``ReadOnlyStore``, writing at once
    (a rehearsal is not itself proposed) and asking no one."""
    store = cast(Store, ReadOnlyStore(ctx.store))
    return dataclasses.replace(ctx, store=store, writes_wait=False, approve=None)
