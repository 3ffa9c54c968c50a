"""Import and export of a folder of Markdown files, through the ``Store`` protocol only.

Folders are notebooks (nested), files are notes with YAML front matter (id, title, tags, times,
to-do state, source URL), attachments live in ``_resources/`` and links between them are relative
paths on disk and ``:/id`` in the store. Both directions check everything before writing, so bad
input changes nothing; a re-import of an export (or of the same folder) duplicates nothing.
"""

from __future__ import annotations

from noted.store.transfer.common import TransferError
from noted.store.transfer.exporter import ExportReport, export_markdown
from noted.store.transfer.importer import ImportReport, import_markdown

__all__ = ["ExportReport", "ImportReport", "TransferError", "export_markdown", "import_markdown"]
