"""``markdown_draw.warm_up``: the code highlighter is loaded before the first note needs it."""

from __future__ import annotations

import json
import subprocess
import sys

LEXER_MODULES = ["pygments.lexers.python", "pygments.lexers.javascript", "pygments.lexers.shell",
                 "pygments.lexers.sql", "pygments.lexers.go", "pygments.lexers.rust"]  # fmt: skip

PROBE = f"""
import json, sys
from noted.ui.widgets.markdown_draw import warm_up
modules = {LEXER_MODULES!r}
before = [m for m in modules if m in sys.modules]
warm_up("monokai", pause=0)
print(json.dumps({{"before": before, "after": [m for m in modules if m in sys.modules]}}))
"""


def test_warm_up_loads_the_lexers_of_common_languages() -> None:
    # In a fresh interpreter: this test process may have drawn code blocks already.
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    loaded = json.loads(out)
    assert loaded["before"] == []
    assert loaded["after"] == LEXER_MODULES
