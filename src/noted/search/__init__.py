"""Retrieval: keyword search (Joplin's grammar over FTS5); semantic and hybrid search build on it."""
