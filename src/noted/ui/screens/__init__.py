"""Screens pushed over the workspace: search (``search.py``) and settings (``settings.py``).

The app imports each when it is first opened, not while it starts.
"""
