"""Run noted with ``python -m noted``."""

from __future__ import annotations

from noted.cli import main

raise SystemExit(main())
