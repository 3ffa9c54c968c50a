"""noted: a terminal notebook with an assistant."""

from __future__ import annotations

import time

__version__ = "0.1.0"

STARTED = time.perf_counter()
"""When this process first imported noted: the terminal app logs how long it took to be ready."""
