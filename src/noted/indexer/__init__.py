"""The background indexer: follows the store's change feed and keeps the semantic index in step."""
