"""Note history for every backend: revisions stored as deltas, thinned by one documented rule.

- ``noted.store.history.delta``: how a body is stored, whole or against the next revision.
- ``noted.store.history.thinning``: which old revisions are kept (``Thinning``, the rule).
- ``noted.store.history.table``: ``RevisionTable``, the SQL both stores run on their table.

When a save joins the last revision instead of adding one is ``noted.store.revisions``.
"""

from __future__ import annotations
