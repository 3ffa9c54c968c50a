"""Screens pushed over the workspace: search (``search.py``) and settings (``settings.py``).

The app finds them through ``noted.ui.slots`` by module name, so nothing here is imported eagerly.
"""
