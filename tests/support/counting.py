"""A store that counts what is read through it: the real store underneath, every call passed on.

``Counting(store, "get_note", "get_notes")`` counts the items those calls answered (a note, each
note of a list, each change of a feed page); any other method passes through uncounted. Tests of
what a path reads use it, where a timing would not do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from noted.store.protocol import Store


class Counting:
    """``store``, with the items that the methods ``names`` answered counted in ``read``."""

    def __init__(self, store: Store, *names: str) -> None:
        self._store, self._names = store, frozenset(names)
        self.read: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._store, name)
        return self._counted(name, found) if name in self._names else found

    def _counted(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            answer = method(*args, **kwargs)
            self.read[name] += _size(answer)
            return answer

        return counted

    @property
    def store(self) -> Store:
        """This, typed as the store it stands for."""
        return self  # (it answers every call a Store does: mypy sees __getattr__)


def _size(answer: Any) -> int:
    changes = getattr(answer, "changes", None)  # a page of the change feed
    if changes is not None:
        return len(changes)
    return len(answer) if isinstance(answer, list) else 1
