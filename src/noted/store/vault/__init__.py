"""A folder of Markdown files as the notebook (an Obsidian vault, a git repository of notes)."""

from noted.store.vault.store import SIDECAR_NAME, VaultStore, check_place

__all__ = ["SIDECAR_NAME", "VaultStore", "check_place"]
